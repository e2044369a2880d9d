----------------------------- MODULE TraceLumen -----------------------------
(***************************************************************************)
(* Trace validation: is a recorded trace a behaviour of the composed spec? *)
(*                                                                         *)
(* In the manner of CCF's and etcd's trace specs.  `lumen validate --tlc`  *)
(* generates a small module from a JSON Lines trace (trace contract v1,    *)
(* docs/trace-format.md) that EXTENDS this one and defines TraceLog, the   *)
(* events as records, and the constants the trace's header and Arrive      *)
(* events fix.  TLC then explores the behaviours of Lumen's Next that      *)
(* match the log event by event: each event must be a step of the spec    *)
(* action it names, and the spec state after the step must agree with the  *)
(* outcome the event reports.  The trace is a behaviour of the spec        *)
(* exactly when some behaviour consumes the whole log.                     *)
(*                                                                         *)
(*  event (JSON type)  spec action        compared after the step          *)
(*  -----------------  -----------------  -------------------------------  *)
(*  Arrive             Arrive(req)        req in runq'[worker]             *)
(*  Place              Place(req)         holder'[req], backup'[req]       *)
(*  Prefill            Prefill(req)       Server(req), out'[req]           *)
(*  Decode             Decode(req)        Server(req), out'[req]           *)
(*  StreamPage         StreamPage(req)    the copy that grew (holder or    *)
(*                     once per position  backup) and its new length ckpt  *)
(*  Complete           Complete(req)      Server(req); freed = |C_r|       *)
(*  Fail               Fail(worker)       interrupted = runq[w]; orphaned, *)
(*                                        promoted (holder or backup on w) *)
(*  Route              Route(req)         mode = UseHolder(req); worker;   *)
(*                                        resumed = |kv'[req]|; freed      *)
(*  Restart            Restart(worker)    -                                *)
(*  DraftReady         DraftReady(worker) -                                *)
(*  Assist             Assist(worker,req) proposal'[req].toks (abstracted) *)
(*  FullReady          FullReady(worker)  dropped = w's proposals          *)
(*  "loads" (optional, on Place, Route, Assist): each UP worker's cited    *)
(*  load equals Load(w) before the step.                                   *)
(*                                                                         *)
(* Trade-offs, each sound for the verdict:                                 *)
(*  - One StreamPage event may cover several positions; it is matched by   *)
(*    as many StreamPage steps, and the log advances after the last.       *)
(*  - A draft is abstracted to what verification can tell of it: its      *)
(*    tokens up to the first that disagrees with the reference, then Wrong *)
(*    for every token from there on (DraftProposals' shape).  Verified     *)
(*    gives the same tokens for the draft and for its abstraction.         *)
(*  - Loads and Theta: the generator refuses non-integral Alpha or Beta   *)
(*    (TLC has no reals).  Loads are then integers, so L <= theta is       *)
(*    L <= floor(theta), and Theta is set to the floor.  A cited load that *)
(*    is not an integer is written as -1, which no load equals.           *)
(*  - The ablation policies (lumen-no-...) are combinations of mechanism  *)
(*    choices that Policy does not name; their traces are checked by the   *)
(*    Java mirror only.                                                    *)
(***************************************************************************)
EXTENDS Lumen, Integers, TLC

CONSTANT TraceLog   \* <<event, event, ...>>: the trace's events, in order

VARIABLE l          \* the index in TraceLog of the next event to match

traceVars == <<vars, l>>

Ev == TraceLog[l]

SetOf(s) == {s[i] : i \in 1..Len(s)}

\* A draft as verification sees it: its agreeing prefix, then Wrong.
AbsDraft(r, d) ==
    LET n == Len(out[r])
        agrees(i) == \A j \in 1..i : n + j <= Len(Ref[r]) /\ d[j] = Ref[r][n + j]
    IN  [i \in 1..Len(d) |-> IF agrees(i) THEN d[i] ELSE Wrong]

\* The loads a decision cites (if any) are the loads of Eq. 4 now.
CitedLoadsHold ==
    "loads" \in DOMAIN Ev =>
        \A w \in Workers : wstate[w] = "UP" => Ev.loads[w + 1] = Load(w)

Saved(r) == Len(ckpt[r]) + Len(bckpt[r])

-----------------------------------------------------------------------------
(* One match per event type. *)

ArriveEv == LET r == Ev.req IN
    /\ Arrive(r)
    /\ r \in runq'[Ev.worker]

PlaceEv == LET r == Ev.req IN
    /\ CitedLoadsHold
    /\ Place(r)
    /\ holder'[r] = Ev.holder
    /\ backup'[r] = Ev.backup

PrefillEv == LET r == Ev.req IN
    /\ Server(r) = Ev.worker
    /\ Prefill(r)
    /\ out'[r] = out[r] \o Ev.tokens

DecodeEv == LET r == Ev.req IN
    /\ Server(r) = Ev.worker
    /\ Decode(r)
    /\ out'[r] = out[r] \o Ev.tokens

\* One position of a StreamPage event; the log advances when the copy reaches Ev.ckpt.
StreamPageEv == LET r == Ev.req IN
    /\ Ev.holder # None
    /\ StreamPage(r)
    /\ \/ /\ Ev.holder = holder[r]
          /\ Len(ckpt'[r]) = Len(ckpt[r]) + 1
          /\ Len(ckpt'[r]) <= Ev.ckpt
       \/ /\ Ev.holder = backup[r]
          /\ Len(bckpt'[r]) = Len(bckpt[r]) + 1
          /\ Len(bckpt'[r]) <= Ev.ckpt

StreamedTo(r) == IF Ev.holder = holder[r] THEN Len(ckpt'[r]) ELSE Len(bckpt'[r])

CompleteEv == LET r == Ev.req IN
    /\ Server(r) = Ev.worker
    /\ Ev.freed = Saved(r)
    /\ Complete(r)

FailEv == LET w == Ev.worker IN
    /\ SetOf(Ev.interrupted) = runq[w]
    /\ SetOf(Ev.orphaned) = {r \in Requests : holder[r] = w \/ backup[r] = w}
    /\ SetOf(Ev.promoted) = {r \in Requests : holder[r] = w /\ backup[r] # None}
    /\ Fail(w)

RouteEv == LET r == Ev.req IN
    /\ CitedLoadsHold
    /\ (Ev.mode = "RESTORE") = UseHolder(r)
    /\ Ev.freed = Saved(r)
    /\ Route(r)
    /\ r \in runq'[Ev.worker]
    /\ Len(kv'[r]) = Ev.resumed

AssistEv == LET r == Ev.req IN
    /\ CitedLoadsHold
    /\ Assist(Ev.worker, r)
    /\ proposal'[r].toks = AbsDraft(r, Ev.draft)

FullReadyEv == LET w == Ev.worker IN
    /\ SetOf(Ev.dropped) = {r \in Requests : proposal[r] # None /\ proposal[r].src = w}
    /\ FullReady(w)

(***************************************************************************)
(* The verdict.  TLC explores every behaviour that matches the log (they   *)
(* differ only where the spec leaves a choice the log does not pin) and    *)
(* prints each time some behaviour matches an event further than before.  *)
(* The trace is ACCEPTED when the last line printed is Len(TraceLog);      *)
(* otherwise event (last printed + 1) is the first no behaviour matches.   *)
(* TLC register 1 holds the furthest match; it needs one TLC worker.       *)
(***************************************************************************)
Report(n) == n > TLCGet(1) => (TLCSet(1, n) /\ PrintT(<<"lumen-trace-matched", n>>))

TraceNext ==
    /\ l <= Len(TraceLog)
    /\ CASE Ev.type = "Arrive"     -> ArriveEv /\ l' = l + 1
         [] Ev.type = "Place"      -> PlaceEv /\ l' = l + 1
         [] Ev.type = "Prefill"    -> PrefillEv /\ l' = l + 1
         [] Ev.type = "Decode"     -> DecodeEv /\ l' = l + 1
         [] Ev.type = "StreamPage" -> StreamPageEv /\ l' = IF StreamedTo(Ev.req) = Ev.ckpt THEN l + 1 ELSE l
         [] Ev.type = "Complete"   -> CompleteEv /\ l' = l + 1
         [] Ev.type = "Fail"       -> FailEv /\ l' = l + 1
         [] Ev.type = "Route"      -> RouteEv /\ l' = l + 1
         [] Ev.type = "Restart"    -> Restart(Ev.worker) /\ l' = l + 1
         [] Ev.type = "DraftReady" -> DraftReady(Ev.worker) /\ l' = l + 1
         [] Ev.type = "Assist"     -> AssistEv /\ l' = l + 1
         [] Ev.type = "FullReady"  -> FullReadyEv /\ l' = l + 1
    /\ Report(l' - 1)

TraceInit == Init /\ l = 1 /\ TLCSet(1, 0) /\ PrintT(<<"lumen-trace-matched", 0>>)

TraceSpec == TraceInit /\ [][TraceNext]_traceVars

=============================================================================
