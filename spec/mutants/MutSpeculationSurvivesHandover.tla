------------------------------ MODULE MutSpeculationSurvivesHandover ------------------------------
(* Mutant for S11_ExactlyOneActiveModelInv: The handover switches models but keeps in-flight drafts of the freed draft model. *)
(* One definition is overridden in MutSpeculationSurvivesHandover.cfg: DropSpeculation. *)
EXTENDS MCLumen

MutDropSpeculation(w) == proposal

=============================================================================
