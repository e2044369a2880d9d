------------------------------ MODULE MutStaleRunQueue ------------------------------
(* Mutant for S2_NoDuplicateServingInv: The gateway keeps a failed worker's queue, so a rerouted request stays listed there too. *)
(* One definition is overridden in MutStaleRunQueue.cfg: PurgedQueue. *)
EXTENDS MCLumen

MutPurgedQueue(w) == runq[w]

=============================================================================
