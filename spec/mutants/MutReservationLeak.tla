------------------------------ MODULE MutReservationLeak ------------------------------
(* Mutant for S15_AccountingInv: Freeing a checkpoint returns its pages but forgets the reservation counter. *)
(* One definition is overridden in MutReservationLeak.cfg: Release. *)
EXTENDS MCLumen

MutRelease(r) == /\ reserved' = reserved
                 /\ stored' = [w \in Workers |-> stored[w] - (IF holder[r] = w THEN Len(ckpt[r]) ELSE 0)
                                                            - (IF backup[r] = w THEN Len(bckpt[r]) ELSE 0)]

=============================================================================
