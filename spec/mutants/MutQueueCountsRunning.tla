------------------------------ MODULE MutQueueCountsRunning ------------------------------
(* Mutant for A1_PlacementIsArgMinProp: Under the waiting-queue reading the gateway's load still counts running requests in Q_w. *)
(* One definition is overridden in MutQueueCountsRunning.cfg: Load. *)
EXTENDS MCLumen

MutLoad(w) == Alpha * stored[w] + Beta * Cardinality(runq[w])

=============================================================================
