------------------------------ MODULE MutArriveRoundRobin ------------------------------
(* Mutant for A6_ArrivalJoinsShortestQueueProp: under arrival=shortest the gateway sends a new request to any UP worker (round robin), not only to a shortest queue. *)
(* One definition is overridden in MutArriveRoundRobin.cfg: ArriveTargets. *)
EXTENDS MCLumen

MutArriveTargets == Serving

=============================================================================
