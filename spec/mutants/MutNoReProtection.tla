------------------------------ MODULE MutNoReProtection ------------------------------
(* Mutant for S14_ReProtectionProp: A request is placed once per run: one that lost its holder runs unprotected although a worker has room. *)
(* One definition is overridden in MutNoReProtection.cfg: NeedsProtection. *)
EXTENDS MCLumen

MutNeedsProtection(r) == FALSE

=============================================================================
