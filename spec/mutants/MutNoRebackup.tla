------------------------------ MODULE MutNoRebackup ------------------------------
(* Mutant for S14_ReProtectionProp: Under the rebackup reading a request whose backup was promoted or lost never gets a new one. *)
(* One definition is overridden in MutNoRebackup.cfg: NeedsBackup. *)
EXTENDS MCLumen

MutNeedsBackup(r) == FALSE

=============================================================================
