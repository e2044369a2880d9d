------------------------------ MODULE MutPlacesOnExactLoads ------------------------------
(* Mutant for A1_PlacementIsArgMinProp: told the citedLoads=stale reading, the gateway decides on *)
(* Eq. 4 recomputed from the state, not on the loads its monitor holds (and would cite).          *)
(* One definition is overridden in MutPlacesOnExactLoads.cfg: Seen. *)
EXTENDS MCLumen

MutSeen(w) == Load(w)

=============================================================================
