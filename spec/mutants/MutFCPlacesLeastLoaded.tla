------------------------------ MODULE MutFCPlacesLeastLoaded ------------------------------
(* Mutant for A4_PlacementFollowsBaselineProp: Fixed-Checkpointing places a checkpoint on the least loaded worker instead of its ring neighbour. *)
(* One definition is overridden in MutFCPlacesLeastLoaded.cfg: PlacementChoice. *)
EXTENDS MCLumen

MutPlacementChoice(r) ==
    CASE LoadAwarePlacement \/ PlacementRule = "RING" -> ArgMinLoad(HolderCandidates(r))
      [] PlacementRule = "NONE" -> {}

=============================================================================
