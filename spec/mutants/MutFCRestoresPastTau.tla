------------------------------ MODULE MutFCRestoresPastTau ------------------------------
(* Mutant for S12_RestoreResumesAtCheckpointProp: Fixed-Checkpointing re-prefills although its holder is UP with a checkpoint: it restores only when the saved prefix is longer than tau. *)
(* One definition is overridden in MutFCRestoresPastTau.cfg: UseHolder. *)
EXTENDS MCLumen

MutUseHolder(r) ==
    /\ holder[r] # None /\ holder[r] \in RouteTargets
    /\ CASE RoutingRule = "EQ6"           -> RouteLoad(holder[r]) <= Theta \/ Len(ckpt[r]) > Tau
         [] RoutingRule = "HOLDER_ALWAYS" -> Len(ckpt[r]) = 0 \/ Len(ckpt[r]) > Tau
         [] RoutingRule = "NEVER"         -> FALSE

=============================================================================
