------------------------------ MODULE MutRestoreReadsBackup ------------------------------
(* Mutant for S13_CopyProvenanceInv: Under DUAL a restore on the holder reads the backup's copy, from another worker's host memory. *)
(* One definition is overridden in MutRestoreReadsBackup.cfg: ResumePages. *)
EXTENDS MCLumen

MutResumePages(r) == IF backup[r] # None /\ bckpt[r] # <<>> THEN bckpt[r] ELSE ckpt[r]

=============================================================================
