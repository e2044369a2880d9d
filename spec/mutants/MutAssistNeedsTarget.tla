------------------------------ MODULE MutAssistNeedsTarget ------------------------------
(* Mutant for L4_DraftAssists: A recovering worker assists only when the gateway fixed its target at DraftReady; a session whose target is chosen later never proposes. *)
(* One definition is overridden in MutAssistNeedsTarget.cfg: AssistGuard. *)
EXTENDS MCLumen

MutAssistGuard(w, r) ==
    /\ DraftAssist
    /\ wstate[w] = "ASSISTING"
    /\ atarget[w] # None
    /\ phase[r] = "DECODE"
    /\ Server(r) \in AssistTargetsOf(w)
    /\ proposal[r] = None
    /\ Len(out[r]) < Len(Ref[r])

=============================================================================
