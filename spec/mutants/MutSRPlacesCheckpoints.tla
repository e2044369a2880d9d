------------------------------ MODULE MutSRPlacesCheckpoints ------------------------------
(* Mutant for A4_PlacementFollowsBaselineProp: Stop-and-Restart places checkpoints (on the least loaded worker) although it never restores from them. *)
(* One definition is overridden in MutSRPlacesCheckpoints.cfg: PlacementChoice. *)
EXTENDS MCLumen

MutPlacementChoice(r) ==
    CASE LoadAwarePlacement \/ PlacementRule = "NONE" -> ArgMinLoad(HolderCandidates(r))
      [] PlacementRule = "RING" -> IF RingHolder(r) = None THEN {} ELSE {RingHolder(r)}

=============================================================================
