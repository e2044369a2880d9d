------------------------ MODULE CheckpointPlacement ------------------------
(***************************************************************************)
(* Mechanism 1: load-aware checkpoint placement (Algorithm 1, Eq. 4, 5).   *)
(*                                                                         *)
(* When a request is assigned to its server, the gateway picks the worker  *)
(* that will hold its checkpoint (PlacementChoice, in Cluster): any worker *)
(* of minimal load L(w) among the UP workers other than the server that   *)
(* can still reserve the request's pages within M_budget.  The server then *)
(* streams each KV page it has written, asynchronously, to the holder's   *)
(* host memory; the checkpoint may lag the decode by any number of pages.  *)
(* When no worker fits, the request runs unprotected: it degrades to      *)
(* stop-and-restart and no other request is affected.  Algorithm 1 applies *)
(* to every unprotected request: as soon as a holder can be had (room     *)
(* freed, a worker back, or the request's holder lost), the request is    *)
(* placed again before it is served further (NeedsProtection).  The       *)
(* checkpoint is freed when the request completes (Complete, in Cluster)  *)
(* and when it is routed after a failure (FailureRouting).                *)
(*                                                                         *)
(* Budget accounting reserves a request's final size, Size(r), at          *)
(* placement, so a checkpoint that grows page by page can never overflow   *)
(* its holder (Eq. 5).  The load L(w) uses the pages actually saved, as    *)
(* the paper defines it.                                                   *)
(*                                                                         *)
(* The baselines place differently: FC on the fixed ring neighbour of the  *)
(* server (when it is UP and fits), SR nowhere.                            *)
(***************************************************************************)
EXTENDS Cluster

(***************************************************************************)
(* DUAL (the paper's suggested improvement): a second holder, the least   *)
(* loaded candidate other than the first, so that a holder failure does   *)
(* not lose the checkpoint.  It reserves Size(r) too; none when no other  *)
(* candidate has room.                                                    *)
(***************************************************************************)
\* BackupChoice is in Cluster, next to NeedsBackup (the rebackup reading).
SetBackup(r, h) ==
    IF BackupChoice(r, h) = {} THEN backup' = [backup EXCEPT ![r] = None]
    ELSE \E b \in BackupChoice(r, h) : backup' = [backup EXCEPT ![r] = b]

\* The reservation of r's new holder and backup (Eq. 5), on their counters: a role r already
\* had (its holder, when only a backup is chosen again) is reserved already.
Reserve(r) ==
    reserved' = [w \in Workers |-> reserved[w]
                                   + (IF holder'[r] = w /\ holder[r] # w THEN Size(r) ELSE 0)
                                   + (IF backup'[r] = w /\ backup[r] # w THEN Size(r) ELSE 0)]

(***************************************************************************)
(* A placement decision: for a new run (~placed), to re-protect an        *)
(* unprotected request, or (the rebackup reading) to give a DUAL request  *)
(* that has a holder a new backup.                                        *)
(***************************************************************************)
Place(r) ==
    /\ phase[r] \in {"QUEUED", "DECODE"}
    /\ ~placed[r] \/ NeedsProtection(r)
    /\ wstate[Server(r)] = "UP"
    /\ IF placed[r] /\ holder[r] # None
       THEN /\ holder' = holder
            /\ SetBackup(r, holder[r])
       ELSE IF PlacementChoice(r) = {}
       THEN /\ holder' = [holder EXCEPT ![r] = None]
            /\ backup' = [backup EXCEPT ![r] = None]
       ELSE \E h \in PlacementChoice(r) : /\ holder' = [holder EXCEPT ![r] = h]
                                          /\ SetBackup(r, h)
    /\ Reserve(r)
    /\ placed' = [placed EXCEPT ![r] = TRUE]
    /\ UNCHANGED <<wstate, active, phase, runq, kv, ckpt, bckpt, out, proposal, failures, stored, atarget, rload, seen, gray>>

\* The pages of r the server may stream: those it has written to its GPU.
StreamLimit(r) == Len(kv[r])

\* The last position of the page that position p falls in (pages of PageTokens positions).
PageEnd(p) == ((p - 1) \div PageTokens + 1) * PageTokens

\* The positions one StreamPage adds to a copy c of r: the rest of the page its next position falls
\* in, as far as the server has written it. A partial last page is streamed as far as it is written,
\* and the rest of it when it is written.
StreamCount(c, r) == IF PageEnd(Len(c) + 1) < StreamLimit(r) THEN PageEnd(Len(c) + 1) - Len(c)
                     ELSE StreamLimit(r) - Len(c)

\* Positions from..to of r's KV, copied from the server's GPU as they are into w's host memory.
CopiedPages(r, from, to, w) == [j \in 1..(to - from + 1) |->
                                   CopyTo(IF from + j - 1 <= Len(kv[r]) THEN kv[r][from + j - 1] ELSE Hole, w)]

\* Whether w's host memory takes n more positions: always under the reserve reading (placement
\* reserved the room), while it stays within M_budget under the stored reading.
RoomFor(w, n) == Readings.budget = "reserve" \/ stored[w] + n <= Budget
\* ... and one more position.
StreamRoom(w) == RoomFor(w, 1)

\* One page to the holder's host memory or, under DUAL, to the backup's; each copy lags on its own.
StreamPage(r) ==
    /\ phase[r] \in {"QUEUED", "DECODE"}
    /\ \/ /\ holder[r] # None
          /\ Len(ckpt[r]) < StreamLimit(r)
          /\ RoomFor(holder[r], StreamCount(ckpt[r], r))
          /\ ckpt' = [ckpt EXCEPT ![r] = @ \o CopiedPages(r, Len(@) + 1, Len(@) + StreamCount(@, r), holder[r])]
          /\ stored' = [stored EXCEPT ![holder[r]] = @ + StreamCount(ckpt[r], r)]
          /\ UNCHANGED bckpt
       \/ /\ backup[r] # None
          /\ Len(bckpt[r]) < StreamLimit(r)
          /\ RoomFor(backup[r], StreamCount(bckpt[r], r))
          /\ bckpt' = [bckpt EXCEPT ![r] = @ \o CopiedPages(r, Len(@) + 1, Len(@) + StreamCount(@, r), backup[r])]
          /\ stored' = [stored EXCEPT ![backup[r]] = @ + StreamCount(bckpt[r], r)]
          /\ UNCHANGED ckpt
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, out, proposal, failures, reserved, atarget, rload, seen, gray>>

-----------------------------------------------------------------------------
(* Properties *)

\* S4: a request's checkpoint never sits on the worker that serves it.
S4(r) == /\ (holder[r] = None \/ holder[r] # Server(r))
         /\ (backup[r] = None \/ (backup[r] # Server(r) /\ backup[r] # holder[r]))
S4_HolderIsNotServerInv == \A r \in Requests : S4(r)

\* S5: Eq. 5, sum_{r in C(w)} |KV_r| <= M_budget, for every worker.
S5(w) == StoredSum(w) <= Budget
S5_BudgetRespectedInv == \A w \in Workers : S5(w)

\* S6: a checkpoint holds r's own pages in order, never past what r's server has written.
S6(r) == /\ Intact(r, ckpt[r]) /\ Len(ckpt[r]) <= KvLen(r)
         /\ Intact(r, bckpt[r]) /\ Len(bckpt[r]) <= KvLen(r)
S6_CheckpointWithinPrefixInv == \A r \in Requests : S6(r)

\* S8: checkpoint pages exist only for a live request's current run, on a live holder: a
\* request that completed or was routed (its placement decision is pending again) holds none.
S8(r) == /\ ckpt[r] # <<>> => holder[r] # None
         /\ holder[r] # None => /\ phase[r] \in {"QUEUED", "DECODE", "INTERRUPTED"}
                                /\ wstate[holder[r]] = "UP"
         /\ bckpt[r] # <<>> => backup[r] # None
         /\ backup[r] # None => /\ phase[r] \in {"QUEUED", "DECODE", "INTERRUPTED"}
                                /\ wstate[backup[r]] = "UP"
         /\ ~placed[r] => holder[r] = None /\ backup[r] = None
S8_NoCheckpointLeakInv == \A r \in Requests : S8(r)

(***************************************************************************)
(* S13: copy provenance.  Every page of a checkpoint copy lives in the    *)
(* host memory of the worker named as that copy's holder (or backup), so  *)
(* a promoted backup carries its own pages, never the lost holder's; and  *)
(* every page a server restored into its GPU came from its own host       *)
(* memory.                                                                 *)
(***************************************************************************)
S13(r) == /\ \A i \in 1..Len(ckpt[r]) : ckpt[r][i][3] = holder[r]
          /\ \A i \in 1..Len(bckpt[r]) : bckpt[r][i][3] = backup[r]
          /\ \A i \in 1..Len(kv[r]) : Len(kv[r][i]) = 3 => kv[r][i][3] = Server(r)
S13_CopyProvenanceInv == \A r \in Requests : S13(r)

\* S15: each worker's counters equal the sums over the checkpoints it holds.
S15(w) == stored[w] = StoredSum(w) /\ reserved[w] = ReservedSum(w)
S15_AccountingInv == \A w \in Workers : S15(w)

(***************************************************************************)
(* A1: under LUMEN (and DUAL) every placement is an argmin of Eq. 4 over  *)
(* the eligible holders (Algorithm 1, line 1), and a request runs          *)
(* unprotected only when no eligible holder has room.  Eligibility and    *)
(* the load are restated here from the paper, independently of            *)
(* HolderCandidates and of the counters.  Under citedLoads = "stale" the  *)
(* load is the one the gateway's monitor holds (Eq4Seen).                 *)
(***************************************************************************)
Eligible(r) == {w \in Workers : /\ wstate[w] = "UP"
                                /\ r \notin runq[w]
                                /\ IF Readings.budget = "reserve" THEN ReservedSum(w) + Size(r) <= Budget
                                   ELSE StoredSum(w) < Budget}

\* A placement decision: the first of a run, or a re-protection of an unprotected request.
PlacementStep(r) == \/ ~placed[r] /\ placed'[r]
                    \/ placed[r] /\ holder[r] = None /\ holder'[r] # None

\* The rebackup reading: a DUAL request keeps its holder and gets a new backup.
RebackupStep(r) == placed[r] /\ holder[r] # None /\ holder'[r] = holder[r]
                   /\ backup[r] = None /\ backup'[r] # None

\* Under DUAL the backup is an argmin of the eligible holders but the first.
BackupIsArgMin(r) ==
    LET rest == Eligible(r) \ {holder'[r]} IN
    IF holder'[r] = None \/ rest = {}
    THEN backup'[r] = None
    ELSE /\ backup'[r] \in rest
         /\ \A w \in rest : Eq4Seen(backup'[r]) <= Eq4Seen(w)

A1_Step ==
    /\ LoadAwarePlacement =>
           \A r \in Requests : PlacementStep(r) =>
               /\ IF Eligible(r) = {}
                  THEN holder'[r] = None
                  ELSE /\ holder'[r] \in Eligible(r)
                       /\ \A w \in Eligible(r) : Eq4Seen(holder'[r]) <= Eq4Seen(w)
               /\ DualPlacement => BackupIsArgMin(r)
    /\ DualPlacement => \A r \in Requests : RebackupStep(r) => BackupIsArgMin(r)

A1_PlacementIsArgMinProp == [][A1_Step]_vars

(***************************************************************************)
(* A4: the baselines' placement, restated from DejaVu independently of     *)
(* RingHolder and PlacementChoice.  Under ring placement (Fixed-           *)
(* Checkpointing and the ablations that keep it) a placement's holder is   *)
(* the first UP worker after the server on the fixed ring, when it is      *)
(* eligible, else none; with the ringFallThrough reading, the first        *)
(* eligible worker on the ring.  Never a backup.  Under no placement       *)
(* (Stop-and-Restart) no request ever has a holder or a backup.            *)
(***************************************************************************)
RECURSIVE Hop(_, _)
\* The worker k places after w on the fixed ring.
Hop(w, k) == IF k = 0 THEN w ELSE Hop(Neighbour[w], k - 1)

\* The first worker of S after s on the ring, or None.
FirstOnRing(s, S) ==
    LET ks == {k \in 1..(Cardinality(Workers) - 1) : Hop(s, k) \in S}
    IN  IF ks = {} THEN None ELSE Hop(s, CHOOSE k \in ks : \A j \in ks : k <= j)

RingRule(r) ==
    IF Readings.ringFallThrough THEN FirstOnRing(Server(r), Eligible(r))
    ELSE LET n == FirstOnRing(Server(r), {w \in Workers : wstate[w] = "UP"})
         IN  IF n \in Eligible(r) THEN n ELSE None

A4_Step ==
    /\ PlacementRule = "RING" =>
           \A r \in Requests : PlacementStep(r) => holder'[r] = RingRule(r) /\ backup'[r] = None
    /\ PlacementRule = "NONE" =>
           \A r \in Requests : holder'[r] = None /\ backup'[r] = None

A4_PlacementFollowsBaselineProp == [][A4_Step]_vars

(***************************************************************************)
(* S14: re-protection.  No request is served (prefilled or decoded) while *)
(* it has no holder although the policy's rule, restated here, has one   *)
(* for it: any eligible worker under LUMEN and DUAL, the ring neighbour   *)
(* under FC (with ringFallThrough, any eligible worker on the ring), none *)
(* under SR.  With the rebackup reading, no DUAL request is served with a *)
(* holder and no backup although a second eligible worker exists.         *)
(***************************************************************************)
Protectable(r) ==
    CASE LoadAwarePlacement -> Eligible(r)
      [] PlacementRule = "RING" -> IF RingRule(r) = None THEN {} ELSE {RingRule(r)}
      [] PlacementRule = "NONE" -> {}

ServeStep(r) == \/ phase[r] = "QUEUED" /\ phase'[r] = "DECODE"
                \/ phase[r] = "DECODE" /\ Len(out'[r]) > Len(out[r])

BackupProtectable(r) ==
    IF Readings.rebackup /\ DualPlacement /\ holder[r] # None /\ backup[r] = None
    THEN Eligible(r) \ {holder[r]} ELSE {}

S14_Step == \A r \in Requests : ServeStep(r) => /\ holder[r] = None => Protectable(r) = {}
                                               /\ BackupProtectable(r) = {}

S14_ReProtectionProp == [][S14_Step]_vars

-----------------------------------------------------------------------------
(* The mechanism alone: serving and placement, no failures. *)

PlacementNext ==
    \E r \in Requests :
        \/ Arrive(r) \/ Place(r) \/ Prefill(r) \/ Decode(r)
        \/ StreamPage(r) \/ Complete(r)

PlacementSpec == Init /\ [][PlacementNext]_vars

=============================================================================
