--------------------------- MODULE DraftHandover ---------------------------
(***************************************************************************)
(* Mechanism 3: speculative-assisted progressive recovery with the atomic  *)
(* draft-to-full handover (Algorithm 3).                                   *)
(*                                                                         *)
(* A restarted LUMEN worker first loads a small draft model               *)
(* (LOADING_DRAFT), then, while its full model loads in the background,   *)
(* proposes up to K draft tokens for requests on the most loaded survivor  *)
(* (ASSISTING).  The survivor verifies a proposal in its next decode pass  *)
(* (Verified, in Cluster): it keeps the longest agreeing prefix, adds one  *)
(* token of its own, so a wrong or stale draft costs one verification and  *)
(* nothing else.  When the full model is ready the worker switches models  *)
(* in one atomic step (FullReady): the full model becomes the active one, *)
(* in-flight speculation is dropped, the draft is freed, and the worker    *)
(* rejoins UP with L = 0 (it holds no checkpoint and serves nothing).     *)
(*                                                                         *)
(* The baselines have no draft: the restarted worker loads its full model  *)
(* (LOADING_FULL) and rejoins idle.                                        *)
(*                                                                         *)
(* A draft is modelled by what matters to verification: how many of its    *)
(* tokens agree with the target before the first that does not.  Every     *)
(* count from 0 to K is possible at every step, so drafts that are cold,   *)
(* stale or simply wrong are all covered.                                   *)
(*                                                                         *)
(* The assist target (the assistTarget reading).  Algorithm 3 picks the    *)
(* most loaded survivor w_s once (line 4) and then assists it until the    *)
(* full model is loaded.  Under "session" (the default) the target is     *)
(* chosen once per assist session: at DraftReady, or, when the gateway    *)
(* decides later, at the first proposal; in both cases a most loaded UP   *)
(* worker at that moment.  It is kept while it is UP, even once another   *)
(* worker has become more loaded, and chosen again only when it is no     *)
(* longer UP.  Under "proposal" every proposal goes to a most loaded UP   *)
(* worker of its own moment, and atarget stays None.                      *)
(***************************************************************************)
EXTENDS FailureRouting

Restart(w) ==
    /\ wstate[w] = "FAILED"
    /\ wstate' = [wstate EXCEPT ![w] = IF DraftAssist THEN "LOADING_DRAFT" ELSE "LOADING_FULL"]
    /\ UNCHANGED <<active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen, gray>>

\* The survivors a recovering worker may choose as its target: the most loaded UP workers.
AssistTargets == ArgMaxLoad(Serving)

\* The choices of a session's target at DraftReady: one of AssistTargets, or none yet.
TargetChoices == IF Readings.assistTarget = "session" THEN {None} \cup AssistTargets ELSE {None}

DraftReady(w) ==
    /\ wstate[w] = "LOADING_DRAFT"
    /\ wstate' = [wstate EXCEPT ![w] = "ASSISTING"]
    /\ active' = [active EXCEPT ![w] = "DRAFT"]
    /\ \E t \in TargetChoices : atarget' = [atarget EXCEPT ![w] = t]
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, rload, seen, gray>>

\* Drafts for r: j tokens that agree with the reference, then l wrong ones.
DraftProposals(r) ==
    LET n == Len(out[r])
        right(j) == [i \in 1..j |-> Ref[r][n + i]]
        wrong(l) == [i \in 1..l |-> Wrong]
        most == IF K < Len(Ref[r]) - n THEN K ELSE Len(Ref[r]) - n
    IN  {d \in {right(j) \o wrong(l) : j \in 0..most, l \in 0..K} : Len(d) \in 1..K}

\* w's session target while it is UP (the session reading), else None.
KeptTarget(w) == IF Readings.assistTarget = "session" /\ atarget[w] # None /\ wstate[atarget[w]] = "UP"
                 THEN atarget[w] ELSE None

\* The survivors w may assist now: its kept target, or else a most loaded UP worker.
AssistTargetsOf(w) == IF KeptTarget(w) # None THEN {KeptTarget(w)} ELSE AssistTargets

\* When w may propose a draft for r: w assists, r decodes on a worker w may assist now, with no
\* draft in flight and tokens left.
AssistGuard(w, r) ==
    /\ DraftAssist
    /\ wstate[w] = "ASSISTING"
    /\ phase[r] = "DECODE"
    /\ Server(r) \in AssistTargetsOf(w)
    /\ proposal[r] = None
    /\ Len(out[r]) < Len(Ref[r])

Assist(w, r) ==
    /\ AssistGuard(w, r)
    /\ \E d \in DraftProposals(r) :
         proposal' = [proposal EXCEPT ![r] = [src |-> w, tgt |-> Server(r), toks |-> d]]
    \* under the session reading the target is now chosen, if it was not
    /\ atarget' = IF Readings.assistTarget = "session" THEN [atarget EXCEPT ![w] = Server(r)] ELSE atarget
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, failures, stored, reserved, rload, seen, gray>>

\* In-flight speculation of w that the handover drops.
DropSpeculation(w) ==
    [r \in Requests |-> IF proposal[r] # None /\ proposal[r].src = w
                        THEN None ELSE proposal[r]]

\* The atomic handover: full model active, draft freed, speculation dropped, UP.
FullReady(w) ==
    /\ wstate[w] \in {"ASSISTING", "LOADING_FULL"}
    /\ wstate' = [wstate EXCEPT ![w] = "UP"]
    /\ active' = [active EXCEPT ![w] = "FULL"]
    /\ proposal' = DropSpeculation(w)
    /\ atarget' = [atarget EXCEPT ![w] = None]
    \* Algorithm 3 line 8: L(w) <- 0
    /\ rload' = IF RouteIncrement THEN [rload EXCEPT ![w] = 0] ELSE rload
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, failures, stored, reserved, seen, gray>>

-----------------------------------------------------------------------------
(* Properties *)

\* S10: only a worker whose full model is active is given or serves requests.
S10(w) == runq[w] # {} => wstate[w] = "UP" /\ active[w] = "FULL"
S10_NoServingBeforeFullModelInv == \A w \in Workers : S10(w)

\* S11: each worker has exactly the model its state calls for, and every
\* in-flight draft comes from a worker whose draft is the active model.
ModelFor(s) == CASE s = "UP" -> "FULL" [] s = "ASSISTING" -> "DRAFT" [] OTHER -> "NONE"

S11W(w) == active[w] = ModelFor(wstate[w])
S11R(r) == proposal[r] # None => /\ wstate[proposal[r].src] = "ASSISTING"
                                 /\ active[proposal[r].src] = "DRAFT"
S11_ExactlyOneActiveModelInv == (\A w \in Workers : S11W(w)) /\ (\A r \in Requests : S11R(r))

(***************************************************************************)
(* S17: a draft is verified only where it was aimed.  A draft in flight    *)
(* belongs to a request that still decodes on the survivor the draft was   *)
(* made for: a failure that interrupts the request, or kills that          *)
(* survivor, drops the draft with the request's KV, so no draft outlives   *)
(* the context it was drafted on to be verified on another server.  (Its  *)
(* proposer still assisting, with its draft model, is S11.)                *)
(***************************************************************************)
S17(r) == proposal[r] # None => /\ phase[r] = "DECODE"
                                /\ Server(r) = proposal[r].tgt
S17_DraftVerifiedWhereAimedInv == \A r \in Requests : S17(r)

\* A3: every draft goes to a request on an UP worker: under the session reading on the assisting
\* worker's target while that target is UP, else on a most loaded UP worker; and a target, when it
\* is chosen, is a most loaded UP worker (by the monitor's reports under citedLoads = "stale").
MostLoaded(u) == wstate[u] = "UP" /\ \A v \in Workers : wstate[v] = "UP" => Eq4Seen(u) >= Eq4Seen(v)

A3_Step ==
    /\ \A r \in Requests :
         (proposal[r] = None /\ proposal'[r] # None) =>
            /\ Server(r) # None /\ wstate[Server(r)] = "UP"
            /\ IF KeptTarget(proposal'[r].src) # None THEN Server(r) = KeptTarget(proposal'[r].src)
               ELSE MostLoaded(Server(r))
    /\ \A w \in Workers : (atarget'[w] # None /\ atarget'[w] # atarget[w]) => MostLoaded(atarget'[w])

A3_AssistTargetsMostLoadedProp == [][A3_Step]_vars

-----------------------------------------------------------------------------
(* The mechanism alone: serving, failures and recovery without streaming. *)

RecoveryNext(w) == Restart(w) \/ DraftReady(w) \/ FullReady(w)

HandoverNext ==
    \/ \E r \in Requests : Arrive(r) \/ Place(r) \/ Prefill(r) \/ Decode(r)
                           \/ Complete(r) \/ Route(r)
    \/ \E w \in Workers : Fail(w) \/ RecoveryNext(w)
    \/ \E w \in Workers, r \in Requests : Assist(w, r)

HandoverSpec == Init /\ [][HandoverNext]_vars

=============================================================================
