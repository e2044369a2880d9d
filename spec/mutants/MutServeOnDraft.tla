------------------------------ MODULE MutServeOnDraft ------------------------------
(* Mutant for S10_NoServingBeforeFullModelInv: The gateway counts a worker with only its draft loaded as serving. *)
(* One definition is overridden in MutServeOnDraft.cfg: Serving. *)
EXTENDS MCLumen

MutServing == {w \in Workers : wstate[w] \in {"UP", "ASSISTING"}}

=============================================================================
