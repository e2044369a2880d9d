------------------------------ MODULE MutAssistRetargets ------------------------------
(* Mutant for A3_AssistTargetsMostLoadedProp: under the session reading (the default) the   *)
(* recovering worker re-targets at every proposal, to the most loaded UP worker of the      *)
(* moment, instead of assisting the target it chose for its session.                          *)
(* One definition is overridden in MutAssistRetargets.cfg: AssistTargetsOf. *)
EXTENDS MCLumen

MutAssistTargetsOf(w) == AssistTargets

=============================================================================
