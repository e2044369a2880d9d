------------------------------ MODULE MutNoHolderFence ------------------------------
(* Mutant for S19_NoFencedPageInv: holders take a worker's pages whatever their epoch; the gateway *)
(* still fences tokens. One definition is overridden in MutNoHolderFence.cfg: HolderTakes. *)
EXTENDS MCLumen

MutHolderTakes(h, w, e) == TRUE

=============================================================================
