------------------------------ MODULE MutRestartReusesEpoch ------------------------------
(* Mutant for S18_NoFencedTokenDeliveredInv: a restart takes the epoch the failed incarnation had. *)
(* One definition is overridden in MutRestartReusesEpoch.cfg: Restart. *)
EXTENDS MCLumen

MutRestart(w) ==
    /\ wstate[w] = "FAILED"
    /\ wstate' = [wstate EXCEPT ![w] = IF DraftAssist THEN "LOADING_DRAFT" ELSE "LOADING_FULL"]
    /\ gray' = [gray EXCEPT !.epoch[w] = @ - 1]
    /\ UNCHANGED <<active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen>>

=============================================================================
