------------------------------ MODULE MutNeverAssists ------------------------------
(* Mutant for L4_DraftAssists: A recovering worker loads its draft model and never proposes a draft. *)
(* One definition is overridden in MutNeverAssists.cfg: AssistGuard. *)
EXTENDS MCLumen

MutAssistGuard(w, r) == FALSE

=============================================================================
