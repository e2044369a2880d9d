------------------------------ MODULE MutUnverifiedDraft ------------------------------
(* Mutant for S7_OutputIsReferencePrefixInv: The survivor appends the draft without verifying it. *)
(* One definition is overridden in MutUnverifiedDraft.cfg: Verified. *)
EXTENDS MCLumen

MutVerified(r, d) == d

=============================================================================
