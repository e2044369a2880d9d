------------------------------ MODULE MutBudgetIgnored ------------------------------
(* Mutant for S5_BudgetRespectedInv: Placement ignores M_budget. *)
(* One definition is overridden in MutBudgetIgnored.cfg: HolderCandidates. *)
EXTENDS MCLumen

MutHolderCandidates(r) == {w \in Serving : w # Server(r)}

=============================================================================
