------------------------------- MODULE Lumen -------------------------------
(***************************************************************************)
(* LUMEN composed: the three mechanisms run together on one cluster with   *)
(* arrivals, prefill, decode, page streaming, completion, worker failures, *)
(* restarts, speculative assist and the draft-to-full handover.            *)
(*                                                                         *)
(* Policy selects LUMEN or one of the baselines, Stop-and-Restart (SR) and *)
(* Fixed-Checkpointing (FC, DejaVu); all three must satisfy the same       *)
(* safety properties.                                                      *)
(*                                                                         *)
(* Liveness holds under two assumptions, stated as Fairness and as the     *)
(* failure bound the models impose:                                        *)
(*  - weak fairness of every step the cluster itself takes (placement,     *)
(*    prefill, decode, page streaming, completion, routing, restart,      *)
(*    draft load, assist, full load): a step that stays possible is        *)
(*    eventually taken.  The mechanisms are not optional: a system that    *)
(*    could stream or assist and never does is not a LUMEN (L3, L4);       *)
(*  - finitely many failures (Fail has no fairness, and MC models bound    *)
(*    it), with at least one worker UP at every failure (Fail's guard).   *)
(*    Without a bound, a worker that fails every time it rejoins never     *)
(*    serves, and no system could promise L1 or L2.                        *)
(***************************************************************************)
EXTENDS DraftHandover

RequestStep(r) ==
    \/ Arrive(r) \/ Place(r) \/ Prefill(r) \/ Decode(r)
    \/ StreamPage(r) \/ Complete(r) \/ Route(r)

Next ==
    \/ \E r \in Requests : RequestStep(r)
    \/ \E w \in Workers : Fail(w) \/ RecoveryNext(w) \/ Heartbeat(w)
    \/ \E w \in Workers, r \in Requests : Assist(w, r)

Fairness ==
    /\ \A r \in Requests : /\ WF_vars(Place(r)) /\ WF_vars(Prefill(r))
                           /\ WF_vars(Decode(r)) /\ WF_vars(Complete(r))
                           /\ WF_vars(Route(r)) /\ WF_vars(StreamPage(r))
    /\ \A w \in Workers : /\ WF_vars(Restart(w)) /\ WF_vars(DraftReady(w))
                          /\ WF_vars(FullReady(w))
                          /\ WF_vars(\E r \in Requests : Assist(w, r))

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
                \/ ~StreamRoom(holder[r]))

\* L4: a recovering worker with its draft loaded proposes a draft while some survivor has a
\* request it could assist, or leaves ASSISTING (hands over, or fails).
CanAssist(w) == \E r \in Requests : AssistGuard(w, r)

L4_DraftAssists ==
    \A w \in Workers :
        (wstate[w] = "ASSISTING" /\ CanAssist(w))
            ~> ((\E r \in Requests : proposal[r] # None /\ proposal[r].src = w) \/ wstate[w] # "ASSISTING")

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

THEOREM Spec => []SafetyInv
THEOREM Spec => S12_RestoreResumesAtCheckpointProp /\ S14_ReProtectionProp
                /\ A1_PlacementIsArgMinProp /\ A2_RoutingFollowsRuleProp
                /\ A3_AssistTargetsMostLoadedProp
\* The failure bound under which liveness is claimed (MC models enforce it).
FinitelyManyFailures == <>[][\A w \in Workers : ~Fail(w)]_vars

THEOREM Spec /\ FinitelyManyFailures => L1_EveryRequestCompletes /\ L2_EveryFailedWorkerRejoins
                                         /\ L3_CheckpointCatchesUp /\ L4_DraftAssists


(***************************************************************************)
(* Measured TLC runs (TLC 2.18, 2 workers, 2-core x86_64 VM, 24 GiB,       *)
(* Java 17; the CI models from one fresh-clone mvn -B verify, 2026-11-29,  *)
(* after the DUAL variables were added).  Counts are exact and recorded    *)
(* in manifest.json; times vary from run to run.                          *)
(*                                                                         *)
(*   model                     distinct states  depth   time               *)
(*   MCPlacement                           649     22     1.9 s            *)
(*   MCRouting                         308,299     41    83.2 s            *)
(*   MCHandover                        250,242     30    45.8 s            *)
(*   MCLumen                           840,042     45   192.4 s            *)
(*   MCLumenSR                           6,878     25     3.9 s            *)
(*   MCLumenFC                         575,024     43    98.9 s            *)
(*   MCLumenDual (2 requests)           81,774     39    15.4 s            *)
(*   MCLumenLivenessDegraded             3,612     16     6.8 s            *)
(*   MCLumenLiveness                    65,895     24    58.4 s            *)
(*   --large, one run each of lumen check --large (before DUAL existed):  *)
(*   MCLumenLarge (4 workers, 3 failures)                                  *)
(*                                   3,715,311     49  1077.9 s            *)
(*   MCLumenLongOutput (3 tokens, K 3) 3,015,857   54   513.2 s            *)
(*   MCLumenFCLarge (4 workers, 3 failures)                                *)
(*                                   4,912,916     46   982.2 s            *)
(*   MCLumenLivenessLarge (2 failures) 272,579     33   280.8 s            *)
(*   MCLumenDualLarge (DUAL, 3 requests, 1 TLC worker)                     *)
(*                                   5,837,642     51  2476.9 s            *)
(***************************************************************************)
=============================================================================
