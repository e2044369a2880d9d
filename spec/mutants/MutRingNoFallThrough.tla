------------------------------ MODULE MutRingNoFallThrough ------------------------------
(* Mutant for S14_ReProtectionProp: Under the ringFallThrough reading a ring neighbour without room still leaves the request unprotected. *)
(* One definition is overridden in MutRingNoFallThrough.cfg: RingHolder. *)
EXTENDS MCLumen

MutRingHolder(r) == LET h == RingNext(Server(r), Cardinality(Workers) - 1)
                     IN  IF h # None /\ h \in HolderCandidates(r) THEN h ELSE None

=============================================================================
