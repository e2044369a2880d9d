------------------------------ MODULE Service ------------------------------
(***************************************************************************)
(* What a client of the serving system gets, and nothing else.             *)
(*                                                                         *)
(* A request is submitted once.  From then on the service delivers its     *)
(* output in chunks of one or more tokens: each chunk is the next tokens   *)
(* of the request's reference output, so every token arrives exactly       *)
(* once, in order, and what the client has received only grows.  When the *)
(* whole reference has been delivered the request finishes.  Under the    *)
(* fairness below every submitted request finishes.                       *)
(*                                                                         *)
(* The module knows nothing of workers, checkpoints, drafts or failures:   *)
(* those are how a system delivers, and Lumen's refinement mapping         *)
(* (R1_RefinesService, in Lumen) says that LUMEN and each baseline deliver *)
(* exactly this under every failure the spec allows.                      *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS
    Requests,   \* the requests that may be submitted
    Ref         \* [Requests -> Seq(tokens)]: each request's reference output

VARIABLES
    cphase,     \* cphase[r]: "NEW" (not submitted), "ACTIVE" or "DONE", as the client sees it
    delivered   \* delivered[r]: the tokens r's client has received, in the order received

svars == <<cphase, delivered>>

SInit == /\ cphase = [r \in Requests |-> "NEW"]
         /\ delivered = [r \in Requests |-> <<>>]

Submit(r) == /\ cphase[r] = "NEW"
             /\ cphase' = [cphase EXCEPT ![r] = "ACTIVE"]
             /\ UNCHANGED delivered

\* The next n >= 1 tokens of the reference, appended to what the client has.
Deliver(r) == /\ cphase[r] = "ACTIVE"
              /\ \E n \in 1..(Len(Ref[r]) - Len(delivered[r])) :
                     delivered' = [delivered EXCEPT ![r] = SubSeq(Ref[r], 1, Len(delivered[r]) + n)]
              /\ UNCHANGED cphase

Finish(r) == /\ cphase[r] = "ACTIVE"
             /\ delivered[r] = Ref[r]
             /\ cphase' = [cphase EXCEPT ![r] = "DONE"]
             /\ UNCHANGED delivered

SNext == \E r \in Requests : Submit(r) \/ Deliver(r) \/ Finish(r)

\* A client submits when it wants to (no fairness); the service must deliver and finish.
SFairness == \A r \in Requests : WF_svars(Deliver(r)) /\ WF_svars(Finish(r))

\* The service's safety alone, and with its liveness.
SSafety == SInit /\ [][SNext]_svars
SSpec == SSafety /\ SFairness

=============================================================================
