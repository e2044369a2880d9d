------------------------------ MODULE MutHolderIsServer ------------------------------
(* Mutant for S4_HolderIsNotServerInv: Placement forgets to exclude the request's own server. *)
(* One definition is overridden in MutHolderIsServer.cfg: HolderCandidates. *)
EXTENDS MCLumen

MutHolderCandidates(r) == {w \in Serving : reserved[w] + Size(r) <= Budget}

=============================================================================
