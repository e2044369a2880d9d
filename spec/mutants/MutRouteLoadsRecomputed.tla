------------------------------ MODULE MutRouteLoadsRecomputed ------------------------------
(* Mutant for A2_RoutingFollowsRuleProp: told the routeLoads=increment reading, the gateway  *)
(* decides each route on Eq. 4 recomputed from the state, not on Algorithm 2's running loads. *)
(* One definition is overridden in MutRouteLoadsRecomputed.cfg: RouteLoad. *)
EXTENDS MCLumen

MutRouteLoad(w) == Load(w)

=============================================================================
