------------------------------ MODULE MutAssistLeastLoaded ------------------------------
(* Mutant for A3_AssistTargetsMostLoadedProp: Assist goes to the least loaded survivor. *)
(* One definition is overridden in MutAssistLeastLoaded.cfg: AssistTargets. *)
EXTENDS MCLumen

MutAssistTargets == ArgMinLoad(Serving)

=============================================================================
