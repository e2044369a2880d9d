------------------------------ MODULE MutRestoreNoRecompute ------------------------------
(* Mutant for S7_OutputIsReferencePrefixInv: A restore from a lagging checkpoint resumes with the saved pages alone and never recomputes the positions past them. *)
(* One definition is overridden in MutRestoreNoRecompute.cfg: Recomputed. *)
EXTENDS MCLumen

MutRecomputed(r, newOut) == IF kv[r] # <<>> THEN <<>> ELSE Written(r, 1, PromptLen[r] + Len(newOut) - 1)

=============================================================================
