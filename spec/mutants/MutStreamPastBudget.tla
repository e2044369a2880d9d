------------------------------ MODULE MutStreamPastBudget ------------------------------
(* Mutant for S5_BudgetRespectedInv: under the budget=stored reading a holder's host memory  *)
(* keeps taking checkpoint pages once it stores M_budget positions.                          *)
(* One definition is overridden in MutStreamPastBudget.cfg: RoomFor. *)
EXTENDS MCLumen

MutRoomFor(w, n) == TRUE

=============================================================================
