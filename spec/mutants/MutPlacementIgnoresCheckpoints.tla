------------------------------ MODULE MutPlacementIgnoresCheckpoints ------------------------------
(* Mutant for A1_PlacementIsArgMinProp: Placement balances queue depth only, dropping the alpha term of Eq. 4. *)
(* One definition is overridden in MutPlacementIgnoresCheckpoints.cfg: PlacementChoice. *)
EXTENDS MCLumen

MutPlacementChoice(r) == {w \in HolderCandidates(r) : \A v \in HolderCandidates(r) : Q(w) <= Q(v)}

=============================================================================
