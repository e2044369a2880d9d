------------------------------ MODULE MutPromoteHolderCopy ------------------------------
(* Mutant for S13_CopyProvenanceInv: Under DUAL a promoted backup carries the failed holder's page list instead of its own copy. *)
(* One definition is overridden in MutPromoteHolderCopy.cfg: PromotedCopy. *)
EXTENDS MCLumen

MutPromotedCopy(r) == ckpt[r]

=============================================================================
