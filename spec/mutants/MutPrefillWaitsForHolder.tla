------------------------------ MODULE MutPrefillWaitsForHolder ------------------------------
(* Mutant for L1_EveryRequestCompletes: A request waits for a checkpoint holder before it starts, instead of running unprotected. *)
(* One definition is overridden in MutPrefillWaitsForHolder.cfg: ReadyToPrefill. *)
EXTENDS MCLumen

MutReadyToPrefill(r) == holder[r] # None

=============================================================================
