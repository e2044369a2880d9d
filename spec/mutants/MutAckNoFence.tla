------------------------------ MODULE MutAckNoFence ------------------------------
(* Mutant for S19_NoFencedPageInv: the epoch is checked on tokens and on pages but not on       *)
(* acknowledgements: a holder failed while it lived acknowledges, once it is UP again, the copy *)
(* its fenced incarnation stored, and the gateway takes it back as the request's checkpoint.    *)
(* One definition is overridden in MutAckNoFence.cfg: AckTakes.                                 *)
EXTENDS MCLumen

MutAckTakes(w, e) == TRUE

=============================================================================
