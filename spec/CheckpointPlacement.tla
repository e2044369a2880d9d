------------------------ MODULE CheckpointPlacement ------------------------
(***************************************************************************)
(* Mechanism 1: load-aware checkpoint placement (Algorithm 1, Eq. 4, 5).   *)
(*                                                                         *)
(* When a request is assigned to its server, the gateway picks the worker  *)
(* that will hold its checkpoint: any worker of minimal load L(w) among    *)
(* the UP workers other than the server that can still reserve the        *)
(* request's pages within M_budget.  The server then streams each KV page *)
(* it has computed, asynchronously, to the holder's host memory; the      *)
(* checkpoint may lag the decode by any number of pages.  When no worker   *)
(* fits, the request runs unprotected: it degrades to stop-and-restart and *)
(* no other request is affected.  The checkpoint is freed when the request *)
(* completes (Complete, in Cluster) and when it is re-prefilled           *)
(* (FailureRouting).                                                       *)
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

Reserved(w) == SumOf({r \in Requests : holder[r] = w}, [r \in Requests |-> Size(r)])
               + IF Policy = "DUAL"
                 THEN SumOf({r \in Requests : backup[r] = w}, [r \in Requests |-> Size(r)])
                 ELSE 0

\* The workers that may hold r's checkpoint: UP, not r's server, with room.
HolderCandidates(r) ==
    {w \in Serving : w # Server(r) /\ Reserved(w) + Size(r) <= Budget}

\* FC: the first UP worker after the server on the fixed ring.
RECURSIVE RingNext(_, _)
RingNext(w, n) == IF n = 0 THEN None
                  ELSE IF wstate[Neighbour[w]] = "UP" THEN Neighbour[w]
                  ELSE RingNext(Neighbour[w], n - 1)

\* The holders the policy allows for r; empty means "run unprotected".
PlacementChoice(r) ==
    CASE Policy \in LoadAware -> ArgMinLoad(HolderCandidates(r))
      [] Policy = "FC"    -> LET h == RingNext(Server(r), Cardinality(Workers) - 1)
                             IN  IF h # None /\ h \in HolderCandidates(r) THEN {h} ELSE {}
      [] Policy = "SR"    -> {}

(***************************************************************************)
(* DUAL (the paper's suggested improvement): a second holder, the least   *)
(* loaded candidate other than the first, so that a holder failure does   *)
(* not lose the checkpoint.  It reserves Size(r) too; none when no other  *)
(* candidate has room.                                                    *)
(***************************************************************************)
BackupChoice(r, h) ==
    IF Policy = "DUAL" /\ h # None THEN ArgMinLoad(HolderCandidates(r) \ {h}) ELSE {}

SetBackup(r, h) ==
    IF BackupChoice(r, h) = {} THEN backup' = [backup EXCEPT ![r] = None]
    ELSE \E b \in BackupChoice(r, h) : backup' = [backup EXCEPT ![r] = b]

Place(r) ==
    /\ ~placed[r]
    /\ phase[r] \in {"QUEUED", "DECODE"}
    /\ wstate[Server(r)] = "UP"
    /\ IF PlacementChoice(r) = {}
       THEN /\ holder' = [holder EXCEPT ![r] = None]
            /\ backup' = [backup EXCEPT ![r] = None]
       ELSE \E h \in PlacementChoice(r) : /\ holder' = [holder EXCEPT ![r] = h]
                                          /\ SetBackup(r, h)
    /\ placed' = [placed EXCEPT ![r] = TRUE]
    /\ UNCHANGED <<wstate, active, phase, runq, kv, ckpt, bckpt, out, proposal, failures>>

\* The pages of r the server may stream: those it has written to its GPU.
StreamLimit(r) == Len(kv[r])

\* The next page the holder lacks, copied from the server's GPU as it is.
PageToStream(r) == IF Len(ckpt[r]) < Len(kv[r]) THEN kv[r][Len(ckpt[r]) + 1] ELSE Hole

\* The same for the backup holder's copy (DUAL).
BackupPageToStream(r) == IF Len(bckpt[r]) < Len(kv[r]) THEN kv[r][Len(bckpt[r]) + 1] ELSE Hole

\* One page to the holder or, under DUAL, to the backup; each copy lags on its own.
StreamPage(r) ==
    /\ phase[r] \in {"QUEUED", "DECODE"}
    /\ \/ /\ holder[r] # None
          /\ Len(ckpt[r]) < StreamLimit(r)
          /\ ckpt' = [ckpt EXCEPT ![r] = Append(@, PageToStream(r))]
          /\ UNCHANGED bckpt
       \/ /\ backup[r] # None
          /\ Len(bckpt[r]) < StreamLimit(r)
          /\ bckpt' = [bckpt EXCEPT ![r] = Append(@, BackupPageToStream(r))]
          /\ UNCHANGED ckpt
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, out, proposal, failures>>

-----------------------------------------------------------------------------
(* Properties *)

\* S4: a request's checkpoint never sits on the worker that serves it.
S4_HolderIsNotServerInv ==
    \A r \in Requests : /\ (holder[r] = None \/ holder[r] # Server(r))
                       /\ (backup[r] = None \/ (backup[r] # Server(r) /\ backup[r] # holder[r]))

\* S5: Eq. 5, sum_{r in C(w)} |KV_r| <= M_budget, for every worker.
S5_BudgetRespectedInv ==
    \A w \in Workers : Stored(w) <= Budget

\* S6: a checkpoint holds intact pages, never more than r has computed.
S6_CheckpointWithinPrefixInv ==
    \A r \in Requests : /\ Intact(ckpt[r]) /\ Len(ckpt[r]) <= Ctx(r)
                       /\ Intact(bckpt[r]) /\ Len(bckpt[r]) <= Ctx(r)

\* S8: checkpoint pages exist only for a live request, on a live holder.
S8_NoCheckpointLeakInv ==
    \A r \in Requests :
        /\ ckpt[r] # <<>> => holder[r] # None
        /\ holder[r] # None => /\ phase[r] \in {"QUEUED", "DECODE", "INTERRUPTED"}
                               /\ wstate[holder[r]] = "UP"
        /\ bckpt[r] # <<>> => backup[r] # None
        /\ backup[r] # None => /\ phase[r] \in {"QUEUED", "DECODE", "INTERRUPTED"}
                               /\ wstate[backup[r]] = "UP"

(***************************************************************************)
(* A1: under LUMEN (and DUAL) every placement is an argmin of Eq. 4 over  *)
(* the eligible holders (Algorithm 1, line 1), and a request runs          *)
(* unprotected only when no eligible holder has room.  Eligibility is     *)
(* restated here from the paper, independently of HolderCandidates.       *)
(***************************************************************************)
Eligible(r) == {w \in Workers : /\ wstate[w] = "UP"
                                /\ r \notin runq[w]
                                /\ Reserved(w) + Size(r) <= Budget}

PlacementStep(r) == ~placed[r] /\ placed'[r]

\* Under DUAL the backup is an argmin of the eligible holders but the first.
BackupIsArgMin(r) ==
    LET rest == Eligible(r) \ {holder'[r]} IN
    IF holder'[r] = None \/ rest = {}
    THEN backup'[r] = None
    ELSE /\ backup'[r] \in rest
         /\ \A w \in rest : Load(backup'[r]) <= Load(w)

A1_PlacementIsArgMinProp ==
    [][(Policy \in LoadAware) =>
        \A r \in Requests : PlacementStep(r) =>
            /\ IF Eligible(r) = {}
               THEN holder'[r] = None
               ELSE /\ holder'[r] \in Eligible(r)
                    /\ \A w \in Eligible(r) : Load(holder'[r]) <= Load(w)
            /\ Policy = "DUAL" => BackupIsArgMin(r)]_vars

-----------------------------------------------------------------------------
(* The mechanism alone: serving and placement, no failures. *)

PlacementNext ==
    \E r \in Requests :
        \/ Arrive(r) \/ Place(r) \/ Prefill(r) \/ Decode(r)
        \/ StreamPage(r) \/ Complete(r)

PlacementSpec == Init /\ [][PlacementNext]_vars

=============================================================================
