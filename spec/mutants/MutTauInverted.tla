------------------------------ MODULE MutTauInverted ------------------------------
(* Mutant for A2_RoutingFollowsRuleProp: Eq. 6's prefix test is inverted: short prefixes go to the loaded holder. *)
(* One definition is overridden in MutTauInverted.cfg: UseHolder. *)
EXTENDS MCLumen

MutUseHolder(r) == /\ holder[r] # None /\ holder[r] \in RouteTargets
                     /\ (Load(holder[r]) <= Theta \/ Len(ckpt[r]) <= Tau)

=============================================================================
