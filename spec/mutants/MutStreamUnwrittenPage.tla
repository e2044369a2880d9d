------------------------------ MODULE MutStreamUnwrittenPage ------------------------------
(* Mutant for S6_CheckpointWithinPrefixInv: Streaming walks the request's allocated pages, written or not. *)
(* One definition is overridden in MutStreamUnwrittenPage.cfg: StreamLimit. *)
EXTENDS MCLumen

MutStreamLimit(r) == Size(r)

=============================================================================
