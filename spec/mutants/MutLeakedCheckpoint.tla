------------------------------ MODULE MutLeakedCheckpoint ------------------------------
(* Mutant for S8_NoCheckpointLeakInv: Freeing drops the holder mapping but not the pages in host memory. *)
(* One definition is overridden in MutLeakedCheckpoint.cfg: FreeCheckpoint. *)
EXTENDS MCLumen

MutFreeCheckpoint(r) == /\ holder' = [holder EXCEPT ![r] = None] /\ backup' = [backup EXCEPT ![r] = None]
                        /\ UNCHANGED <<ckpt, bckpt>>
                        /\ Release(r)

=============================================================================
