------------------------------ MODULE Cluster ------------------------------
(***************************************************************************)
(* The serving substrate that LUMEN's three mechanisms act on.             *)
(*                                                                         *)
(* A cluster of workers serves requests.  A request arrives at the         *)
(* gateway, joins the run queue of one worker, is prefilled (its prompt's  *)
(* KV pages are computed and the first token is emitted), decodes one      *)
(* token per step (or several, when a speculative draft is verified), and  *)
(* completes when its output is as long as its reference output.          *)
(*                                                                         *)
(* Abstractions, each chosen so that no property of docs/design.md sec. 3  *)
(* loses its meaning:                                                      *)
(*  - One KV page per context position, tagged with what it holds: the     *)
(*    page <<r, i>> is position i of request r as its server computed it.  *)
(*    A copy in some worker's host memory (a checkpoint) carries that      *)
(*    worker too, <<r, i, w>>, and a page restored into GPU memory keeps   *)
(*    the tag of the host memory it came from.  A sequence of pages is     *)
(*    therefore right exactly when its page i holds position i of r, and  *)
(*    a page of another request, a page never written (Hole) or a copy in *)
(*    the wrong worker's memory is a violation, not a count that happens  *)
(*    to match.  Positions are grouped into pages of PageTokens; a         *)
(*    checkpoint is streamed a page at a time, the last page as far as it *)
(*    is written (a partial page, completed when it fills), so a restore   *)
(*    may resume inside a page.                                            *)
(*  - The KV convention of a real decoder: the KV of an emitted token is  *)
(*    written by the next forward pass, which feeds that token back.  So  *)
(*    once r has output, its server has written exactly KvLen(r) =        *)
(*    PromptLen + Len(out) - 1 positions, and nothing can stream, save or *)
(*    restore a position past that.                                        *)
(*  - The target model is deterministic (greedy): at output position n it  *)
(*    emits Ref[r][n] when its KV is whole and intact, and Wrong otherwise: *)
(*    a missing page is as wrong as a bad one, so a request whose KV was   *)
(*    never written or never recomputed gets a wrong token (S7) at once   *)
(*    instead of a stall.  Sampling and its distribution are the Java      *)
(*    harness's concern (S7 note).                                         *)
(*  - Prefill is one atomic step.  A failure "mid-prefill" loses only GPU  *)
(*    KV, exactly like a failure just before it, so nothing is lost by     *)
(*    merging the two.  The runtime's PREFILL phase is that step's         *)
(*    duration.                                                            *)
(*  - Each worker keeps two counters, as a real holder's memory manager   *)
(*    does: the positions it stores and the positions reserved on it.     *)
(*    Eq. 4 and Eq. 5 are stated on the sums they stand for; S15 ties the *)
(*    counters to those sums.                                              *)
(*                                                                         *)
(* This module defines the state, Eq. 4 (the load estimate), and the       *)
(* failure-free serving actions.  CheckpointPlacement, FailureRouting and  *)
(* DraftHandover add one mechanism each; Lumen composes them.              *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Workers,     \* the serving workers (model values)
    Requests,    \* the requests that may arrive (model values)
    None,        \* "no worker" and "no proposal" (a model value)
    Policy,      \* "LUMEN", "DUAL" (LUMEN with a backup holder), "FC" (Fixed-Checkpointing,
                 \* DejaVu), "SR" (Stop-and-Restart), or an ablation (Policies, below)
    Alpha,       \* Eq. 4 weight of checkpointed pages
    Beta,        \* Eq. 4 weight of queue depth
    Theta,       \* Eq. 6 load threshold
    Tau,         \* Eq. 6 prefix-length threshold, in pages
    Budget,      \* Eq. 5 M_budget: pages one holder may store
    K,           \* draft length: tokens a draft proposes at most
    PageTokens,  \* context positions per KV page: the unit a checkpoint is streamed in (the last page
                 \* of a request is partial until it fills)
    PromptLen,   \* [Requests -> Nat \ {0}]: prompt pages of each request
    Ref,         \* [Requests -> Seq(tokens)]: the reference (failure-free) output
    MaxOut,      \* [Requests -> Nat]: the maximum output each request declared (its max_tokens),
                 \* at least Len(Ref[r]); a placement reserves for it (Eq. 5)
    Neighbour,   \* [Workers -> Workers]: FC's fixed ring of neighbours (its direction is the
                 \* ringDirection reading: the next worker, or the previous one)
    Wrong,       \* a token that is no reference token (garbage or a bad draft)
    Readings     \* the paper's readings where it is ambiguous (ReadingsOK, below)

Policies == {"LUMEN", "DUAL", "FC", "SR",
             "NO_PLACEMENT", "NO_ROUTING", "NO_ASSIST", "PLACEMENT_ONLY", "ROUTING_ONLY", "ASSIST_ONLY"}

(***************************************************************************)
(* A policy is one choice per mechanism, and every rule below is stated on *)
(* the mechanism, so LUMEN, its baselines and its ablations are judged by  *)
(* the same definitions:                                                   *)
(*  - placement: "LOAD_AWARE" (Algorithm 1), "LOAD_AWARE_DUAL" (Algorithm  *)
(*    1 twice: a holder and a backup), "RING" (DejaVu's fixed neighbour)   *)
(*    or "NONE" (no checkpoints);                                          *)
(*  - routing: "EQ6" (Algorithm 2), "HOLDER_ALWAYS" (DejaVu: restore on    *)
(*    the live holder) or "NEVER" (always re-prefill);                     *)
(*  - recovery: "DRAFT_ASSIST" (Algorithm 3) or "FULL_ONLY".               *)
(* The ablations take one mechanism out of LUMEN (NO_...) or add one to    *)
(* Fixed-Checkpointing (..._ONLY), as the simulator's ablations do.        *)
(***************************************************************************)
PlacementRule ==
    CASE Policy \in {"LUMEN", "NO_ROUTING", "NO_ASSIST", "PLACEMENT_ONLY"} -> "LOAD_AWARE"
      [] Policy = "DUAL" -> "LOAD_AWARE_DUAL"
      [] Policy \in {"FC", "NO_PLACEMENT", "ROUTING_ONLY", "ASSIST_ONLY"} -> "RING"
      [] Policy = "SR" -> "NONE"
RoutingRule ==
    CASE Policy \in {"LUMEN", "DUAL", "NO_PLACEMENT", "NO_ASSIST", "ROUTING_ONLY"} -> "EQ6"
      [] Policy \in {"FC", "NO_ROUTING", "PLACEMENT_ONLY", "ASSIST_ONLY"} -> "HOLDER_ALWAYS"
      [] Policy = "SR" -> "NEVER"
RecoveryRule ==
    IF Policy \in {"LUMEN", "DUAL", "NO_PLACEMENT", "NO_ROUTING", "ASSIST_ONLY"} THEN "DRAFT_ASSIST" ELSE "FULL_ONLY"

LoadAwarePlacement == PlacementRule \in {"LOAD_AWARE", "LOAD_AWARE_DUAL"}
DualPlacement == PlacementRule = "LOAD_AWARE_DUAL"
Eq6Routing == RoutingRule = "EQ6"
DraftAssist == RecoveryRule = "DRAFT_ASSIST"

\* Whether a failure may be a false suspicion: the worker declared failed lives on as a zombie with
\* its old state (GrayFailure).  FALSE: every failure is a clean crash, and the epochs never move,
\* so a model without gray failures has the states it had before they were specified.  The gray
\* models override it in their configs (GrayFailures <- GrayOn).
GrayFailures == FALSE

(***************************************************************************)
(* Readings.  Where the paper can be read two ways, the reading is named  *)
(* in the trace header and in the conformance config, and each is checked *)
(* by its own model (docs/readings.md):                                    *)
(*  - queue: Q_w of Eq. 4 counts w's whole run queue, queued and running   *)
(*    ("run", the default), or only the requests waiting for their         *)
(*    prefill ("waiting").                                                 *)
(*  - ringFallThrough: under FC a neighbour without room makes the         *)
(*    request run unprotected (FALSE, the default), or the next worker on *)
(*    the ring is tried, and so on (TRUE).                                 *)
(*  - rebackup: under DUAL the backup is chosen at placement only (FALSE,  *)
(*    the default), or a request with a holder and no backup gets one as   *)
(*    soon as a worker has room: after its backup was promoted or lost, or *)
(*    when there was no room at placement (TRUE).                          *)
(*  - assistTarget: a recovering worker's assist target, the most loaded   *)
(*    survivor, is chosen once per assist session, as Algorithm 3 line 4   *)
(*    is written ("session", the default; at DraftReady or at the first    *)
(*    proposal, and again only when the target is no longer UP), or again  *)
(*    for every proposal ("proposal").                                     *)
(*  - routeLoads: the loads Algorithm 2 routes a failure's requests by:    *)
(*    Eq. 4 on the state after the requests routed before ("recompute",   *)
(*    the default), or the loads at the failure plus, as Algorithm 2       *)
(*    writes "L(h) += cost", Beta for each request routed to a worker      *)
(*    since ("increment"; FullReady's L(w) <- 0 holds there too).          *)
(*  - budget: Eq. 5 is kept by reserving Size(r), the request's declared   *)
(*    maximum, at placement ("reserve", the default), or on the pages      *)
(*    stored: a holder takes a request while it stores less than M_budget, *)
(*    and a checkpoint stops growing when its holder is full ("stored").   *)
(*  - citedLoads: the gateway decides on the exact loads of the state it   *)
(*    decides in ("exact", the default), or, as the paper's load monitor   *)
(*    works from heartbeats, on the last load each worker reported         *)
(*    ("stale": seen, refreshed by Heartbeat).  The model lets a report be *)
(*    as old as any behaviour makes it; how old a trace's may be is the    *)
(*    trace's declared bound (TraceLumen).                                 *)
(*  - arrival: the gateway sends a new request to a shortest queue, the    *)
(*    router of the paper's Fig. 1 ("shortest", the default; A6), or to    *)
(*    any UP worker ("any": round robin, random, a serving stack's own     *)
(*    rule; the paper leaves the baselines' gateways to their stack).      *)
(***************************************************************************)
ReadingsOK == /\ DOMAIN Readings = {"queue", "ringFallThrough", "rebackup", "assistTarget", "routeLoads", "budget", "citedLoads",
                                    "arrival"}
              /\ Readings.queue \in {"run", "waiting"}
              /\ Readings.ringFallThrough \in BOOLEAN
              /\ Readings.rebackup \in BOOLEAN
              /\ Readings.assistTarget \in {"session", "proposal"}
              /\ Readings.routeLoads \in {"recompute", "increment"}
              /\ Readings.budget \in {"reserve", "stored"}
              /\ Readings.citedLoads \in {"exact", "stale"}
              /\ Readings.arrival \in {"shortest", "any"}
DefaultReadings == [queue |-> "run", ringFallThrough |-> FALSE, rebackup |-> FALSE, assistTarget |-> "session",
                    routeLoads |-> "recompute", budget |-> "reserve", citedLoads |-> "exact", arrival |-> "shortest"]

ASSUME /\ Policy \in Policies
       /\ ReadingsOK
       /\ None \notin Workers
       /\ \A n \in {Alpha, Beta, Theta, Tau, Budget} : n \in Nat
       /\ K \in Nat \ {0}
       /\ PageTokens \in Nat \ {0}
       /\ \A r \in Requests : PromptLen[r] \in Nat \ {0} /\ Len(Ref[r]) > 0
       /\ \A r \in Requests : MaxOut[r] \in Nat /\ MaxOut[r] >= Len(Ref[r])
       /\ \A r \in Requests : \A i \in 1..Len(Ref[r]) : Ref[r][i] # Wrong
       /\ \A w \in Workers : Neighbour[w] \in Workers \ {w}

WorkerStates == {"UP", "FAILED", "LOADING_DRAFT", "ASSISTING", "LOADING_FULL"}
Phases == {"NEW", "QUEUED", "DECODE", "INTERRUPTED", "DONE"}
Models == {"NONE", "DRAFT", "FULL"}

VARIABLES
    wstate,    \* wstate[w]: the worker's state
    active,    \* active[w]: the model that answers for w (one at most)
    phase,     \* phase[r]: the request's phase
    runq,      \* runq[w]: the requests queued on or running on w
    holder,    \* holder[r]: the worker whose host memory holds r's checkpoint, or None
    placed,    \* placed[r]: the placement decision for r's current run was taken
    kv,        \* kv[r]: r's KV pages in its server's GPU memory
    ckpt,      \* ckpt[r]: r's KV pages streamed to its holder's host memory (C_r)
    backup,    \* backup[r]: DUAL only, a second holder of r's checkpoint, or None
    bckpt,     \* bckpt[r]: r's KV pages streamed to its backup holder
    out,       \* out[r]: the tokens delivered to r's client so far, in the order delivered
    proposal,  \* proposal[r]: an in-flight draft [src |-> w, tgt |-> u, toks |-> seq]: made by w for r
               \* on the survivor u, or None
    failures,  \* how many worker failures have happened (a history counter)
    stored,    \* stored[w]: the checkpoint positions w's host memory holds, by w's counter
    reserved,  \* reserved[w]: the positions reserved on w at placement (Eq. 5), by w's counter
    atarget,   \* atarget[w]: the survivor w assists in its assist session (Algorithm 3's w_s), or
               \* None while none is chosen (the assistTarget reading; DraftHandover)
    rload,     \* rload[w]: Algorithm 2's L(w) under routeLoads = "increment": w's load at the last
               \* failure plus Beta per request routed to w since (FailureRouting); else unused (0)
    seen,      \* seen[w]: under citedLoads = "stale", the load w last reported to the gateway's load
               \* monitor (Heartbeat); else unused (0)
    gray       \* gray failures (GrayFailure): each worker's current epoch (the fence the gateway and
               \* the holders hold), the zombie each failed worker may have left running, and ghost
               \* counts of the zombie writes refused and of those a fence let through

vars == <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures,
          stored, reserved, atarget, rload, seen, gray>>

-----------------------------------------------------------------------------
(* Helpers *)

\* The sum of f[x] over the x in S.
RECURSIVE SumOf(_, _)
SumOf(S, f) == IF S = {} THEN 0
               ELSE LET x == CHOOSE y \in S : TRUE IN f[x] + SumOf(S \ {x}, f)

(***************************************************************************)
(* KV pages.  KvPage(r, i) is position i of request r as its server       *)
(* computed it; CopyTo(p, w) is page p copied into worker w's host memory. *)
(* Holds(p, r, i) looks at what a page holds, wherever it lives.           *)
(***************************************************************************)
KvPage(r, i) == <<r, i>>
Hole == <<None, 0>>                                        \* a page nothing was written to
Written(r, from, to) == [j \in 1..(to - from + 1) |-> KvPage(r, from + j - 1)]
CopyTo(p, w) == <<p[1], p[2], w>>
Holds(p, r, i) == p[1] = r /\ p[2] = i
Intact(r, s) == \A i \in 1..Len(s) : Holds(s[i], r, i)
\* What a sequence of pages holds, wherever each page lives.
Content(s) == [i \in 1..Len(s) |-> <<s[i][1], s[i][2]>>]
IsPrefix(s, t) == Len(s) <= Len(t) /\ s = SubSeq(t, 1, Len(s))

\* Positions reserved for r (Eq. 5): its prompt and its declared maximum output.  No system knows
\* at placement how long the output will be; it knows what the request may take.
Size(r) == PromptLen[r] + MaxOut[r]
Ctx(r) == PromptLen[r] + Len(out[r])        \* tokens of r's context so far
\* The positions r's server has written: all of its context but the last token.
KvLen(r) == IF out[r] = <<>> THEN 0 ELSE Ctx(r) - 1
Server(r) == IF \E w \in Workers : r \in runq[w]
             THEN CHOOSE w \in Workers : r \in runq[w] ELSE None

(***************************************************************************)
(* Eq. 4, the load estimate:                                               *)
(*    L(w) = alpha * sum_{r in C(w)} |KV_r| + beta * Q_w                   *)
(* C(w) is the set of requests checkpointed on w and |KV_r| the pages of   *)
(* r saved there (as holder or, under DUAL, as backup); Q_w is w's queue   *)
(* depth.  The gateway computes it from w's counter (Load); the action     *)
(* properties restate it from the sum itself (Eq4Load).                    *)
(***************************************************************************)
\* Backups exist only under DUAL; the test spares other models the sum.
BackupStored(w) == IF DualPlacement
                   THEN SumOf({r \in Requests : backup[r] = w}, [r \in Requests |-> Len(bckpt[r])])
                   ELSE 0
StoredSum(w) == SumOf({r \in Requests : holder[r] = w}, [r \in Requests |-> Len(ckpt[r])])
                + BackupStored(w)
\* Eq. 5's reservations: Size(r) on r's holder and, under DUAL, on its backup.
ReservedSum(w) == SumOf({r \in Requests : holder[r] = w}, [r \in Requests |-> Size(r)])
                  + IF DualPlacement
                    THEN SumOf({r \in Requests : backup[r] = w}, [r \in Requests |-> Size(r)])
                    ELSE 0
\* Q_w, by the queue reading: the whole run queue, or the requests waiting for their prefill.
Q(w) == IF Readings.queue = "run" THEN Cardinality(runq[w])
        ELSE Cardinality({r \in runq[w] : phase[r] = "QUEUED"})
Load(w) == Alpha * stored[w] + Beta * Q(w)
Eq4Load(w) == Alpha * StoredSum(w) + Beta * Q(w)

\* The loads the gateway decides on (the citedLoads reading): Eq. 4 now, or its monitor's reports.
StaleLoads == Readings.citedLoads = "stale"
Seen(w) == IF StaleLoads THEN seen[w] ELSE Load(w)
\* ... and as the action properties restate them: Eq. 4 from its sums, or the monitor's reports.
Eq4Seen(w) == IF StaleLoads THEN seen[w] ELSE Eq4Load(w)

ArgMinLoad(S) == LET l == [w \in S |-> Seen(w)] IN {w \in S : \A v \in S : l[w] <= l[v]}
ArgMaxLoad(S) == LET l == [w \in S |-> Seen(w)] IN {w \in S : \A v \in S : l[w] >= l[v]}

\* Algorithm 2's loads (the routeLoads reading): under "increment", for Eq. 6 routing, the running
\* loads rload; otherwise the loads the gateway decides on (Seen).
RouteIncrement == Readings.routeLoads = "increment" /\ Eq6Routing
RouteLoad(w) == IF RouteIncrement THEN rload[w] ELSE Seen(w)
ArgMinRouteLoad(S) == LET l == [w \in S |-> RouteLoad(w)] IN {w \in S : \A v \in S : l[w] <= l[v]}
NoRouteLoads == [w \in Workers |-> 0]
\* The running loads after a failure of w that leaves the requests R interrupted: the loads now
\* (a survivor's load is the same after the failure; the gateway reads them afresh when it
\* detects the failure, under either citedLoads reading), or none when there is nothing to route.
RouteLoadsAfterFail(R) == IF ~RouteIncrement THEN rload
                          ELSE IF R = {} THEN NoRouteLoads ELSE [v \in Workers |-> Load(v)]
\* ... after routing r to t: t is charged Beta ("L(t) += cost"); Algorithm 2's run ends with
\* the last interrupted request.
RouteLoadsAfterRoute(r, t) ==
    IF ~RouteIncrement THEN rload
    ELSE IF \A q \in Requests \ {r} : phase[q] # "INTERRUPTED" THEN NoRouteLoads
    ELSE [rload EXCEPT ![t] = @ + Beta]

\* Workers that take new work: UP, i.e. running the full model.
Serving == {w \in Workers : wstate[w] = "UP"}

(***************************************************************************)
(* The placement rule (Algorithm 1, Eq. 5), which the serving actions     *)
(* wait for: a holder is any worker of minimal load among the UP workers   *)
(* other than the server that can still reserve Size(r) within M_budget.   *)
(* FC places on the first UP worker after the server on its fixed ring,    *)
(* when it fits; SR places nowhere.  CheckpointPlacement takes the         *)
(* decision (Place) and streams the pages.                                 *)
(***************************************************************************)
\* Room for r on w under the budget reading: Size(r) more reserved, or some position unstored.
HasRoom(w, r) == IF Readings.budget = "reserve" THEN reserved[w] + Size(r) <= Budget ELSE stored[w] < Budget

HolderCandidates(r) ==
    {w \in Serving : w # Server(r) /\ HasRoom(w, r)}

\* FC: the first UP worker after w on the fixed ring.
RECURSIVE RingNext(_, _)
RingNext(w, n) == IF n = 0 THEN None
                  ELSE IF wstate[Neighbour[w]] = "UP" THEN Neighbour[w]
                  ELSE RingNext(Neighbour[w], n - 1)

\* FC with the ringFallThrough reading: the first worker after w on the ring that is in S.
RECURSIVE RingFirstIn(_, _, _)
RingFirstIn(S, w, n) == IF n = 0 THEN None
                        ELSE IF Neighbour[w] \in S THEN Neighbour[w]
                        ELSE RingFirstIn(S, Neighbour[w], n - 1)

RingHolder(r) == IF Readings.ringFallThrough
                 THEN RingFirstIn(HolderCandidates(r), Server(r), Cardinality(Workers) - 1)
                 ELSE LET h == RingNext(Server(r), Cardinality(Workers) - 1)
                      IN  IF h # None /\ h \in HolderCandidates(r) THEN h ELSE None

\* The holders the policy allows for r; empty means "run unprotected".
PlacementChoice(r) ==
    CASE LoadAwarePlacement         -> ArgMinLoad(HolderCandidates(r))
      [] PlacementRule = "RING" -> IF RingHolder(r) = None THEN {} ELSE {RingHolder(r)}
      [] PlacementRule = "NONE" -> {}

(***************************************************************************)
(* Re-protection: Algorithm 1 applies to every unprotected request, not    *)
(* only at its first placement.  A request with no holder (its placement  *)
(* degraded for lack of room, or its holder failed) for which the policy  *)
(* now has a holder is placed again before it is served further.          *)
(***************************************************************************)
\* DUAL's backup, as the placement rule has it: the least loaded candidate other than h.
BackupChoice(r, h) ==
    IF DualPlacement /\ h # None THEN ArgMinLoad(HolderCandidates(r) \ {h}) ELSE {}

\* The rebackup reading: a DUAL request with a holder and no backup gets one when one can be had.
NeedsBackup(r) == /\ Readings.rebackup /\ DualPlacement
                  /\ holder[r] # None /\ backup[r] = None
                  /\ BackupChoice(r, holder[r]) # {}

NeedsProtection(r) == /\ placed[r] /\ phase[r] \in {"QUEUED", "DECODE"}
                      /\ \/ holder[r] = None /\ PlacementChoice(r) # {}
                         \/ NeedsBackup(r)

-----------------------------------------------------------------------------
(* The target model *)

\* The KV a forward pass at r's next position reads before it runs: the whole prompt for the
\* first token; afterwards every position of the context but the last token, whose KV the pass
\* itself writes as it feeds that token (and a draft's tokens) back.
KvNeeded(r) == IF out[r] = <<>> THEN PromptLen[r] ELSE KvLen(r)

\* The token the target emits at output position i, given r's KV pages: the reference only on KV
\* that is r's own, in order, and whole.
TargetToken(r, pages, i) == IF Intact(r, pages) /\ Len(pages) >= KvNeeded(r) THEN Ref[r][i] ELSE Wrong

(***************************************************************************)
(* Greedy verification of a draft d at r's current position n (Leviathan  *)
(* et al., Chen et al.): accept the longest prefix of d that agrees with   *)
(* the target, then one token of the target's own.  The output therefore  *)
(* never differs from what the target alone would emit.                    *)
(***************************************************************************)
Accepted(r, d) ==
    LET n == Len(out[r])
        ok(j) == \A i \in 1..j : n + i <= Len(Ref[r]) /\ d[i] = TargetToken(r, kv[r], n + i)
    IN  CHOOSE m \in 0..Len(d) : ok(m) /\ (m = Len(d) \/ ~ok(m + 1))

Verified(r, d) ==
    LET n == Len(out[r])
        m == Accepted(r, d)
    IN  SubSeq(d, 1, m) \o (IF n + m < Len(Ref[r])
                              THEN <<TargetToken(r, kv[r], n + m + 1)>> ELSE <<>>)

\* Tokens one Decode step of r appends to its output.
DecodeTokens(r) == IF proposal[r] = None
                   THEN <<TargetToken(r, kv[r], Len(out[r]) + 1)>>
                   ELSE Verified(r, proposal[r].toks)

-----------------------------------------------------------------------------
(* Initial state *)

Init ==
    /\ wstate = [w \in Workers |-> "UP"]
    /\ active = [w \in Workers |-> "FULL"]
    /\ phase = [r \in Requests |-> "NEW"]
    /\ runq = [w \in Workers |-> {}]
    /\ holder = [r \in Requests |-> None]
    /\ placed = [r \in Requests |-> FALSE]
    /\ kv = [r \in Requests |-> <<>>]
    /\ ckpt = [r \in Requests |-> <<>>]
    /\ backup = [r \in Requests |-> None]
    /\ bckpt = [r \in Requests |-> <<>>]
    /\ out = [r \in Requests |-> <<>>]
    /\ proposal = [r \in Requests |-> None]
    /\ failures = 0
    /\ stored = [w \in Workers |-> 0]
    /\ reserved = [w \in Workers |-> 0]
    /\ atarget = [w \in Workers |-> None]
    /\ rload = [w \in Workers |-> 0]
    /\ seen = [w \in Workers |-> 0]
    /\ gray = [epoch |-> [w \in Workers |-> 0], zombie |-> [w \in Workers |-> None], refused |-> 0, leaked |-> 0]

-----------------------------------------------------------------------------
(* Failure-free serving actions *)

\* The gateway's own routing of new requests: join the shortest queue (arrival = "any": any UP worker).
ArriveTargets == IF Readings.arrival = "any" THEN Serving
                 ELSE {w \in Serving : \A v \in Serving : Q(w) <= Q(v)}

Arrive(r) ==
    /\ phase[r] = "NEW"
    /\ \E w \in ArriveTargets :
         runq' = [runq EXCEPT ![w] = @ \cup {r}]
    /\ phase' = [phase EXCEPT ![r] = "QUEUED"]
    /\ placed' = [placed EXCEPT ![r] = FALSE]
    /\ UNCHANGED <<wstate, active, holder, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen, gray>>

(***************************************************************************)
(* Prefill computes the KV pages r's server lacks: the whole prompt for a  *)
(* new or re-prefilled request, only the pages past the checkpoint for a  *)
(* restored one (its tokens are known, so they are recomputed, never      *)
(* assumed), up to KvLen.  A request with no output yet also gets its     *)
(* first token, from the prompt's KV; that token's own KV is written by   *)
(* the first decode step.  Prefill waits for the placement decision (so   *)
(* streaming can start at once) but not for a holder: an unprotected      *)
(* request runs all the same, unless a holder can now be had.            *)
(***************************************************************************)
ReadyToPrefill(r) == placed[r] /\ ~NeedsProtection(r)

\* The KV Prefill computes for r: every position its server lacks, up to KvLen once the step's
\* output is out' (the whole prompt, then the known tokens past a restored checkpoint).
Recomputed(r, newOut) == Written(r, Len(kv[r]) + 1, PromptLen[r] + Len(newOut) - 1)

Prefill(r) ==
    /\ phase[r] = "QUEUED"
    /\ ReadyToPrefill(r)
    /\ Server(r) # None /\ wstate[Server(r)] = "UP"
    /\ LET first == IF out[r] = <<>>
                    THEN <<TargetToken(r, kv[r] \o Written(r, Len(kv[r]) + 1, PromptLen[r]), 1)>>
                    ELSE <<>>
           newOut == out[r] \o first
       IN  /\ out' = [out EXCEPT ![r] = newOut]
           /\ kv' = [kv EXCEPT ![r] = @ \o Recomputed(r, newOut)]
    /\ phase' = [phase EXCEPT ![r] = "DECODE"]
    /\ UNCHANGED <<wstate, active, runq, holder, placed, ckpt, backup, bckpt, proposal, failures, stored, reserved, atarget, rload, seen, gray>>

(***************************************************************************)
(* One decode iteration of r: the forward pass feeds r's last token back  *)
(* (writing its KV) and emits one token, or verifies a draft and emits    *)
(* its agreeing prefix plus one (writing the KV of every token it keeps   *)
(* but the last).  It waits for a pending re-protection.                  *)
(***************************************************************************)
\* The KV a decode pass that emits the tokens new writes: its input token's and those of the draft
\* tokens it keeps, one position per token emitted.
DecodeKv(r, new) == Written(r, Len(kv[r]) + 1, Len(kv[r]) + Len(new))

Decode(r) ==
    /\ phase[r] = "DECODE"
    /\ wstate[Server(r)] = "UP"
    /\ Len(out[r]) < Len(Ref[r])
    /\ ~NeedsProtection(r)
    /\ LET new == DecodeTokens(r)
       IN  /\ out' = [out EXCEPT ![r] = @ \o new]
           /\ kv' = [kv EXCEPT ![r] = @ \o DecodeKv(r, new)]
    /\ proposal' = [proposal EXCEPT ![r] = None]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, ckpt, backup, bckpt, failures, stored, reserved, atarget, rload, seen, gray>>

\* How many of r's checkpoint copies w holds (as holder, as backup).
Copies(r, w) == (IF holder[r] = w THEN 1 ELSE 0) + (IF backup[r] = w THEN 1 ELSE 0)

\* r's reservation and saved positions leave its holder's and its backup's counters.
Release(r) ==
    /\ reserved' = [w \in Workers |-> reserved[w] - Copies(r, w) * Size(r)]
    /\ stored' = [w \in Workers |-> stored[w] - (IF holder[r] = w THEN Len(ckpt[r]) ELSE 0)
                                               - (IF backup[r] = w THEN Len(bckpt[r]) ELSE 0)]

\* Freeing r's checkpoint on its holder, and its backup's (on completion and on routing).
FreeCheckpoint(r) ==
    /\ holder' = [holder EXCEPT ![r] = None]
    /\ ckpt' = [ckpt EXCEPT ![r] = <<>>]
    /\ backup' = [backup EXCEPT ![r] = None]
    /\ bckpt' = [bckpt EXCEPT ![r] = <<>>]
    /\ Release(r)

Complete(r) ==
    /\ phase[r] = "DECODE"
    /\ Len(out[r]) = Len(Ref[r])
    /\ phase' = [phase EXCEPT ![r] = "DONE"]
    /\ runq' = [w \in Workers |-> runq[w] \ {r}]
    /\ kv' = [kv EXCEPT ![r] = <<>>]
    /\ FreeCheckpoint(r)
    /\ UNCHANGED <<wstate, active, placed, out, proposal, failures, atarget, rload, seen, gray>>

(***************************************************************************)
(* The gateway's load monitor (citedLoads = "stale"): an UP worker reports *)
(* its load, Eq. 4 from its counters, and the gateway keeps the report     *)
(* until the next one.  Reports are not forced (no fairness): a decision   *)
(* may rest on a report of any age, which is what a behaviour of the      *)
(* model may do; a trace declares how old its reports may be.             *)
(***************************************************************************)
Heartbeat(w) ==
    /\ StaleLoads
    /\ wstate[w] = "UP"
    /\ seen[w] # Load(w)
    /\ seen' = [seen EXCEPT ![w] = Load(w)]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures,
                   stored, reserved, atarget, rload, gray>>

-----------------------------------------------------------------------------
(* Properties of the substrate (IDs as in docs/design.md, section 3) *)

TypeOK ==
    /\ wstate \in [Workers -> WorkerStates]
    /\ active \in [Workers -> Models]
    /\ phase \in [Requests -> Phases]
    /\ runq \in [Workers -> SUBSET Requests]
    /\ holder \in [Requests -> Workers \cup {None}]
    /\ backup \in [Requests -> Workers \cup {None}]
    /\ placed \in [Requests -> BOOLEAN]
    /\ \A r \in Requests : /\ Len(kv[r]) <= Size(r)
                           /\ Len(ckpt[r]) <= Size(r)
                           /\ Len(bckpt[r]) <= Size(r)
                           /\ Len(out[r]) <= Len(Ref[r])
    /\ failures \in Nat
    /\ stored \in [Workers -> Nat]
    /\ reserved \in [Workers -> Nat]
    /\ atarget \in [Workers -> Workers \cup {None}]
    /\ rload \in [Workers -> Nat]
    /\ seen \in [Workers -> Nat]

\* S1: an arrived request is always somewhere: in exactly the run queue of a
\* worker while QUEUED or DECODE, known as INTERRUPTED to the coordinator,
\* or DONE with its whole output.
\* (Each invariant is stated for one request or one worker, S1(r), and then for all; trace
\* validation checks the ones a step touched, as the Java checks do.)
S1(r) == /\ phase[r] \in {"QUEUED", "DECODE"} => \E w \in Workers : r \in runq[w]
         /\ phase[r] \in {"NEW", "INTERRUPTED", "DONE"} => \A w \in Workers : r \notin runq[w]
         /\ phase[r] = "DONE" => out[r] = Ref[r]
S1_NoLostRequestInv == \A r \in Requests : S1(r)

\* S2: no request is queued on or served by two workers at once.
S2(r) == Cardinality({w \in Workers : r \in runq[w]}) <= 1
S2_NoDuplicateServingInv == \A r \in Requests : S2(r)

\* S7: failures, restores, re-prefills and speculation never change a token.
S7(r) == IsPrefix(out[r], Ref[r])
S7_OutputIsReferencePrefixInv == \A r \in Requests : S7(r)

(***************************************************************************)
(* S16: what a client has received only grows.  No step takes back, resets *)
(* or re-sends what was delivered: a restore or a re-prefill resumes the   *)
(* client's output where it stands.  With S7 (every position holds its    *)
(* reference token) each token is delivered exactly once, in order.        *)
(***************************************************************************)
S16_Step == \A r \in Requests : IsPrefix(out[r], out'[r])
S16_DeliveredOnceProp == [][S16_Step]_vars

(***************************************************************************)
(* A6: under arrival = "shortest" a new request joins a shortest queue:   *)
(* the worker whose run queue gains it has no more in Q_w (Eq. 4's count, *)
(* under the queue reading) than any UP worker.  Restated from the paper's *)
(* router, not from ArriveTargets.  Under arrival = "any" the gateway's    *)
(* rule is its own and A6 asks nothing.                                    *)
(***************************************************************************)
Arrives(r) == phase[r] = "NEW" /\ phase'[r] = "QUEUED"
A6_Step == Readings.arrival = "shortest" =>
               \A r \in Requests : Arrives(r) =>
                   \A w \in Workers : r \in runq'[w] \ runq[w] =>
                       \A v \in Workers : wstate[v] = "UP" => Q(w) <= Q(v)
A6_ArrivalJoinsShortestQueueProp == [][A6_Step]_vars

=============================================================================
