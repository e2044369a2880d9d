------------------------------ MODULE MutBudgetReservedAnyway ------------------------------
(* Mutant for A1_PlacementIsArgMinProp: told the budget=stored reading, placement still     *)
(* requires room to reserve Size(r), so a holder with unstored room is passed over.         *)
(* One definition is overridden in MutBudgetReservedAnyway.cfg: HasRoom. *)
EXTENDS MCLumen

MutHasRoom(w, r) == reserved[w] + Size(r) <= Budget

=============================================================================
