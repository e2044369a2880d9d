------------------------------ MODULE MutResumeAtInterruption ------------------------------
(* Mutant for S9_RestoreResumesAtSavedPrefixInv: Restore resumes at the interruption point, as if the checkpoint were current. *)
(* One definition is overridden in MutResumeAtInterruption.cfg: ResumePages. *)
EXTENDS MCLumen

MutResumePages(r) == ckpt[r] \o [i \in 1..(Ctx(r) - Len(ckpt[r])) |-> Hole]

=============================================================================
