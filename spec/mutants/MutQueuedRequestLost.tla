------------------------------ MODULE MutQueuedRequestLost ------------------------------
(* Mutant for S1_NoLostRequestInv: The failure handler collects only running requests: queued ones vanish with the queue. *)
(* One definition is overridden in MutQueuedRequestLost.cfg: Interrupted. *)
EXTENDS MCLumen

MutInterrupted(w) == {r \in runq[w] : phase[r] = "DECODE"}

=============================================================================
