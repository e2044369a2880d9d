------------------------------ MODULE MutFCReprefillAnywhere ------------------------------
(* Mutant for A5_RoutingFollowsBaselineProp: Fixed-Checkpointing re-prefills a request whose holder is lost on any live worker, not a least loaded one. *)
(* One definition is overridden in MutFCReprefillAnywhere.cfg: ArgMinRouteLoad. *)
EXTENDS MCLumen

MutArgMinRouteLoad(S) == S

=============================================================================
