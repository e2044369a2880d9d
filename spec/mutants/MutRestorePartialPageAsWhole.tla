------------------------------ MODULE MutRestorePartialPageAsWhole ------------------------------
(* Mutant for S9_RestoreResumesAtSavedPrefixInv: a restore counts the checkpoint's partial last page as whole and resumes at the page's end. *)
(* One definition is overridden in MutRestorePartialPageAsWhole.cfg: ResumePages. *)
EXTENDS MCLumen

MutResumePages(r) == ckpt[r] \o [i \in 1..(PageEnd(Len(ckpt[r])) - Len(ckpt[r])) |-> Hole]

=============================================================================
