------------------------------ MODULE MutDraftKvUnwritten ------------------------------
(* Mutant for S7_OutputIsReferencePrefixInv: A verified draft's accepted tokens are delivered but their KV is never written: the pass writes one position whatever it keeps. *)
(* One definition is overridden in MutDraftKvUnwritten.cfg: DecodeKv. *)
EXTENDS MCLumen

MutDecodeKv(r, new) == Written(r, Len(kv[r]) + 1, Len(kv[r]) + 1)

=============================================================================
