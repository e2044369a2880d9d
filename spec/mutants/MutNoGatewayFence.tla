------------------------------ MODULE MutNoGatewayFence ------------------------------
(* Mutant for S18_NoFencedTokenDeliveredInv: the gateway takes a worker's tokens whatever their epoch. *)
(* One definition is overridden in MutNoGatewayFence.cfg: GatewayTakes. *)
EXTENDS MCLumen

MutGatewayTakes(w, e) == TRUE

=============================================================================
