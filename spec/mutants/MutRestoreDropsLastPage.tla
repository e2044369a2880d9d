------------------------------ MODULE MutRestoreDropsLastPage ------------------------------
(* Mutant for S12_RestoreResumesAtCheckpointProp: Under Fixed-Checkpointing a restore drops the last page it saved and recomputes it. *)
(* One definition is overridden in MutRestoreDropsLastPage.cfg: ResumePages. *)
EXTENDS MCLumen

MutResumePages(r) == IF ckpt[r] = <<>> THEN <<>> ELSE SubSeq(ckpt[r], 1, Len(ckpt[r]) - 1)

=============================================================================
