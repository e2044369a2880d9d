------------------------------ MODULE MutResendOutput ------------------------------
(* Mutant for S16_DeliveredOnceProp: A re-prefill resets the client's output and sends every token again. *)
(* One definition is overridden in MutResendOutput.cfg: RoutedOutput. *)
EXTENDS MCLumen

MutRoutedOutput(r) == IF UseHolder(r) THEN out[r] ELSE <<>>

=============================================================================
