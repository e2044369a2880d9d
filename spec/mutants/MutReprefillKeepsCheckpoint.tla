------------------------------ MODULE MutReprefillKeepsCheckpoint ------------------------------
(* Mutant for S8_NoCheckpointLeakInv: A re-prefill starts the request afresh on a survivor but leaves its old checkpoint on the holder. *)
(* One definition is overridden in MutReprefillKeepsCheckpoint.cfg: RouteReprefill. *)
EXTENDS MCLumen

MutRouteReprefill(r) ==
    /\ \E t \in ArgMinRouteLoad(RouteTargets) : runq' = [runq EXCEPT ![t] = @ \cup {r}] /\ rload' = RouteLoadsAfterRoute(r, t)
    /\ kv' = [kv EXCEPT ![r] = <<>>]
    /\ UNCHANGED <<holder, ckpt, backup, bckpt, stored, reserved>>

=============================================================================
