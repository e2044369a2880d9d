------------------------------ MODULE MCLumen ------------------------------
(***************************************************************************)
(* Model-checking wrapper for Lumen and its mechanism modules.  The specs  *)
(* stay unbounded; every bound lives here, named, with its reason.         *)
(***************************************************************************)
EXTENDS Lumen

CONSTANTS
    MaxFailures,  \* failures one behaviour may contain
    OutLen,       \* tokens in every reference output
    PromptPages,  \* pages in every prompt
    RingOrder,    \* <<w1, w2, ...>>: FC's ring, in this order
    w1, w2, w3, w4  \* worker names, so that configs can write rings

Ring2 == <<w1, w2>>
Ring3 == <<w1, w2, w3>>
Ring3Reversed == <<w3, w2, w1>>
Ring4 == <<w1, w2, w3, w4>>

(***************************************************************************)
(* Bound 1, failures.  FailureBound (a state constraint) stops exploring   *)
(* after MaxFailures failures.  The spec allows any finite number; two     *)
(* already cover every case the paper leaves out (concurrent failures, a   *)
(* holder failing with or after its server, a failure during recovery or   *)
(* handover, the same worker failing again), since each needs two failures *)
(* and none needs three; --large models check three.  Only Fail raises     *)
(* the counter and Fail carries no fairness, so pruning it cannot hide a   *)
(* fair step: the bound is exactly the liveness assumption                 *)
(* FinitelyManyFailures.                                                   *)
(***************************************************************************)
FailureBound == failures <= MaxFailures

(***************************************************************************)
(* Bound 2, request sizes.  Every request has the same prompt and output   *)
(* lengths and the same reference tokens.  Lengths of one or two pages    *)
(* already distinguish a lagging checkpoint from a complete one and a     *)
(* short prefix from a long one (Tau sits between them); the tokens are   *)
(* distinct per position, so a repeated or skipped token breaks S7.       *)
(* Identical requests also make request symmetry sound.                   *)
(***************************************************************************)
TokenNames == <<"t1", "t2", "t3", "t4", "t5", "t6">>
MCPromptLen == [r \in Requests |-> PromptPages]
MCRef == [r \in Requests |-> SubSeq(TokenNames, 1, OutLen)]
\* Each request declares exactly the output it will produce: the reservation is its whole context.
MCMaxOut == [r \in Requests |-> Len(Ref[r])]

\* FC's neighbour: the next worker of RingOrder, cyclically.
RingIndex(w) == CHOOSE i \in 1..Len(RingOrder) : RingOrder[i] = w
MCNeighbour == [w \in Workers |-> RingOrder[(RingIndex(w) % Len(RingOrder)) + 1]]

(***************************************************************************)
(* Symmetry.  Under LUMEN and SR no definition singles out a worker (ties  *)
(* are broken by "any of the tied minima"), and all requests are alike    *)
(* (Bound 2), so permuting workers or requests maps behaviours to         *)
(* behaviours and preserves every invariant and action property.  FC uses *)
(* the ring, so FC models use its rotations only.  Liveness models use no *)
(* symmetry at all (TLC's liveness checking is unsound with it).  The     *)
(* spec's CHOOSEs are symmetric in effect: Server(r) names the unique      *)
(* worker whose queue holds r (S2), Accepted's count is unique, and       *)
(* SumOf's sum does not depend on the order it picks elements in.         *)
(***************************************************************************)
WorkerSymmetry == Permutations(Workers)
\* FC's ring is invariant under rotation, so rotations are sound for FC.
RingRotations == {[w \in Workers |-> RingOrder[((RingIndex(w) - 1 + k) % Len(RingOrder)) + 1]]
                    : k \in 0..(Len(RingOrder) - 1)}
RequestSymmetry == Permutations(Requests)
FullSymmetry == WorkerSymmetry \cup RequestSymmetry
RingSymmetry == RingRotations \cup RequestSymmetry

(***************************************************************************)
(* Readings (Cluster's Readings constant, docs/readings.md): the default,  *)
(* and each other reading on its own, for the models that check it.       *)
(***************************************************************************)
ReadingsDefault == DefaultReadings

(***************************************************************************)
(* Gray failures (GrayFailure): the gray models replace GrayFailures by    *)
(* GrayOn in their configs, so that a failure may leave a zombie.          *)
(***************************************************************************)
GrayOn == TRUE
ReadingsWaitingQueue == [DefaultReadings EXCEPT !.queue = "waiting"]
ReadingsRingFallThrough == [DefaultReadings EXCEPT !.ringFallThrough = TRUE]
ReadingsRebackup == [DefaultReadings EXCEPT !.rebackup = TRUE]
ReadingsAssistPerProposal == [DefaultReadings EXCEPT !.assistTarget = "proposal"]
ReadingsRouteIncrement == [DefaultReadings EXCEPT !.routeLoads = "increment"]
ReadingsBudgetStored == [DefaultReadings EXCEPT !.budget = "stored"]
ReadingsStaleLoads == [DefaultReadings EXCEPT !.citedLoads = "stale"]
ReadingsArriveAny == [DefaultReadings EXCEPT !.arrival = "any"]

(***************************************************************************)
(* Bound 3, the workload, for MCLumenLivenessSteady only.  Every other     *)
(* model has finitely many requests, each of which finishes; there a      *)
(* recovering worker that never proposes a draft passes L4, because the    *)
(* handover (weakly fair) or the end of the work discharges it before any  *)
(* fairness is owed.  The steady model keeps the work coming, as closed-   *)
(* loop clients do: a finished request is submitted again (Resubmit, its  *)
(* client's next request under the same name), and the full model's load *)
(* is not forced to finish (FullReady has no fairness there), as a reload *)
(* of minutes outlasts a burst of requests.  A recovering worker then      *)
(* meets opportunities to assist again and again, and L4 holds only if it *)
(* takes them (the assist's strong fairness).  R1 and S16 are not checked *)
(* there: a resubmitted request's output starts afresh.                    *)
(***************************************************************************)
Resubmit(r) ==
    /\ phase[r] = "DONE"
    /\ phase' = [phase EXCEPT ![r] = "NEW"]
    /\ out' = [out EXCEPT ![r] = <<>>]
    /\ UNCHANGED <<wstate, active, runq, holder, placed, kv, ckpt, backup, bckpt, proposal, failures, stored, reserved, atarget, rload, seen, gray>>

SteadyNext == Next \/ \E r \in Requests : Resubmit(r)

\* Lumen's Fairness without the full load's, and with the clients' own: they submit and resubmit.
SteadyFairness ==
    /\ \A r \in Requests : /\ WF_vars(Place(r)) /\ WF_vars(Prefill(r))
                           /\ WF_vars(Decode(r)) /\ WF_vars(Complete(r))
                           /\ WF_vars(Route(r)) /\ WF_vars(StreamPage(r))
                           /\ WF_vars(Arrive(r)) /\ WF_vars(Resubmit(r))
    /\ \A w \in Workers : /\ WF_vars(Restart(w)) /\ WF_vars(DraftReady(w))
                          /\ SF_vars(\E r \in Requests : Assist(w, r))

SteadySpec == Init /\ [][SteadyNext]_vars /\ SteadyFairness

-----------------------------------------------------------------------------
(***************************************************************************)
(* Witnesses.  Each W_ property claims that a scenario never happens; a    *)
(* witness model checks one of them and TLC must refute it, which proves   *)
(* the scenario is reachable in that model.  They keep the models from     *)
(* silently becoming trivial: a bound that cut off restores, holder        *)
(* failures or failures during handover would turn a witness into a pass,  *)
(* and the build would fail.                                               *)
(***************************************************************************)

\* A request restores from a non-empty checkpoint.
W_NoRestoreProp ==
    [][~\E r \in Requests : phase[r] = "INTERRUPTED" /\ phase'[r] = "QUEUED" /\ kv'[r] # <<>>]_vars

\* A holder fails while the request it protects is decoding elsewhere.
W_NoHolderFailureProp ==
    [][~\E r \in Requests : /\ holder[r] # None /\ phase[r] = "DECODE"
                             /\ wstate'[holder[r]] = "FAILED"]_vars

\* Server and holder of one request are both down at once.
W_NoServerAndHolderLostInv ==
    ~\E r \in Requests : phase[r] = "INTERRUPTED" /\ holder[r] = None /\ Len(out[r]) > 0
                         /\ Cardinality({w \in Workers : wstate[w] = "FAILED"}) = 2

\* A recovering worker fails again, while loading its draft or assisting.
W_NoFailureDuringRecoveryProp ==
    [][~\E w \in Workers : wstate[w] \in {"LOADING_DRAFT", "ASSISTING"} /\ wstate'[w] = "FAILED"]_vars

\* Two workers are down at the same time.
W_NoConcurrentFailuresInv ==
    Cardinality({w \in Workers : wstate[w] \in {"FAILED", "LOADING_DRAFT", "ASSISTING", "LOADING_FULL"}}) < 2

\* A verified draft yields more than one token in one decode step.
W_NoAcceptedDraftProp ==
    [][~\E r \in Requests : proposal[r] # None /\ Len(out'[r]) >= Len(out[r]) + 2]_vars

\* A draft is rejected outright: verification keeps only the target's own token.
W_NoRejectedDraftProp ==
    [][~\E r \in Requests : /\ proposal[r] # None /\ proposal'[r] = None /\ phase'[r] = "DECODE"
                             /\ Len(out'[r]) = Len(out[r]) + 1]_vars

\* A placement degrades: the request runs unprotected for lack of room.
W_NoDegradedPlacementProp ==
    [][~\E r \in Requests : ~placed[r] /\ placed'[r] /\ holder'[r] = None]_vars

\* A request re-prefills on a worker other than its holder, freeing its checkpoint.
W_NoReprefillProp ==
    [][~\E r \in Requests : /\ phase[r] = "INTERRUPTED" /\ holder[r] # None
                             /\ ckpt[r] # <<>> /\ kv'[r] = <<>>]_vars

\* An interrupted request that had already produced output re-prefills (FC and SR reach this
\* only when its checkpoint is gone or, under SR, always).
W_NoReprefillOfStartedProp ==
    [][~\E r \in Requests : /\ phase[r] = "INTERRUPTED" /\ out[r] # <<>>
                             /\ phase'[r] = "QUEUED" /\ kv'[r] = <<>>]_vars

\* A decoding request that has no holder is re-protected: placed again, with a holder.
W_NoReProtectionProp ==
    [][~\E r \in Requests : /\ placed[r] /\ holder[r] = None /\ phase[r] = "DECODE"
                             /\ holder'[r] # None]_vars

\* A restore brings back two or more pages.
W_NoLongRestoreProp ==
    [][~\E r \in Requests : phase[r] = "INTERRUPTED" /\ phase'[r] = "QUEUED" /\ Len(kv'[r]) >= 2]_vars

\* DUAL with the rebackup reading: a request that has a holder is given a new backup.
W_NoRebackupProp ==
    [][~\E r \in Requests : /\ placed[r] /\ holder[r] # None /\ backup[r] = None
                             /\ holder'[r] = holder[r] /\ backup'[r] # None]_vars

\* The session reading: a draft goes to the session's target while another UP worker is more loaded.
W_NoKeptTargetProp ==
    [][~\E r \in Requests : /\ proposal[r] = None /\ proposal'[r] # None
                             /\ ~MostLoaded(Server(r))]_vars

\* The increment reading: a request is routed while Algorithm 2's loads differ from the current ones.
W_NoRouteLoadGapProp ==
    [][~\E r \in Requests : RoutingStep(r) /\ \E v \in Serving : rload[v] # Load(v)]_vars

\* The stale reading: a placement that the exact loads would not choose (its holder is not an argmin
\* of Eq. 4 now; it is by the monitor's reports).
W_NoStaleChoiceProp ==
    [][~\E r \in Requests : /\ PlacementStep(r) /\ holder'[r] # None
                             /\ \E v \in Eligible(r) : Eq4Load(v) < Eq4Load(holder'[r])]_vars

\* The stored budget reading: a checkpoint lags its KV because its holder is full.
W_NoFullHolderProp ==
    [][~\E r \in Requests : /\ phase[r] = "DECODE" /\ holder[r] # None /\ Len(ckpt[r]) < Len(kv[r])
                             /\ ~StreamRoom(holder[r])]_vars

\* FC with the ringFallThrough reading: the ring neighbour has no room, a worker past it holds.
W_NoFallThroughProp ==
    [][~\E r \in Requests : /\ holder[r] = None /\ holder'[r] # None
                             /\ holder'[r] # RingNext(Server(r), Cardinality(Workers) - 1)]_vars

\* The waiting-queue reading: a worker's load counts fewer requests than its run queue holds.
W_NoRunningExcludedInv ==
    ~\E w \in Workers : Q(w) < Cardinality(runq[w]) /\ wstate[w] = "UP"

\* A restore resumes from a checkpoint that lags the request's KV: Prefill must recompute the rest.
W_NoLaggingRestoreProp ==
    [][~\E r \in Requests : /\ phase[r] = "INTERRUPTED" /\ phase'[r] = "QUEUED"
                             /\ Len(kv'[r]) > 0 /\ Len(kv'[r]) < KvLen(r)]_vars

\* A restore resumes from a checkpoint that ends inside a page (pages of PageTokens positions): the
\* restore brings back the page's written part, and Prefill recomputes the rest.
W_NoPartialPageRestoreProp ==
    [][~\E r \in Requests : /\ phase[r] = "INTERRUPTED" /\ phase'[r] = "QUEUED"
                             /\ Len(kv'[r]) > 0 /\ Len(kv'[r]) % PageTokens # 0]_vars

\* A verified draft adds two or more tokens to an output that is not yet complete, so the KV of its
\* accepted tokens is read by a later step.
W_NoAcceptedDraftMidOutputProp ==
    [][~\E r \in Requests : /\ proposal[r] # None /\ Len(out'[r]) >= Len(out[r]) + 2
                             /\ Len(out'[r]) < Len(Ref[r])]_vars

\* A failure interrupts a request with a draft in flight for it (the draft must be dropped with it).
W_NoDraftDroppedProp ==
    [][~\E r \in Requests : proposal[r] # None /\ phase[r] = "DECODE" /\ phase'[r] = "INTERRUPTED"]_vars

\* The any arrival reading: a new request joins a queue longer than a shortest one.
W_NoLongerQueueArrivalProp ==
    [][~\E r \in Requests : /\ phase[r] = "NEW" /\ phase'[r] = "QUEUED"
                             /\ \E w, v \in Serving : r \in runq'[w] /\ Q(v) < Q(w)]_vars

\* DUAL: a holder fails and its backup, with a non-empty copy, takes over its role.
W_NoBackupPromotionProp ==
    [][~\E r \in Requests : /\ holder[r] # None /\ backup[r] # None /\ bckpt[r] # <<>>
                             /\ wstate'[holder[r]] = "FAILED" /\ holder'[r] = backup[r]]_vars

\* A zombie's write reaches a fence and is refused.
W_NoZombieWriteRefusedInv == gray.refused = 0

\* A false suspicion: the worker rejoins, UP with its full model, while its zombie still runs.
W_NoZombieAfterRejoinInv == ~\E w \in Workers : gray.zombie[w] # None /\ wstate[w] = "UP"

\* A fenced holder, UP again, could acknowledge a copy of a request that is unprotected now: only the
\* epoch on the acknowledgement refuses it (ZombieAck's other conditions hold).
W_NoAckFenceMattersInv ==
    ~\E w \in Workers : /\ gray.zombie[w] # None /\ wstate[w] = "UP"
                       /\ \E r \in DOMAIN gray.zombie[w].held :
                              holder[r] = None /\ placed[r] /\ phase[r] \in {"QUEUED", "DECODE"} /\ r \notin runq[w] /\ backup[r] # w

=============================================================================
