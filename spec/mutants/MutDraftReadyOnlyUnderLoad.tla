------------------------------ MODULE MutDraftReadyOnlyUnderLoad ------------------------------
(* Mutant for L2_EveryFailedWorkerRejoins: The recovering worker enters assist (and starts its background full load) only while some survivor is overloaded; in a quiet cluster it never rejoins. *)
(* One definition is overridden in MutDraftReadyOnlyUnderLoad.cfg: DraftReady. *)
EXTENDS MCLumen

MutDraftReady(w) ==
    /\ wstate[w] = "LOADING_DRAFT"
    /\ \E s \in Serving : Load(s) > Theta
    /\ wstate' = [wstate EXCEPT ![w] = "ASSISTING"]
    /\ active' = [active EXCEPT ![w] = "DRAFT"]
    /\ \E t \in TargetChoices : atarget' = [atarget EXCEPT ![w] = t]
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, rload, seen, gray>>

=============================================================================
