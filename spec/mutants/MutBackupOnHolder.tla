------------------------------ MODULE MutBackupOnHolder ------------------------------
(* Mutant for S4_HolderIsNotServerInv under DUAL: the backup is chosen among all candidates, so it may be the first holder itself. *)
(* One definition is overridden in MutBackupOnHolder.cfg: BackupChoice. *)
EXTENDS MCLumen

MutBackupChoice(r, h) == IF Policy = "DUAL" /\ h # None THEN ArgMinLoad(HolderCandidates(r)) ELSE {}

=============================================================================
