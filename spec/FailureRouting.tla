--------------------------- MODULE FailureRouting ---------------------------
(***************************************************************************)
(* Mechanism 2: locality-aware failure routing (Algorithm 2, Eq. 6).       *)
(*                                                                         *)
(* When worker w_f fails it loses its GPU state (the KV of every request   *)
(* it served) and its host memory (every checkpoint it held).  Each       *)
(* interrupted request r is then routed on its own:                        *)
(*                                                                         *)
(*   Route(r) = h_r                      if L(h_r) <= theta                *)
(*            = h_r                      if |C_r| > tau                    *)
(*            = argmin_{w survives} L(w) otherwise                         *)
(*                                                                         *)
(* Mode RESTORE: h_r loads C_r from its host memory into its GPU and      *)
(* resumes from that saved prefix; the pages C_r lags behind are          *)
(* recomputed from the known tokens (Prefill, in Cluster), never assumed. *)
(* Mode REPREFILL: the least loaded survivor recomputes everything, and   *)
(* C_r is freed.  A request with no checkpoint (unprotected, or its       *)
(* holder failed too) always re-prefills.  After either mode the request  *)
(* is placed again, so it stays protected.                                 *)
(*                                                                         *)
(* Beyond the paper, which assumes one failure: any worker may fail while  *)
(* another stays UP (up to |W|-1 at once), holders fail too, workers fail  *)
(* during recovery and during handover, and the same worker fails again.  *)
(* The "survivors" of Eq. 6 are therefore the workers UP now, not merely   *)
(* W \ {w_f}.  Under DUAL a failed holder's role passes to the request's   *)
(* live backup, with the backup's own copy, so the checkpoint survives.    *)
(* A running request whose holder failed with no backup is re-protected   *)
(* by Algorithm 1 as soon as a holder can be had (NeedsProtection).        *)
(***************************************************************************)
EXTENDS CheckpointPlacement

\* The requests a failure of w interrupts: all those in its run queue.
Interrupted(w) == runq[w]

\* What is left of w's run queue once w has failed: nothing.
PurgedQueue(w) == {}

\* The copy a promoted backup carries as the new holder's checkpoint: its own.
PromotedCopy(r) == bckpt[r]

\* The drafts a failure of w drops: those of the requests it interrupts (their server is gone, and
\* a draft is verified only on the survivor it was made for) and those w itself proposed.
DraftsDropped(w) == {r \in Requests : r \in Interrupted(w) \/ (proposal[r] # None /\ proposal[r].src = w)}

(***************************************************************************)
(* The fence (GrayFailure): the failure is the gateway's detection, and    *)
(* in the same step it raises w's epoch, which the gateway and every       *)
(* holder then require of w's writes, before any of w's requests is        *)
(* routed again.  Under gray failures the old incarnation may live on, a   *)
(* zombie with its own view of the requests it served: their outputs,     *)
(* their KV and their holders, and the epoch it still writes under.        *)
(* Without gray failures nothing moves.                                    *)
(***************************************************************************)
ZombieOf(w) == [epoch |-> gray.epoch[w],
                out |-> [r \in Interrupted(w) |-> out[r]],
                kv |-> [r \in Interrupted(w) |-> kv[r]],
                holder |-> [r \in Interrupted(w) |-> holder[r]],
                next |-> [r \in Interrupted(w) |-> Len(ckpt[r]) + 1],
                \* the copies it held as a holder, which its host memory still has
                held |-> [r \in {q \in Requests : holder[q] = w /\ ckpt[q] # <<>>} |-> ckpt[r]]]

\* The epoch Fail raises: the next one.
FailEpoch(w) == gray.epoch[w] + 1

\* The incarnation the failure fences may live on (ZombieOf(w)) or not (None); a zombie left by an
\* earlier failure of w lives on, or has stopped by now (a trace that names a worker's zombie by
\* the worker then means the incarnation the latest Fail fenced).
Fenced(w) ==
    IF ~GrayFailures THEN UNCHANGED gray
    ELSE \E z \in {None, ZombieOf(w)} \cup (IF gray.zombie[w] = None THEN {} ELSE {gray.zombie[w]}) :
            gray' = [gray EXCEPT !.epoch[w] = FailEpoch(w), !.zombie[w] = z]

Fail(w) ==
    /\ wstate[w] # "FAILED"
    /\ \E u \in Workers \ {w} : wstate[u] = "UP"
    /\ LET lost == Interrupted(w)
           orphans == {r \in Requests : holder[r] = w}
           \* DUAL: a live backup takes over the lost holder's role, with its own copy
           promoted == {r \in orphans : backup[r] # None}
           backups == {r \in Requests : backup[r] = w}
       IN  /\ wstate' = [wstate EXCEPT ![w] = "FAILED"]
           /\ active' = [active EXCEPT ![w] = "NONE"]
           /\ runq' = [runq EXCEPT ![w] = PurgedQueue(w)]
           /\ phase' = [r \in Requests |-> IF r \in lost THEN "INTERRUPTED" ELSE phase[r]]
           /\ kv' = [r \in Requests |-> IF r \in lost THEN <<>> ELSE kv[r]]
           /\ holder' = [r \in Requests |-> IF r \in promoted THEN backup[r]
                                             ELSE IF r \in orphans THEN None ELSE holder[r]]
           /\ ckpt' = [r \in Requests |-> IF r \in promoted THEN PromotedCopy(r)
                                           ELSE IF r \in orphans THEN <<>> ELSE ckpt[r]]
           /\ backup' = [r \in Requests |-> IF r \in promoted \cup backups THEN None ELSE backup[r]]
           /\ bckpt' = [r \in Requests |-> IF r \in promoted \cup backups THEN <<>> ELSE bckpt[r]]
           /\ proposal' = [r \in Requests |-> IF r \in DraftsDropped(w) THEN None ELSE proposal[r]]
    \* w's host memory is gone, and with it everything its counters counted
    /\ stored' = [stored EXCEPT ![w] = 0]
    /\ reserved' = [reserved EXCEPT ![w] = 0]
    /\ failures' = failures + 1
    \* w's assist session, if it had one, ends with it
    /\ atarget' = [atarget EXCEPT ![w] = None]
    \* Algorithm 2 starts from the loads at the failure (a survivor's load is the same after it)
    /\ rload' = RouteLoadsAfterFail(Interrupted(w) \cup {r \in Requests : phase[r] = "INTERRUPTED"})
    \* the monitor forgets a failed worker's report (Algorithm 3 line 8: L(w) <- 0)
    /\ seen' = [seen EXCEPT ![w] = 0]
    /\ Fenced(w)
    /\ UNCHANGED <<out, placed>>

\* The workers an interrupted request may be sent to.
RouteTargets == Serving

\* Eq. 6's first two cases, per policy, on the loads Algorithm 2 routes by.
UseHolder(r) ==
    /\ holder[r] # None
    /\ holder[r] \in RouteTargets
    /\ CASE RoutingRule = "EQ6"           -> RouteLoad(holder[r]) <= Theta \/ Len(ckpt[r]) > Tau
         [] RoutingRule = "HOLDER_ALWAYS" -> TRUE
         [] RoutingRule = "NEVER"         -> FALSE

\* The KV a restoring holder resumes with: exactly the saved prefix C_r, read from its own
\* host memory (the pages keep that memory's tag).
ResumePages(r) == ckpt[r]


RouteRestore(r) ==
    LET h == holder[r] IN
    /\ runq' = [runq EXCEPT ![h] = @ \cup {r}]
    /\ rload' = RouteLoadsAfterRoute(r, h)
    /\ kv' = [kv EXCEPT ![r] = ResumePages(r)]
    /\ FreeCheckpoint(r)   \* the pages now live in h's GPU

RouteReprefill(r) ==
    /\ \E t \in ArgMinRouteLoad(RouteTargets) : runq' = [runq EXCEPT ![t] = @ \cup {r}] /\ rload' = RouteLoadsAfterRoute(r, t)
    /\ kv' = [kv EXCEPT ![r] = <<>>]
    /\ FreeCheckpoint(r)

\* What r's client has after the route: what it had.  Either mode resumes the output where it
\* stands; a re-prefill recomputes the KV of the tokens already delivered, it does not send them again.
RoutedOutput(r) == out[r]

Route(r) ==
    /\ phase[r] = "INTERRUPTED"
    /\ RouteTargets # {}
    /\ IF UseHolder(r) THEN RouteRestore(r) ELSE RouteReprefill(r)
    /\ phase' = [phase EXCEPT ![r] = "QUEUED"]
    /\ placed' = [placed EXCEPT ![r] = FALSE]
    /\ out' = [out EXCEPT ![r] = RoutedOutput(r)]
    /\ UNCHANGED <<wstate, active, proposal, failures, atarget, seen, gray>>

-----------------------------------------------------------------------------
(* Properties *)

\* S3: no request is queued on or served by a failed worker.
S3(w) == wstate[w] = "FAILED" => runq[w] = {}
S3_NeverServedByDeadWorkerInv == \A w \in Workers : S3(w)

\* S9: the KV a server holds for r is r's own, in order, and never past what r's context has
\* written: a restore resumes at the saved prefix |C_r| and nothing past it is assumed.
S9(r) == Intact(r, kv[r]) /\ Len(kv[r]) <= KvLen(r)
S9_RestoreResumesAtSavedPrefixInv == \A r \in Requests : S9(r)

RoutingStep(r) == phase[r] = "INTERRUPTED" /\ phase'[r] # "INTERRUPTED"

(***************************************************************************)
(* The routing rule of each mechanism, restated here from the paper and    *)
(* from DejaVu, independently of UseHolder, so that a wrong decision not   *)
(* to restore is judged as much as a wrong restore:                        *)
(*  - EQ6 (Eq. 6): restore on the live holder h exactly when               *)
(*    L(h) <= theta or |C_r| > tau;                                        *)
(*  - HOLDER_ALWAYS (Fixed-Checkpointing): restore on the live holder,     *)
(*    whatever its load and whatever it saved;                             *)
(*  - NEVER (Stop-and-Restart): never restore.                             *)
(* Whoever does not restore re-prefills on a least loaded UP worker, from  *)
(* no KV, and the checkpoint is freed.                                     *)
(***************************************************************************)
\* The loads a route is judged by: Eq. 4 from its sums (the monitor's reports under citedLoads =
\* "stale"), or Algorithm 2's running loads.
A2Load(w) == IF RouteIncrement THEN rload[w] ELSE Eq4Seen(w)

Eq6Restore(r) ==
    /\ holder[r] # None
    /\ wstate[holder[r]] = "UP"
    /\ A2Load(holder[r]) <= Theta \/ Len(ckpt[r]) > Tau

RuleRestores(r) ==
    CASE RoutingRule = "EQ6"           -> Eq6Restore(r)
      [] RoutingRule = "HOLDER_ALWAYS" -> holder[r] # None /\ wstate[holder[r]] = "UP"
      [] RoutingRule = "NEVER"         -> FALSE

\* A routing step of r follows the rule: the restore it calls for, or a re-prefill on an argmin.
RoutedPerRule(r) ==
    IF RuleRestores(r)
    THEN r \in runq'[holder[r]] /\ Content(kv'[r]) = Content(ckpt[r])
    ELSE /\ \E t \in Workers : /\ r \in runq'[t]
                              /\ wstate[t] = "UP"
                              /\ \A v \in Workers : wstate[v] = "UP" => A2Load(t) <= A2Load(v)
         /\ kv'[r] = <<>>
         /\ ckpt'[r] = <<>>

(***************************************************************************)
(* S12: under every policy, a request the policy's rule restores on its   *)
(* holder resumes there with exactly the checkpoint C_r that holder saved: *)
(* every saved position, nothing more, nothing less.  The trigger is the   *)
(* rule (RuleRestores), not the decision taken, so a request that should   *)
(* have been restored and was re-prefilled breaks it too.  (S9 bounds what *)
(* any KV may hold; this says what a restore must bring back.)             *)
(***************************************************************************)
\* What a restore of r must bring back: r on its live holder with exactly the holder's checkpoint.
RestoredExactly(r) == /\ holder[r] # None /\ wstate[holder[r]] = "UP"
                      /\ r \in runq'[holder[r]]
                      /\ Content(kv'[r]) = Content(ckpt[r])

S12_Step == \A r \in Requests : (RoutingStep(r) /\ RuleRestores(r)) => RestoredExactly(r)

S12_RestoreResumesAtCheckpointProp == [][S12_Step]_vars

\* A2: under Eq. 6 routing (LUMEN, DUAL and the ablations that keep it) every routing step follows Eq. 6.
A2_Step == Eq6Routing => \A r \in Requests : RoutingStep(r) => RoutedPerRule(r)

A2_RoutingFollowsRuleProp == [][A2_Step]_vars

\* A5: under the baselines' routing (Fixed-Checkpointing's, Stop-and-Restart's, and the ablations
\* that keep them) every routing step follows the baseline's own rule.
A5_Step == ~Eq6Routing => \A r \in Requests : RoutingStep(r) => RoutedPerRule(r)

A5_RoutingFollowsBaselineProp == [][A5_Step]_vars

-----------------------------------------------------------------------------
(* The mechanism alone.  A failed worker comes back through RecoverEnv, an *)
(* environment step that stands in for the reload of DraftHandover.        *)

RecoverEnv(w) ==
    /\ wstate[w] = "FAILED"
    /\ wstate' = [wstate EXCEPT ![w] = "UP"]
    /\ active' = [active EXCEPT ![w] = "FULL"]
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen, gray>>

RoutingNext ==
    \/ PlacementNext
    \/ \E r \in Requests : Route(r)
    \/ \E w \in Workers : Fail(w) \/ RecoverEnv(w)

RoutingSpec == Init /\ [][RoutingNext]_vars

=============================================================================
