------------------------------- MODULE Lumen -------------------------------
(***************************************************************************)
(* LUMEN composed: the three mechanisms run together on one cluster with   *)
(* arrivals, prefill, decode, page streaming, completion, worker failures, *)
(* restarts, speculative assist and the draft-to-full handover.            *)
(*                                                                         *)
(* Policy selects LUMEN, DUAL, one of the baselines, Stop-and-Restart     *)
(* (SR) and Fixed-Checkpointing (FC, DejaVu), or an ablation; all must     *)
(* satisfy the same safety properties, each mechanism its own rule (A1 to  *)
(* A5), and each must deliver the service of module Service (R1).          *)
(*                                                                         *)
(* Liveness holds under two assumptions, stated as Fairness and as the     *)
(* failure bound the models impose:                                        *)
(*  - weak fairness of every step the cluster itself takes (placement,     *)
(*    prefill, decode, page streaming, completion, routing, restart,      *)
(*    draft load, full load): a step that stays possible is eventually     *)
(*    taken; and strong fairness of the assist: a recovering worker that   *)
(*    can propose a draft again and again (its target decodes one request  *)
(*    after another) eventually does.  The mechanisms are not optional: a  *)
(*    system that could stream or assist and never does is not a LUMEN    *)
(*    (L3, L4);                                                            *)
(*  - finitely many failures (Fail has no fairness, and MC models bound    *)
(*    it), with at least one worker UP at every failure (Fail's guard).   *)
(*    Without a bound, a worker that fails every time it rejoins never     *)
(*    serves, and no system could promise L1 or L2.                        *)
(***************************************************************************)
EXTENDS GrayFailure

RequestStep(r) ==
    \/ Arrive(r) \/ Place(r) \/ Prefill(r) \/ Decode(r)
    \/ StreamPage(r) \/ Complete(r) \/ Route(r)

Next ==
    \/ \E r \in Requests : RequestStep(r)
    \/ \E w \in Workers : Fail(w) \/ RecoveryNext(w) \/ Heartbeat(w)
    \/ \E w \in Workers, r \in Requests : Assist(w, r)
    \/ \E w \in Workers : ZombieNext(w)

Fairness ==
    /\ \A r \in Requests : /\ WF_vars(Place(r)) /\ WF_vars(Prefill(r))
                           /\ WF_vars(Decode(r)) /\ WF_vars(Complete(r))
                           /\ WF_vars(Route(r)) /\ WF_vars(StreamPage(r))
    /\ \A w \in Workers : /\ WF_vars(Restart(w)) /\ WF_vars(DraftReady(w))
                          /\ WF_vars(FullReady(w))
                          /\ SF_vars(\E r \in Requests : Assist(w, r))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Liveness *)

\* L1: every request that arrives completes, with its whole output (S1).
L1_EveryRequestCompletes ==
    \A r \in Requests : phase[r] # "NEW" ~> phase[r] = "DONE"

\* L2: every failed worker rejoins UP with its full model.
L2_EveryFailedWorkerRejoins ==
    \A w \in Workers : wstate[w] = "FAILED" ~> wstate[w] = "UP"

\* L3: a decoding request with a live holder has its checkpoint catch up with its KV, or it
\* leaves that state (completes, is interrupted, or loses its holder).
L3_CheckpointCatchesUp ==
    \A r \in Requests :
        (phase[r] = "DECODE" /\ holder[r] # None /\ Len(ckpt[r]) < Len(kv[r]))
            ~> (Len(ckpt[r]) = Len(kv[r]) \/ phase[r] # "DECODE" \/ holder[r] = None
                \/ ~RoomFor(holder[r], StreamCount(ckpt[r], r)))

(***************************************************************************)
(* L4: Algorithm 3's loop, restated from the paper independently of        *)
(* AssistGuard: a recovering worker whose draft is loaded (ASSISTING)      *)
(* proposes drafts for the requests its target decodes, until its full     *)
(* model is ready.  Its target is the survivor its session chose while     *)
(* that survivor is UP (Algorithm 3 line 4, the assistTarget reading), else *)
(* a most loaded UP worker.  A worker that could propose and leaves        *)
(* ASSISTING first (the handover, or a failure) discharges it, so L4 can   *)
(* fail only where the full load may outlast the work: MCLumenLivenessSteady *)
(* keeps requests coming and lets the full load take the whole run.        *)
(***************************************************************************)
AssistTargetNow(w) ==
    IF Readings.assistTarget = "session" /\ atarget[w] # None /\ wstate[atarget[w]] = "UP"
    THEN {atarget[w]} ELSE {u \in Workers : MostLoaded(u)}

AssistOpportunity(w) ==
    /\ DraftAssist
    /\ wstate[w] = "ASSISTING"
    /\ \E r \in Requests : /\ phase[r] = "DECODE" /\ Server(r) \in AssistTargetNow(w)
                           /\ proposal[r] = None /\ Len(out[r]) < Len(Ref[r])

ProposedBy(w) == \E r \in Requests : proposal[r] # None /\ proposal[r].src = w

L4_DraftAssists ==
    \A w \in Workers : AssistOpportunity(w) ~> (ProposedBy(w) \/ wstate[w] # "ASSISTING")

-----------------------------------------------------------------------------
(***************************************************************************)
(* R1: the service, from the client's view down.  Under every policy the   *)
(* composed spec refines module Service: map each request's phase to what  *)
(* its client sees (not yet submitted, waiting for output, finished) and   *)
(* the output to what the client has received, and every step of LUMEN is *)
(* a step of the service or leaves the client's view as it was.  So every *)
(* client gets exactly its reference output, each token once, in order,    *)
(* only ever growing, and (with the liveness part, under Fairness and the  *)
(* failure bound) every request finishes.  Workers, checkpoints and drafts *)
(* are how LUMEN delivers; they do not appear in the mapping.              *)
(***************************************************************************)
ClientPhase(r) == CASE phase[r] = "NEW"  -> "NEW"
                    [] phase[r] = "DONE" -> "DONE"
                    [] OTHER             -> "ACTIVE"

Client == INSTANCE Service WITH cphase <- [r \in Requests |-> ClientPhase(r)], delivered <- out

\* The refinement, safety and liveness (the liveness models, without symmetry) ...
R1_RefinesService == Client!SSpec
\* ... and its safety part alone (the safety models, which may use symmetry).
R1_RefinesServiceSafety == Client!SSafety

-----------------------------------------------------------------------------
(* All safety invariants, for models that check them together. *)

SafetyInv ==
    /\ TypeOK
    /\ S1_NoLostRequestInv /\ S2_NoDuplicateServingInv
    /\ S3_NeverServedByDeadWorkerInv /\ S4_HolderIsNotServerInv
    /\ S5_BudgetRespectedInv /\ S6_CheckpointWithinPrefixInv
    /\ S7_OutputIsReferencePrefixInv /\ S8_NoCheckpointLeakInv
    /\ S9_RestoreResumesAtSavedPrefixInv /\ S10_NoServingBeforeFullModelInv
    /\ S11_ExactlyOneActiveModelInv /\ S13_CopyProvenanceInv /\ S15_AccountingInv
    /\ S17_DraftVerifiedWhereAimedInv

THEOREM Spec => []SafetyInv
THEOREM Spec => S12_RestoreResumesAtCheckpointProp /\ S14_ReProtectionProp /\ S16_DeliveredOnceProp
                /\ A1_PlacementIsArgMinProp /\ A2_RoutingFollowsRuleProp
                /\ A3_AssistTargetsMostLoadedProp /\ A4_PlacementFollowsBaselineProp
                /\ A5_RoutingFollowsBaselineProp /\ A6_ArrivalJoinsShortestQueueProp
THEOREM Spec => R1_RefinesServiceSafety
\* The failure bound under which liveness is claimed (MC models enforce it).
FinitelyManyFailures == <>[][\A w \in Workers : ~Fail(w)]_vars

THEOREM Spec /\ FinitelyManyFailures => L1_EveryRequestCompletes /\ L2_EveryFailedWorkerRejoins
                                         /\ L3_CheckpointCatchesUp /\ L4_DraftAssists
                                         /\ R1_RefinesService


(***************************************************************************)
(* The models, their bounds, and the state counts and times TLC measured   *)
(* are in spec/manifest.json (and docs/spec.md, generated from it); the   *)
(* build fails when TLC finds other counts.                               *)
(***************************************************************************)
=============================================================================
