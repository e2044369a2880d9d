------------------------------ MODULE MutFenceAfterReroute ------------------------------
(* Mutant for S18_NoFencedTokenDeliveredInv: the failure does not raise the fence; the restart of *)
(* the failed worker does, after its requests were routed again. Two definitions are overridden *)
(* in MutFenceAfterReroute.cfg: FailEpoch and Restart. *)
EXTENDS MCLumen

MutFailEpoch(w) == gray.epoch[w]

MutRestart(w) ==
    /\ wstate[w] = "FAILED"
    /\ wstate' = [wstate EXCEPT ![w] = IF DraftAssist THEN "LOADING_DRAFT" ELSE "LOADING_FULL"]
    /\ gray' = [gray EXCEPT !.epoch[w] = @ + 1]
    /\ UNCHANGED <<active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen>>

=============================================================================
