------------------------------ MODULE MutDraftSurvivesFailure ------------------------------
(* Mutant for S17_DraftVerifiedWhereAimedInv: A failure drops its own worker's drafts but keeps the drafts of the requests it interrupts, which are later verified on their new server. *)
(* One definition is overridden in MutDraftSurvivesFailure.cfg: DraftsDropped. *)
EXTENDS MCLumen

MutDraftsDropped(w) == {r \in Requests : proposal[r] # None /\ proposal[r].src = w}

=============================================================================
