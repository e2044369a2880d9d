------------------------------ MODULE MutResendOutputService ------------------------------
(* Mutant for R1_RefinesService: A re-prefill resets the client's output and sends every token again (judged by the service refinement). *)
(* One definition is overridden in MutResendOutputService.cfg: RoutedOutput. *)
EXTENDS MCLumen

MutRoutedOutput(r) == IF UseHolder(r) THEN out[r] ELSE <<>>

=============================================================================
