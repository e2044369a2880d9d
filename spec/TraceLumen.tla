----------------------------- MODULE TraceLumen -----------------------------
(***************************************************************************)
(* Trace validation: is a recorded trace a behaviour of the composed spec, *)
(* and does every property hold along it?                                  *)
(*                                                                         *)
(* In the manner of CCF's and etcd's trace specs.  `lumen validate --tlc`  *)
(* generates a small module from a JSON Lines trace (trace contract v1 or  *)
(* v2, docs/trace-format.md) that EXTENDS this one and defines TraceLog,   *)
(* the events as records, and the constants the trace's header and Arrive  *)
(* events fix.                                                             *)
(*                                                                         *)
(* Each event is applied AS REPORTED (Apply): the spec state after it is   *)
(* what the event claims, not what the spec would have done.  TraceInv     *)
(* then names the first thing wrong with the step, in one order shared     *)
(* with the Java mirror (lumen.core.PropertyId.rank): an invariant the new *)
(* state breaks (S1..S11, S13, S15, by ID), an action property the step    *)
(* breaks (S12, S14, S16, A1..A6), a bounded fairness obligation (L3, L4), *)
(* and last "step" when the step is not one of the spec's actions (the     *)
(* spec's own action formula, evaluated on the reported pre- and post-     *)
(* state).  So TLC checks every property at the trace's own constants,     *)
(* not only at the CI models' bounds.  The trace is a behaviour of the     *)
(* spec in which every property holds exactly when TraceInv holds to the  *)
(* end of the log.                                                         *)
(*                                                                         *)
(*  event (JSON type)  spec action        as reported                      *)
(*  -----------------  -----------------  -------------------------------  *)
(*  Arrive             Arrive(req)        req queued on worker             *)
(*  Place              Place(req)         holder, backup, empty copies     *)
(*  Prefill            Prefill(req)       tokens appended, KV to KvLen,    *)
(*                                        served by worker                 *)
(*  Decode             Decode(req)        tokens appended, their KV        *)
(*  StreamPage         StreamPage(req)^n  the copy on holder grows to ckpt *)
(*                                        (pages whose digest differs from *)
(*                                        what the server wrote: a Hole)   *)
(*  Complete           Complete(req)      DONE; freed positions freed      *)
(*  Fail               Fail(worker)       the listed requests interrupted, *)
(*                                        the listed copies lost, promoted *)
(*                                        backups take over; the worker's  *)
(*                                        queue is gone whatever is listed *)
(*  Route              Route(req)         queued on worker, resuming with  *)
(*                                        resumed positions (a restored    *)
(*                                        page that is not the holder's    *)
(*                                        copy comes from Elsewhere)       *)
(*  ZombieToken        ZombieToken(w, r)  the zombie's view moves on; a    *)
(*                                        token accepted joins the client's *)
(*                                        output and counts as leaked (S18) *)
(*  ZombiePage         ZombiePage(w, r)   a page accepted joins the copy,   *)
(*                                        tagged as the zombie's (S19)      *)
(*  ZombieStops        ZombieStops(w)     the zombie is gone               *)
(*  ZombieAck          ZombieAck(w, r)    an acknowledgement accepted makes *)
(*                                        w r's holder again with its copy, *)
(*                                        tagged as the zombie's (S19)      *)
(*  (Fail fences its worker and records its zombie, GrayFailures being on   *)
(*  in every generated trace module.)                                      *)
(*  Restart, DraftReady, Assist, FullReady: as the spec's, with the draft  *)
(*  abstracted to what verification can tell of it (AbsDraft); a target a  *)
(*  DraftReady names is the session's target (assistTarget=session), and   *)
(*  is a most loaded UP worker under either reading (A3).                  *)
(*  "loads" (on Place, Route, Assist and a DraftReady that names a        *)
(*  target; optional under citedLoads = "exact"): each UP worker's cited   *)
(*  load equals Load(w) before the step, else the decision's property.     *)
(*  Under citedLoads = "stale" a decision that rests on the gateway's      *)
(*  monitor must cite its loads: each UP worker's is its Load at one of    *)
(*  the states the event's window (Ev.win, which the generator computes    *)
(*  from the header's bound, in events or in milliseconds) reaches back   *)
(*  to, and never at an earlier state than the one its last cited load     *)
(*  came from (a monitor's reports arrive in order).  A View step, which   *)
(*  no event reports, sets the spec's seen to the cited loads first, so    *)
(*  the spec's own action judges the decision on them.                     *)
(*                                                                         *)
(* Content (v2): wdig, hdig and bdig hold, per request, the digest of each *)
(* (page, count) as the server wrote it and as the holder's and backup's  *)
(* copies received it; TLC compares digests, as the Java ContentTracker    *)
(* does, and turns them into the spec's page tags.                         *)
(*                                                                         *)
(* Trade-offs, each sound for the verdict:                                 *)
(*  - A draft is abstracted to its tokens up to the first that disagrees   *)
(*    with the reference, then Wrong (DraftProposals' shape).  Verified    *)
(*    gives the same tokens for the draft and for its abstraction.         *)
(*  - Loads and Theta: the generator refuses non-integral Alpha or Beta   *)
(*    (TLC has no reals).  Loads are then integers, so L <= theta is       *)
(*    L <= floor(theta), and Theta is set to the floor.  A cited load that *)
(*    is not an integer is written as -1, which no load equals.           *)
(*  - A trace's tokens are appended to its client's output as reported,   *)
(*    so the output only grows here; S16 on a trace is a step that sends  *)
(*    again tokens the client has (ReSent), reported as S16 rather than as *)
(*    the S7 its repeated tokens also make.                                *)
(***************************************************************************)
EXTENDS Lumen, Integers, TLC

CONSTANTS
    TraceLog,       \* <<event, event, ...>>: the trace's events, in order
    Elsewhere,      \* a model value: the source of restored bytes that are not the holder's copy
    FairnessSteps,  \* the bound of the finite-trace fairness checks L3 and L4 (0: off)
    LoadWindow,     \* citedLoads = "stale": the most states any event's window reaches back (0: none)
    HiddenPlace,    \* a partial trace whose Place steps are not logged: they are searched for
    HiddenLoads,    \* a partial trace whose decisions cite no loads: under "stale", every report is tried
    CopiesUnseen    \* a partial trace whose StreamPage steps show sizes only: the copies' bytes are not observed

VARIABLES
    l,      \* the index in TraceLog of the next event
    tR,     \* the requests the last event touched (its invariants are checked on them)
    tW,     \* the workers the last event touched
    pending, \* what the last step broke as a step: an action property, a fairness bound, "step", or "none"
    wdig,   \* wdig[r]: <<first, count>> :> digest of r's pages as its server wrote them
    hdig,   \* hdig[r]: the same for the copy on r's holder
    bdig,   \* bdig[r]: the same for the copy on r's backup
    slag,   \* slag[<<r, c>>]: r's decode steps with copy c ("h" or "b") a page behind, no StreamPage, at which
            \* r's server had streamed nothing since r's previous decode step
    sst,    \* sst.sent[w]: the StreamPage steps of requests w served; sst.seen[r]: sst.sent of r's server
            \* at r's last decode step (none since r was placed, routed or streamed: no entry)
    amiss,  \* amiss[w]: "none" while ASSISTING w has proposed nothing in this stint, "some" once it has
    aopp,   \* aopp[<<w, r>>]: r's latest consecutive decode steps at which w could have proposed, in a stint with none
    aexc,   \* the <<w, r>> where another worker proposed for r during w's stint with none (excused at w's handover)
    lh,     \* lh[w]: citedLoads = "stale": Load(w) in the last LoadWindow states before this one, oldest first
    lfrom,  \* lfrom[w]: the state (by index in TraceLog) w's last cited load came from; none earlier may
    syn,    \* a hidden Place about to be applied (HiddenPlace), or NoEv
    hid,    \* whether the last step applied a hidden Place
    hl      \* <<l, loads>>: the loads the hidden View chose for event l (HiddenLoads), <<-l, loads>> for the
            \* hidden Place before it, or <<0, <<>>>>

auxVars == <<tR, tW, pending, wdig, hdig, bdig, slag, sst, amiss, aopp, aexc, lh, lfrom, syn, hid, hl>>
traceVars == <<vars, l, auxVars>>

\* The event the next step applies: the next logged one, or a hidden Place the search chose.
NoEv == [type |-> "none"]
Ev == IF syn = NoEv THEN TraceLog[l] ELSE syn

SetOf(s) == {s[i] : i \in 1..Len(s)}
NoDup(s) == Len(s) = Cardinality(SetOf(s))
Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b

NoDigests == [x \in {} |-> 0]
Put(f, k, v) == (k :> v) @@ f
Has(f, k) == k \in DOMAIN f

\* A draft as verification sees it: its agreeing prefix, then Wrong.
AbsDraft(r, d) ==
    LET n == Len(out[r])
        agrees(i) == \A j \in 1..i : n + j <= Len(Ref[r]) /\ d[j] = Ref[r][n + j]
    IN  [i \in 1..Len(d) |-> IF agrees(i) THEN d[i] ELSE Wrong]

\* The content an event carries, if any (a v1 event has none).
HasPages == "pages" \in DOMAIN Ev
PagesOf == IF HasPages THEN Ev.pages ELSE <<>>

\* The pages positions from..to touch, page-aligned, each with the count a copy holding 1..to has.
Shape(from, to) ==
    IF to < from THEN <<>>
    ELSE LET k0 == (from - 1) \div PageTokens
             k1 == (to - 1) \div PageTokens
         IN  [i \in 1..(k1 - k0 + 1) |->
                LET first == (k0 + i - 1) * PageTokens + 1
                IN  <<first, Min((k0 + i) * PageTokens, to) - first + 1>>]

ShapeOK(from, to) ==
    ~HasPages \/ (Len(Ev.pages) = Len(Shape(from, to))
                  /\ \A i \in 1..Len(Ev.pages) : <<Ev.pages[i][1], Ev.pages[i][2]>> = Shape(from, to)[i])

\* The entry of the event's content that covers position p.
EntryAt(p) == CHOOSE i \in 1..Len(Ev.pages) : Ev.pages[i][1] <= p /\ p < Ev.pages[i][1] + Ev.pages[i][2]

Resize(s, n) == [i \in 1..n |-> IF i <= Len(s) THEN s[i] ELSE Hole]

-----------------------------------------------------------------------------
(* Each event, as reported. *)

ServedBy(r, w) == runq' = [runq EXCEPT ![w] = @ \cup {r}]

ApplyArrive == LET r == Ev.req IN
    /\ runq' = [runq EXCEPT ![Ev.worker] = @ \cup {r}]
    /\ phase' = [phase EXCEPT ![r] = "QUEUED"]
    /\ placed' = [placed EXCEPT ![r] = FALSE]
    /\ UNCHANGED <<wstate, active, holder, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

\* The rebackup reading's step: r keeps its holder and its copy and gains a backup.
IsRebackup(r) == placed[r] /\ holder[r] # None /\ Ev.holder = holder[r] /\ backup[r] = None

ApplyPlace == LET r == Ev.req
                  released(w) == (IF holder[r] = w THEN 1 ELSE 0) + (IF backup[r] = w THEN 1 ELSE 0)
                  taken(w) == (IF Ev.holder = w THEN 1 ELSE 0) + (IF Ev.backup = w THEN 1 ELSE 0)
              IN
    IF IsRebackup(r)
    THEN /\ backup' = [backup EXCEPT ![r] = Ev.backup]
         /\ bckpt' = [bckpt EXCEPT ![r] = <<>>]
         /\ reserved' = [w \in Workers |-> reserved[w] + (IF Ev.backup = w THEN Size(r) ELSE 0)]
         /\ UNCHANGED <<holder, ckpt, placed, stored, wstate, active, phase, runq, kv, out, proposal, failures, atarget, rload, seen, gray>>
         /\ bdig' = [bdig EXCEPT ![r] = NoDigests]
         /\ UNCHANGED <<wdig, hdig>>
    ELSE
    /\ holder' = [holder EXCEPT ![r] = Ev.holder]
    /\ backup' = [backup EXCEPT ![r] = Ev.backup]
    /\ ckpt' = [ckpt EXCEPT ![r] = <<>>]
    /\ bckpt' = [bckpt EXCEPT ![r] = <<>>]
    /\ placed' = [placed EXCEPT ![r] = TRUE]
    /\ reserved' = [w \in Workers |-> reserved[w] + (taken(w) - released(w)) * Size(r)]
    /\ stored' = [w \in Workers |-> stored[w] - (IF holder[r] = w THEN Len(ckpt[r]) ELSE 0)
                                               - (IF backup[r] = w THEN Len(bckpt[r]) ELSE 0)]
    /\ UNCHANGED <<wstate, active, phase, runq, kv, out, proposal, failures, atarget, rload, seen, gray>>
    /\ hdig' = [hdig EXCEPT ![r] = NoDigests]
    /\ bdig' = [bdig EXCEPT ![r] = NoDigests]
    /\ UNCHANGED wdig

\* The server's own writes: recorded as the truth for r's pages.
Record(r) == wdig' = [wdig EXCEPT ![r] = LET new == IF HasPages THEN Ev.pages ELSE <<>> IN
                        [k \in DOMAIN @ \cup {<<new[i][1], new[i][2]>> : i \in 1..Len(new)} |->
                            IF \E i \in 1..Len(new) : <<new[i][1], new[i][2]>> = k
                            THEN new[CHOOSE i \in 1..Len(new) : <<new[i][1], new[i][2]>> = k][3]
                            ELSE @[k]]]

ApplyPrefill == LET r == Ev.req
                    newOut == out[r] \o Ev.tokens
                    target == PromptLen[r] + Len(newOut) - 1
                IN
    /\ out' = [out EXCEPT ![r] = newOut]
    /\ kv' = [kv EXCEPT ![r] = IF Len(@) < target THEN @ \o Written(r, Len(@) + 1, target) ELSE @]
    /\ phase' = [phase EXCEPT ![r] = "DECODE"]
    /\ ServedBy(r, Ev.worker)
    /\ Record(r)
    /\ UNCHANGED <<wstate, active, holder, placed, ckpt, backup, bckpt, proposal, failures, stored, reserved, atarget, rload, seen, gray>>
    /\ UNCHANGED <<hdig, bdig>>

ApplyDecode == LET r == Ev.req IN
    /\ out' = [out EXCEPT ![r] = @ \o Ev.tokens]
    /\ kv' = [kv EXCEPT ![r] = @ \o Written(r, Len(@) + 1, Len(@) + Len(Ev.tokens))]
    /\ proposal' = [proposal EXCEPT ![r] = None]
    /\ ServedBy(r, Ev.worker)
    /\ Record(r)
    /\ UNCHANGED <<wstate, active, phase, holder, placed, ckpt, backup, bckpt, failures, stored, reserved, atarget, rload, seen, gray>>
    /\ UNCHANGED <<hdig, bdig>>

\* Which copy a StreamPage grows: the backup's when it names the backup, else the holder's.
ToBackup(r) == backup[r] # None /\ Ev.holder = backup[r] /\ Ev.holder # holder[r]

\* Position i as the copy receives it: the server's page, or a Hole where the server has none
\* or the copied bytes are not what the server wrote.
Copied(r, i, from) ==
    LET src == IF i <= Len(kv[r]) THEN kv[r][i] ELSE Hole
        e == Ev.pages[EntryAt(i)]
        same == ~HasPages \/ ~ShapeOK(from, Ev.ckpt) \/ (Has(wdig[r], <<e[1], e[2]>>) /\ wdig[r][<<e[1], e[2]>>] = e[3])
    IN  IF same THEN CopyTo(src, Ev.holder) ELSE CopyTo(Hole, Ev.holder)

\* A copy's digests after the event's pages.
Received(f) == LET new == PagesOf IN
    [k \in DOMAIN f \cup {<<new[i][1], new[i][2]>> : i \in 1..Len(new)} |->
        IF \E i \in 1..Len(new) : <<new[i][1], new[i][2]>> = k
        THEN new[CHOOSE i \in 1..Len(new) : <<new[i][1], new[i][2]>> = k][3] ELSE f[k]]

ApplyStream == LET r == Ev.req
                   c == IF ToBackup(r) THEN bckpt[r] ELSE ckpt[r]
                   grown == IF Ev.ckpt <= Len(c) THEN c ELSE c \o [j \in 1..(Ev.ckpt - Len(c)) |-> Copied(r, Len(c) + j, Len(c) + 1)]
                   owner == IF ToBackup(r) THEN backup[r] ELSE holder[r]
               IN
    /\ IF ToBackup(r)
       THEN /\ bckpt' = [bckpt EXCEPT ![r] = grown] /\ UNCHANGED ckpt
            /\ bdig' = [bdig EXCEPT ![r] = Received(@)] /\ UNCHANGED hdig
       ELSE /\ ckpt' = [ckpt EXCEPT ![r] = grown] /\ UNCHANGED bckpt
            /\ hdig' = [hdig EXCEPT ![r] = Received(@)] /\ UNCHANGED bdig
    /\ stored' = IF owner = None THEN stored ELSE [stored EXCEPT ![owner] = @ + (Len(grown) - Len(c))]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, out, proposal, failures, reserved, atarget, rload, seen, gray>>
    /\ UNCHANGED wdig

(***************************************************************************)
(* Freeing as reported: Ev.freed positions, the backup's copy first; a     *)
(* copy freed whole releases its holder and its reservation, a copy freed *)
(* in part keeps the rest (a leak, which S8 names).                       *)
(***************************************************************************)
FreeAsReported(r) ==
    LET left0 == Max(0, Ev.freed)
        bwhole == backup[r] # None /\ left0 >= Len(bckpt[r])
        left1 == IF backup[r] = None THEN left0 ELSE IF bwhole THEN left0 - Len(bckpt[r]) ELSE 0
        bkeep == IF backup[r] = None \/ bwhole THEN 0 ELSE Len(bckpt[r]) - left0
        hwhole == holder[r] # None /\ left1 >= Len(ckpt[r])
        hkeep == IF holder[r] = None \/ hwhole THEN 0 ELSE Len(ckpt[r]) - left1
    IN  /\ backup' = [backup EXCEPT ![r] = IF backup[r] # None /\ ~bwhole THEN backup[r] ELSE None]
        /\ bckpt' = [bckpt EXCEPT ![r] = SubSeq(bckpt[r], 1, bkeep)]
        /\ holder' = [holder EXCEPT ![r] = IF holder[r] # None /\ ~hwhole THEN holder[r] ELSE None]
        /\ ckpt' = [ckpt EXCEPT ![r] = SubSeq(ckpt[r], 1, hkeep)]
        /\ stored' = [w \in Workers |-> stored[w] - (IF backup[r] = w THEN Len(bckpt[r]) - bkeep ELSE 0)
                                                   - (IF holder[r] = w THEN Len(ckpt[r]) - hkeep ELSE 0)]
        /\ reserved' = [w \in Workers |-> reserved[w] - (IF backup[r] = w /\ bwhole THEN Size(r) ELSE 0)
                                                       - (IF holder[r] = w /\ hwhole THEN Size(r) ELSE 0)]

ApplyComplete == LET r == Ev.req IN
    /\ phase' = [phase EXCEPT ![r] = "DONE"]
    /\ runq' = IF Server(r) = None THEN runq ELSE [runq EXCEPT ![Server(r)] = @ \ {r}]
    /\ kv' = [kv EXCEPT ![r] = <<>>]
    /\ proposal' = [proposal EXCEPT ![r] = None]
    /\ FreeAsReported(r)
    /\ UNCHANGED <<wstate, active, placed, out, failures, atarget, rload, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

ApplyFail == LET w == Ev.worker
                 lost == SetOf(Ev.interrupted)
                 gone == SetOf(Ev.orphaned)
                 promoted == SetOf(Ev.promoted)
                 asBackup(r) == r \in gone /\ backup[r] = w /\ holder[r] # w
                 asHolder(r) == r \in gone /\ holder[r] = w
                 promote(r) == asHolder(r) /\ r \in promoted /\ backup[r] # None
             IN
    /\ wstate' = [wstate EXCEPT ![w] = "FAILED"]
    /\ active' = [active EXCEPT ![w] = "NONE"]
    /\ runq' = [v \in Workers |-> IF v = w THEN {} ELSE runq[v] \ lost]
    /\ phase' = [r \in Requests |-> IF r \in lost THEN "INTERRUPTED" ELSE phase[r]]
    /\ kv' = [r \in Requests |-> IF r \in lost THEN <<>> ELSE kv[r]]
    /\ holder' = [r \in Requests |-> IF promote(r) THEN backup[r] ELSE IF asHolder(r) THEN None ELSE holder[r]]
    /\ ckpt' = [r \in Requests |-> IF promote(r) THEN bckpt[r] ELSE IF asHolder(r) THEN <<>> ELSE ckpt[r]]
    /\ backup' = [r \in Requests |-> IF promote(r) \/ asBackup(r) THEN None ELSE backup[r]]
    /\ bckpt' = [r \in Requests |-> IF promote(r) \/ asBackup(r) THEN <<>> ELSE bckpt[r]]
    /\ proposal' = [r \in Requests |->
                      IF r \in lost \/ (proposal[r] # None /\ proposal[r].src = w) THEN None ELSE proposal[r]]
    /\ stored' = [stored EXCEPT ![w] = @ - SumOf({r \in gone : asBackup(r)}, [r \in Requests |-> Len(bckpt[r])])
                                         - SumOf({r \in gone : asHolder(r)}, [r \in Requests |-> Len(ckpt[r])])]
    /\ reserved' = [reserved EXCEPT ![w] = @ - SumOf({r \in gone : asBackup(r) \/ asHolder(r)}, [r \in Requests |-> Size(r)])]
    /\ failures' = failures + 1
    /\ atarget' = [atarget EXCEPT ![w] = None]
    /\ rload' = RouteLoadsAfterFail(lost \cup {r \in Requests : phase[r] = "INTERRUPTED"})
    /\ seen' = [seen EXCEPT ![w] = 0]
    \* the fence: the incarnation it ends may live on as a zombie, the latest one a trace names
    /\ gray' = [gray EXCEPT !.epoch[w] = FailEpoch(w), !.zombie[w] = ZombieOf(w)]
    /\ UNCHANGED <<out, placed>>
    \* what a lost request's server wrote stays until the request is routed (Restored)
    /\ wdig' = wdig
    /\ hdig' = [r \in Requests |-> IF promote(r) THEN bdig[r] ELSE IF asHolder(r) THEN NoDigests ELSE hdig[r]]
    /\ bdig' = [r \in Requests |-> IF promote(r) \/ asBackup(r) THEN NoDigests ELSE bdig[r]]

\* Position i as a RESTORE brings it back: the holder's page, or bytes from Elsewhere when the
\* restored digest is not the holder's copy's: that copy's page re-tagged, or, past the copy (or
\* over a hole in it), r's own position i when the digest is what r's failed server wrote, else
\* the hole. When the copies' bytes are not observed (CopiesUnseen), the restored digest is held
\* to what r's server wrote: the holder's page when it is, a Hole when it is not.
Restored(r, i) ==
    LET p == Resize(ckpt[r], Ev.resumed)[i]
        e == Ev.pages[EntryAt(i)]
        key == <<e[1], e[2]>>
        same == ~HasPages \/ ~ShapeOK(1, Ev.resumed) \/ (Has(hdig[r], key) /\ hdig[r][key] = e[3])
        wrote == Has(wdig[r], key) /\ wdig[r][key] = e[3]
    IN  CASE CopiesUnseen -> IF ~HasPages \/ ~ShapeOK(1, Ev.resumed) \/ wrote THEN p ELSE Hole
          [] same -> p
          [] Len(p) = 3 -> <<p[1], p[2], Elsewhere>>
          [] wrote -> <<r, i, Elsewhere>>
          [] OTHER -> p

ApplyRoute == LET r == Ev.req IN
    /\ kv' = [kv EXCEPT ![r] = IF Ev.mode = "RESTORE" THEN [i \in 1..Ev.resumed |-> Restored(r, i)]
                                ELSE Resize(<<>>, Ev.resumed)]
    /\ runq' = [runq EXCEPT ![Ev.worker] = @ \cup {r}]
    /\ phase' = [phase EXCEPT ![r] = "QUEUED"]
    /\ placed' = [placed EXCEPT ![r] = FALSE]
    /\ FreeAsReported(r)
    /\ rload' = RouteLoadsAfterRoute(r, Ev.worker)
    /\ UNCHANGED <<wstate, active, out, proposal, failures, atarget, seen, gray>>
    /\ wdig' = [wdig EXCEPT ![r] = IF Ev.mode = "RESTORE" THEN Received(NoDigests) ELSE NoDigests]
    /\ hdig' = [hdig EXCEPT ![r] = NoDigests]
    /\ bdig' = [bdig EXCEPT ![r] = NoDigests]

ApplyRestart == LET w == Ev.worker IN
    /\ wstate' = [wstate EXCEPT ![w] = IF DraftAssist THEN "LOADING_DRAFT" ELSE "LOADING_FULL"]
    /\ active' = [active EXCEPT ![w] = "NONE"]
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, atarget, rload, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

\* A target the event names (session reading), else none chosen yet.
NamesTarget == "target" \in DOMAIN Ev

ApplyDraftReady == LET w == Ev.worker IN
    /\ wstate' = [wstate EXCEPT ![w] = "ASSISTING"]
    /\ active' = [active EXCEPT ![w] = "DRAFT"]
    /\ atarget' = [atarget EXCEPT ![w] = IF Readings.assistTarget = "session" /\ NamesTarget THEN Ev.target ELSE None]
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures, stored, reserved, rload, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

ApplyAssist == LET r == Ev.req IN
    /\ proposal' = [proposal EXCEPT ![r] = [src |-> Ev.worker, tgt |-> Server(r), toks |-> AbsDraft(r, Ev.draft)]]
    /\ atarget' = IF Readings.assistTarget = "session" THEN [atarget EXCEPT ![Ev.worker] = Server(r)] ELSE atarget
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, failures, stored, reserved, rload, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

ApplyFullReady == LET w == Ev.worker
                      dropped == SetOf(Ev.dropped)
                  IN
    /\ wstate' = [wstate EXCEPT ![w] = "UP"]
    /\ active' = [active EXCEPT ![w] = "FULL"]
    /\ proposal' = [r \in Requests |-> IF r \in dropped /\ proposal[r] # None /\ proposal[r].src = w
                                       THEN None ELSE proposal[r]]
    /\ atarget' = [atarget EXCEPT ![w] = None]
    /\ rload' = IF RouteIncrement THEN [rload EXCEPT ![w] = 0] ELSE rload
    /\ UNCHANGED <<phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, failures, stored, reserved, seen, gray>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

\* The zombie of Ev.worker has a view of Ev.req (else the step is not the spec's, and gray stays).
ZombieServed == gray.zombie[Ev.worker] # None /\ Ev.req \in DOMAIN gray.zombie[Ev.worker].out

\* A zombie's token: the zombie's own view advances by the spec's token, whatever value it showed (a
\* refused token reaches no one); a token the gateway took is appended to its client's output as
\* reported, and counted as leaked (S18).
ApplyZombieToken == LET w == Ev.worker
                        r == Ev.req
                    IN
    /\ gray' = LET z == gray.zombie[w]
                   t == IF Len(z.out[r]) < Len(Ref[r]) THEN Ref[r][Len(z.out[r]) + 1] ELSE Wrong
               IN  [gray EXCEPT !.zombie[w] = IF ZombieServed THEN [@ EXCEPT !.out[r] = Append(@, t)] ELSE @,
                                !.refused = IF Ev.accepted THEN @ ELSE @ + 1,
                                !.leaked = IF Ev.accepted THEN @ + 1 ELSE @]
    /\ out' = IF Ev.accepted THEN [out EXCEPT ![r] = Append(@, Ev.token)] ELSE out
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, proposal, failures,
                   stored, reserved, atarget, rload, seen>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

\* A zombie's page: a page the holder took joins its copy tagged as the zombie's (S19), whatever its bytes.
ApplyZombiePage == LET w == Ev.worker
                       r == Ev.req
                       h == Ev.holder
                       toBackup == backup[r] # None /\ h = backup[r] /\ h # holder[r]
                       taken == Ev.accepted /\ ZombieServed /\ (h = holder[r] \/ toBackup)
                       p == IF ZombieServed /\ gray.zombie[w].next[r] <= Len(gray.zombie[w].kv[r])
                            THEN gray.zombie[w].kv[r][gray.zombie[w].next[r]] ELSE Hole
                   IN
    /\ gray' = [gray EXCEPT !.zombie[w] = IF ZombieServed THEN [@ EXCEPT !.next[r] = @ + 1] ELSE @,
                             !.refused = IF Ev.accepted THEN @ ELSE @ + 1]
    /\ ckpt' = IF taken /\ ~toBackup THEN [ckpt EXCEPT ![r] = Append(@, ZombieCopy(p, h))] ELSE ckpt
    /\ bckpt' = IF taken /\ toBackup THEN [bckpt EXCEPT ![r] = Append(@, ZombieCopy(p, h))] ELSE bckpt
    /\ stored' = IF taken THEN [stored EXCEPT ![h] = @ + 1] ELSE stored
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, out, proposal, failures,
                   reserved, atarget, rload, seen>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

\* A zombie's acknowledgement of a copy it held: one the gateway took makes its worker r's holder
\* again with that copy, tagged as the zombie's (S19).
ApplyZombieAck == LET w == Ev.worker
                      r == Ev.req
                      held == gray.zombie[w] # None /\ r \in DOMAIN gray.zombie[w].held
                      taken == Ev.accepted /\ held /\ holder[r] = None
                      copy == IF held THEN gray.zombie[w].held[r] ELSE <<>>
                  IN
    /\ gray' = [gray EXCEPT !.zombie[w] = IF held THEN [@ EXCEPT !.held = [q \in DOMAIN @ \ {r} |-> @[q]]] ELSE @,
                             !.refused = IF Ev.accepted THEN @ ELSE @ + 1]
    /\ holder' = IF taken THEN [holder EXCEPT ![r] = w] ELSE holder
    /\ ckpt' = IF taken THEN [ckpt EXCEPT ![r] = [i \in 1..Len(copy) |-> ZombieCopy(copy[i], w)]] ELSE ckpt
    /\ stored' = IF taken THEN [stored EXCEPT ![w] = @ + Len(copy)] ELSE stored
    /\ reserved' = IF taken THEN [reserved EXCEPT ![w] = @ + Size(r)] ELSE reserved
    /\ UNCHANGED <<wstate, active, phase, runq, placed, kv, backup, bckpt, out, proposal, failures, atarget, rload, seen>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

ApplyZombieStops ==
    /\ gray' = IF gray.zombie[Ev.worker] = None THEN gray ELSE [gray EXCEPT !.zombie[Ev.worker] = None]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures,
                   stored, reserved, atarget, rload, seen>>
    /\ UNCHANGED <<wdig, hdig, bdig>>

Apply ==
    CASE Ev.type = "Arrive"     -> ApplyArrive
      [] Ev.type = "Place"      -> ApplyPlace
      [] Ev.type = "Prefill"    -> ApplyPrefill
      [] Ev.type = "Decode"     -> ApplyDecode
      [] Ev.type = "StreamPage" -> ApplyStream
      [] Ev.type = "Complete"   -> ApplyComplete
      [] Ev.type = "Fail"       -> ApplyFail
      [] Ev.type = "Route"      -> ApplyRoute
      [] Ev.type = "Restart"    -> ApplyRestart
      [] Ev.type = "DraftReady" -> ApplyDraftReady
      [] Ev.type = "Assist"     -> ApplyAssist
      [] Ev.type = "FullReady"  -> ApplyFullReady
      [] Ev.type = "ZombieToken" -> ApplyZombieToken
      [] Ev.type = "ZombiePage" -> ApplyZombiePage
      [] Ev.type = "ZombieStops" -> ApplyZombieStops
      [] Ev.type = "ZombieAck" -> ApplyZombieAck

-----------------------------------------------------------------------------
(* Bounded fairness on a finite trace (L3, L4), as lumen.validate.Mirror. *)

\* r's copy (holder's or backup's) is a whole page behind its server's KV, on a live holder.
\* (Under the stored budget reading a holder without room for a whole page is exempt.)
Behind(r, h, c) == h # None /\ wstate[h] = "UP" /\ Len(kv[r]) - Len(c) >= PageTokens
                   /\ (Readings.budget = "reserve" \/ stored[h] + PageTokens <= Budget)

LagKeys(r) == {<<r, "h">>, <<r, "b">>}

\* The state (index in TraceLog) each of the last Len(lh[w]) loads was seen in, and w's load there.
LoadAt(w, j) == IF j = l THEN Load(w) ELSE lh[w][Len(lh[w]) - (l - j) + 1]
\* Under citedLoads = "stale", the least and the most w's load was in the event's window: what
\* any report the monitor could hold says of it.
WinLoads(w) == {LoadAt(w, j) : j \in Max(l - Ev.win, l - Len(lh[w]))..l}
MinWin(w) == CHOOSE x \in WinLoads(w) : \A y \in WinLoads(w) : x <= y
MaxWin(w) == CHOOSE x \in WinLoads(w) : \A y \in WinLoads(w) : x >= y

\* Whether w may propose for a request on u now: AssistTargetsOf(w); under "stale", unless u is
\* w's kept target, only when u is most loaded by every report the monitor could hold (a bounded
\* fairness obligation must not rest on reports the trace does not show).
MayPropose(w, u) == IF ~StaleLoads THEN u \in AssistTargetsOf(w)
                    ELSE IF KeptTarget(w) # None THEN u = KeptTarget(w)
                    ELSE \A v \in Serving : MinWin(u) >= MaxWin(v)

\* Whether w could have proposed a draft for r at r's decode step now.
Missed(w, r) == /\ w \in DOMAIN amiss /\ amiss[w] = "none" /\ wstate[w] = "ASSISTING"
                /\ proposal[r] = None /\ Len(out[r]) < Len(Ref[r])
                /\ Server(r) # None /\ wstate[Server(r)] = "UP"
                /\ MayPropose(w, Server(r))

\* Whether r's server, w, streamed nothing since r's previous decode step (true at r's first decode
\* since it was placed, routed or streamed). Only such a step counts for L3: a server streams one
\* page at a time, and one busy with other requests' pages has not failed to stream.
StreamIdle(r, w) == ~Has(sst.seen, r) \/ sst.seen[r] = sst.sent[w]

Fair ==
    CASE Ev.type = "Decode" ->
           LET r == Ev.req
               idle == IF Ev.worker \in Workers /\ StreamIdle(r, Ev.worker) THEN 1 ELSE IF Ev.worker \in Workers THEN 0 ELSE 1
               lagH == IF Behind(r, holder[r], ckpt[r]) THEN (IF Has(slag, <<r, "h">>) THEN slag[<<r, "h">>] ELSE 0) + idle ELSE 0
               lagB == IF Behind(r, backup[r], bckpt[r]) THEN (IF Has(slag, <<r, "b">>) THEN slag[<<r, "b">>] ELSE 0) + idle ELSE 0
               opp == {w \in DOMAIN amiss : Missed(w, r)}
           IN  /\ slag' = [k \in (DOMAIN slag \ LagKeys(r))
                                 \cup {x \in LagKeys(r) : (x[2] = "h" /\ lagH > 0) \/ (x[2] = "b" /\ lagB > 0)} |->
                              IF k = <<r, "h">> THEN lagH ELSE IF k = <<r, "b">> THEN lagB ELSE slag[k]]
               /\ sst' = IF Ev.worker \in Workers THEN [sst EXCEPT !.seen = (r :> sst.sent[Ev.worker]) @@ sst.seen] ELSE sst
               \* a worker that could not propose for r at this step starts its count on r over: weak
               \* fairness asks only for an action that stays possible, so the steps counted are consecutive
               /\ aopp' = [k \in {x \in DOMAIN aopp : x[2] # r} \cup {<<w, r>> : w \in opp} |->
                              IF k[2] = r THEN (IF Has(aopp, k) THEN aopp[k] ELSE 0) + 1 ELSE aopp[k]]
               /\ UNCHANGED <<amiss, aexc>>
      [] Ev.type \in {"StreamPage", "Place", "Route", "Complete"} ->
           /\ slag' = [k \in DOMAIN slag \ LagKeys(Ev.req) |-> slag[k]]
           /\ LET sent == IF Ev.type = "StreamPage" /\ Server(Ev.req) # None
                           THEN [sst.sent EXCEPT ![Server(Ev.req)] = @ + 1] ELSE sst.sent
              IN  sst' = [sent |-> sent, seen |-> [x \in DOMAIN sst.seen \ {Ev.req} |-> sst.seen[x]]]
           /\ UNCHANGED <<amiss, aopp, aexc>>
      [] Ev.type = "DraftReady" ->
           /\ amiss' = (Ev.worker :> "none") @@ amiss
           /\ aexc' = {k \in aexc : k[1] # Ev.worker}
           /\ UNCHANGED <<slag, sst, aopp>>
      [] Ev.type = "Assist" ->
           /\ amiss' = (Ev.worker :> "some") @@ amiss
           /\ aopp' = [k \in {x \in DOMAIN aopp : x[1] # Ev.worker} |-> aopp[k]]
           \* the request was assisted: every other idle worker's missed steps on it are excused
           /\ aexc' = aexc \cup {<<w, Ev.req>> : w \in {v \in DOMAIN amiss : amiss[v] = "none" /\ v # Ev.worker}}
           /\ UNCHANGED <<slag, sst>>
      [] Ev.type \in {"FullReady", "Fail"} ->
           /\ amiss' = [w \in DOMAIN amiss \ {Ev.worker} |-> amiss[w]]
           /\ aopp' = [k \in {x \in DOMAIN aopp : x[1] # Ev.worker} |-> aopp[k]]
           /\ aexc' = {k \in aexc : k[1] # Ev.worker}
           /\ UNCHANGED <<slag, sst>>
      [] OTHER -> UNCHANGED <<slag, sst, amiss, aopp, aexc>>

\* L3 at a completion: a request may not complete with a copy that lagged its KV by a whole page, on a
\* live holder with room, across CompleteBound of its decode steps with no StreamPage: the bound is
\* the decode's own, so a short decode cannot outlast it as it can FairnessSteps.
CompleteBound == Min(FairnessSteps, 4)
L3_Bounded == \/ FairnessSteps = 0
              \/ Ev.type \notin {"Decode", "Complete"}
              \/ Ev.type = "Decode" /\ \A k \in DOMAIN slag' : k[1] = Ev.req => slag'[k] <= FairnessSteps
              \/ Ev.type = "Complete" /\ \A k \in DOMAIN slag : k[1] = Ev.req => slag[k] < CompleteBound \/ slag[k] > FairnessSteps
\* L4 at a handover: a stint that ends with no draft proposed, although its worker could have proposed
\* for some request at HandoverBound or more consecutive decode steps of that request, did not assist.  The
\* bound is the stint's own (three steps: the target iteration in flight when the draft model is
\* ready and the one during which it drafts may pass without a draft, not a third), so it cannot
\* outlast a short assist period as the bound at a Decode (FairnessSteps) can.
HandoverBound == Min(FairnessSteps, 3)
L4_Bounded == \/ FairnessSteps = 0
              \/ Ev.type \notin {"Decode", "FullReady"}
              \/ Ev.type = "Decode" /\ \A k \in DOMAIN aopp' : k[2] = Ev.req => aopp'[k] <= FairnessSteps
              \/ Ev.type = "FullReady" /\ \A k \in DOMAIN aopp : k[1] = Ev.worker /\ k \notin aexc => aopp[k] < HandoverBound

-----------------------------------------------------------------------------
(* Is the reported step one of the spec's? Each spec action, evaluated on the reported
   pre- and post-state; a StreamPage event is several one-position StreamPage steps. *)

StreamPagesStep(r) ==
    LET toB == ToBackup(r)
        owner == IF toB THEN backup[r] ELSE holder[r]
        c == IF toB THEN bckpt[r] ELSE ckpt[r]
        n == Ev.ckpt - Len(c)
    IN  /\ phase[r] \in {"QUEUED", "DECODE"}
        /\ owner # None /\ Ev.holder = owner
        /\ n >= 1 /\ Ev.ckpt <= StreamLimit(r)
        /\ (Readings.budget = "reserve" \/ stored[owner] + n <= Budget)
        /\ (IF toB THEN bckpt'[r] ELSE ckpt'[r]) = c \o [j \in 1..n |-> CopyTo(kv[r][Len(c) + j], owner)]
        /\ (IF toB THEN ckpt' = ckpt ELSE bckpt' = bckpt)
        /\ stored' = [stored EXCEPT ![owner] = @ + n]
        /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, out, proposal, failures, reserved, atarget, rload, seen, gray>>

\* A target a DraftReady names is a most loaded UP worker (A3), under either reading.
NamedTargetOK == Ev.type = "DraftReady" /\ NamesTarget => MostLoaded(Ev.target)

(***************************************************************************)
(* Cited loads.  Under citedLoads = "exact" they are the loads the         *)
(* decision is taken on: Load now, Algorithm 2's on a Route.  Under        *)
(* "stale", a decision that rests on the monitor (UsesView) must cite      *)
(* them, and each UP worker's cited load is its Load at a state of the     *)
(* event's window no earlier than lfrom[w].                               *)
(***************************************************************************)
UsesView == /\ StaleLoads
            /\ \/ Ev.type = "Place" /\ LoadAwarePlacement
               \/ Ev.type = "Route" /\ ~RouteIncrement     \* Eq. 6's L(h), or the re-prefill argmin (every policy)
               \/ Ev.type = "Assist"
               \/ Ev.type = "DraftReady" /\ NamesTarget
Cited == \/ "loads" \in DOMAIN Ev
         \/ syn = NoEv /\ HiddenLoads /\ hl[1] = l
         \/ syn # NoEv /\ hl[1] = -l
\* The loads the event cites: its own, or those the hidden View chose (HiddenLoads, or a hidden Place).
EvLoads == IF "loads" \in DOMAIN Ev THEN Ev.loads ELSE hl[2]
\* The states w's cited load may come from: the event's window, from lfrom[w], that lh still holds.
\* A hidden Place took place after event l - 1 was logged and before event l: its window is l - 1's,
\* reaching on to the state now (a Place changes no UP worker's load, and is not a state of any window).
WinStart == IF syn = NoEv THEN l - Ev.win ELSE IF l > 1 THEN l - 1 - TraceLog[l - 1].win ELSE l
WindowOf(w) == Max(Max(WinStart, lfrom[w]), l - Len(lh[w]))..l
Matches(w) == {j \in WindowOf(w) : LoadAt(w, j) = EvLoads[w + 1]}
SeenOK(w) == Matches(w) # {}
\* What the spec's seen becomes before the decision: the cited loads of the UP workers.
CitedView == [w \in Workers |-> IF wstate[w] = "UP" THEN EvLoads[w + 1] ELSE seen[w]]

CitedLoadsHold ==
    IF UsesView THEN Cited /\ \A w \in Workers : wstate[w] = "UP" => SeenOK(w)
    ELSE Cited =>
        \A w \in Workers : wstate[w] = "UP" => EvLoads[w + 1] = IF Ev.type = "Route" THEN RouteLoad(w) ELSE Load(w)

\* The history after the event: this state's loads remembered, and where each cited load came from.
History ==
    /\ lh' = IF syn # NoEv THEN lh   \* a hidden step is not a state of the windows
             ELSE [w \in Workers |-> LET h == Append(lh[w], Load(w)) IN
                                    IF Len(h) > LoadWindow THEN SubSeq(h, Len(h) - LoadWindow + 1, Len(h)) ELSE h]
    /\ lfrom' = IF UsesView /\ Cited
                THEN [w \in Workers |-> IF wstate[w] = "UP" /\ SeenOK(w)
                                        THEN CHOOSE j \in Matches(w) : \A i \in Matches(w) : j <= i
                                        ELSE lfrom[w]]
                ELSE lfrom

\* The reservations a placement cites are the counters before it (S15 ties them to the sums).
CitedReservedHold ==
    "reserved" \in DOMAIN Ev => \A w \in Workers : Ev.reserved[w + 1] = reserved[w]

\* The content's shape: every page the event's positions touch.
ContentShapeOK ==
    CASE Ev.type = "Prefill" -> ShapeOK(Len(kv[Ev.req]) + 1, IF out[Ev.req] = <<>> THEN PromptLen[Ev.req] ELSE KvLen(Ev.req))
      [] Ev.type = "Decode" -> ShapeOK(Len(kv[Ev.req]) + 1, Len(kv[Ev.req]) + Len(Ev.tokens))
      [] Ev.type = "StreamPage" -> ShapeOK((IF ToBackup(Ev.req) THEN Len(bckpt[Ev.req]) ELSE Len(ckpt[Ev.req])) + 1, Ev.ckpt)
      [] Ev.type = "Route" -> IF Ev.mode = "RESTORE" THEN ShapeOK(1, Ev.resumed) ELSE (~HasPages \/ Ev.pages = <<>>)
      [] OTHER -> TRUE

SpecStepOK ==
    /\ ContentShapeOK
    /\ CASE Ev.type = "Arrive"     -> Arrive(Ev.req)
         [] Ev.type = "Place"      -> Place(Ev.req)
         [] Ev.type = "Prefill"    -> Server(Ev.req) = Ev.worker /\ Prefill(Ev.req)
         [] Ev.type = "Decode"     -> Server(Ev.req) = Ev.worker /\ Decode(Ev.req)
         [] Ev.type = "StreamPage" -> StreamPagesStep(Ev.req)
         [] Ev.type = "Complete"   -> /\ Server(Ev.req) = Ev.worker
                                      /\ Ev.freed = Len(ckpt[Ev.req]) + Len(bckpt[Ev.req])
                                      /\ Complete(Ev.req)
         [] Ev.type = "Fail"       -> /\ NoDup(Ev.interrupted) /\ NoDup(Ev.orphaned) /\ NoDup(Ev.promoted)
                                      /\ SetOf(Ev.interrupted) = runq[Ev.worker]
                                      /\ SetOf(Ev.orphaned) = {r \in Requests : holder[r] = Ev.worker \/ backup[r] = Ev.worker}
                                      /\ SetOf(Ev.promoted) = {r \in Requests : holder[r] = Ev.worker /\ backup[r] # None}
                                      /\ Fail(Ev.worker)
         [] Ev.type = "Route"      -> /\ (Ev.mode = "RESTORE") = UseHolder(Ev.req)
                                      /\ Ev.freed = Len(ckpt[Ev.req]) + Len(bckpt[Ev.req])
                                      /\ Route(Ev.req)
         [] Ev.type = "Restart"    -> Restart(Ev.worker)
         [] Ev.type = "DraftReady" -> DraftReady(Ev.worker)
         [] Ev.type = "Assist"     -> Assist(Ev.worker, Ev.req)
         [] Ev.type = "FullReady"  -> /\ NoDup(Ev.dropped)
                                      /\ SetOf(Ev.dropped) = {r \in Requests : proposal[r] # None /\ proposal[r].src = Ev.worker}
                                      /\ FullReady(Ev.worker)
         [] Ev.type = "ZombieToken" -> ZombieToken(Ev.worker, Ev.req)
         [] Ev.type = "ZombiePage" -> /\ ZombieServed /\ Ev.holder = gray.zombie[Ev.worker].holder[Ev.req]
                                      /\ ZombiePage(Ev.worker, Ev.req)
         [] Ev.type = "ZombieStops" -> ZombieStops(Ev.worker)
         [] Ev.type = "ZombieAck" -> ZombieAck(Ev.worker, Ev.req)

\* S12 on a trace: a RESTORE the policy's rule calls for lands on the live holder with exactly its
\* checkpoint.  A route that is not the rule's decision (a re-prefill the rule would restore, a restore
\* it would not) breaks S12_Step too when the rule restores, and is named by the rule it breaks (A2
\* under Eq. 6, A5 under the baselines), which says more.
S12_Trace == (Ev.type = "Route" /\ Ev.mode = "RESTORE") => S12_Step

(***************************************************************************)
(* S16 on a trace: the step sends again tokens its client has.  Where a   *)
(* Prefill's or a Decode's tokens are not those the spec delivers, and     *)
(* they are the reference's from a position the client already has, they *)
(* are sent again (a re-prefill that restarts the output, a restore that   *)
(* repeats the last token).                                                *)
(***************************************************************************)
SpecTokens(r) ==
    IF Ev.type = "Prefill"
    THEN IF out[r] = <<>> THEN <<TargetToken(r, kv[r] \o Written(r, Len(kv[r]) + 1, PromptLen[r]), 1)>> ELSE <<>>
    ELSE IF Len(out[r]) < Len(Ref[r]) THEN DecodeTokens(r) ELSE <<>>

ReSent ==
    LET r == Ev.req
        n == Len(Ev.tokens)
    IN  /\ Ev.type \in {"Prefill", "Decode"}
        /\ n > 0 /\ Ev.tokens # SpecTokens(r)
        /\ \E j \in 1..Len(out[r]) : j + n - 1 <= Len(Ref[r]) /\ Ev.tokens = SubSeq(Ref[r], j, j + n - 1)

\* S17 on a trace: a Decode delivers several tokens at once, the reference's next ones, for a request
\* with no draft in flight: it verifies a draft that is not (or no longer) in flight for its server,
\* such as one kept across the failure that interrupted the request.  Without a draft a decode
\* delivers one token.
DraftNotInFlight ==
    LET r == Ev.req
        n == Len(out[r])
    IN  /\ Ev.type = "Decode" /\ proposal[r] = None /\ Len(Ev.tokens) > 1
        /\ n + Len(Ev.tokens) <= Len(Ref[r])
        /\ Ev.tokens = SubSeq(Ref[r], n + 1, n + Len(Ev.tokens))

\* On a trace a route's mode is its decision: RESTORE exactly when the policy's rule restores (a
\* re-prefill on the holder of an empty checkpoint has a restore's effect, so A2_Step and A5_Step,
\* which judge the effect, cannot tell the two apart).
RouteModeFollowsRule == Ev.type # "Route" \/ phase[Ev.req] # "INTERRUPTED" \/ ((Ev.mode = "RESTORE") = RuleRestores(Ev.req))

\* What the step breaks as a step, in lumen.core.PropertyId.rank's order, or "none".  A route's cited
\* loads are its rule's (A2 under Eq. 6, A5 otherwise), a placement's its rule's (A1 or A4).
StepWrong ==
    CASE Ev.type = "ZombieToken" /\ Ev.accepted -> "S18"
      [] Ev.type \in {"ZombiePage", "ZombieAck"} /\ Ev.accepted -> "S19"
      [] ~CitedReservedHold -> "S15"
      [] DraftNotInFlight -> "S17"
      [] ~S12_Trace -> "S12"
      [] ~S14_Step -> "S14"
      [] ReSent -> "S16"
      [] ~A1_Step \/ (Ev.type = "Place" /\ LoadAwarePlacement /\ ~CitedLoadsHold) -> "A1"
      [] ~A2_Step \/ (Ev.type = "Route" /\ Eq6Routing /\ (~CitedLoadsHold \/ ~RouteModeFollowsRule)) -> "A2"
      [] ~A3_Step \/ (Ev.type \in {"Assist", "DraftReady"} /\ ~CitedLoadsHold) \/ ~NamedTargetOK -> "A3"
      [] ~A4_Step \/ (Ev.type = "Place" /\ ~LoadAwarePlacement /\ ~CitedLoadsHold) -> "A4"
      [] ~A5_Step \/ (Ev.type = "Route" /\ ~Eq6Routing /\ (~CitedLoadsHold \/ ~RouteModeFollowsRule)) -> "A5"
      [] ~A6_Step -> "A6"
      [] ~L3_Bounded -> "L3"
      [] ~L4_Bounded -> "L4"
      [] ~SpecStepOK -> "step"
      [] OTHER -> "none"

\* The first invariant broken by some request of R or worker of W, in rank order, or "none".
\* A zombie's write that a fence let through is named by its own property first (S18, S19): the
\* token or page it let in may break S7 or S6 as well, which say less.  Nothing else breaks them.
InvWrong(R, W) ==
    CASE ~S18_NoFencedTokenDeliveredInv -> "S18"
      [] \E r \in R : ~S19(r) -> "S19"
      [] \E r \in R : ~S1(r) -> "S1"
      [] \E r \in R : ~S2(r) -> "S2"
      [] \E w \in W : ~S3(w) -> "S3"
      [] \E r \in R : ~S4(r) -> "S4"
      [] \E w \in W : ~S5(w) -> "S5"
      [] \E r \in R : ~S6(r) -> "S6"
      [] \E r \in R : ~S7(r) -> "S7"
      [] \E r \in R : ~S8(r) -> "S8"
      [] \E r \in R : ~S9(r) -> "S9"
      [] \E w \in W : ~S10(w) -> "S10"
      [] (\E w \in W : ~S11W(w)) \/ (\E r \in R : ~S11R(r)) -> "S11"
      [] \E r \in R : ~S13(r) -> "S13"
      [] \E w \in W : ~S15(w) -> "S15"
      [] \E r \in R : ~S17(r) -> "S17"
      [] OTHER -> "none"

\* What an event can have changed: its request (every request, for a worker's event) and the
\* workers whose queue, copies or counters it changed.
WorkerEvent == Ev.type \in {"Fail", "FullReady", "Restart", "DraftReady"}
TouchedR == IF WorkerEvent THEN Requests ELSE IF "req" \in DOMAIN Ev THEN {Ev.req} ELSE {}
TouchedW ==
    IF WorkerEvent THEN Workers
    ELSE IF "req" \notin DOMAIN Ev THEN {Ev.worker}
    ELSE LET r == Ev.req IN
         {w \in Workers : \/ r \in runq[w] \/ r \in runq'[w]
                          \/ w \in {holder[r], holder'[r], backup[r], backup'[r]}
                          \/ ("worker" \in DOMAIN Ev /\ Ev.worker = w)
                          \/ ("holder" \in DOMAIN Ev /\ Ev.holder = w)}

(***************************************************************************)
(* The verdict.  Each event is applied as reported; the step records what  *)
(* it touched and what it broke as a step (pending).  TraceInv then judges  *)
(* the new state: the invariants on what the event touched first, then     *)
(* pending, and prints <<"lumen-trace-violation", line index, what>> for   *)
(* the first wrong event, which ends the check.  After the last event it  *)
(* checks every invariant on the whole state and prints                   *)
(* <<"lumen-trace-end", unfinished>>: the requests not DONE plus the      *)
(* workers not UP (for INCOMPLETE).  Every event has exactly one reported *)
(* successor (after the View step it may need first), so TLC follows one *)
(* path.                                                                   *)
(***************************************************************************)
Unfinished == Cardinality({r \in Requests : phase[r] # "DONE"}) + Cardinality({w \in Workers : wstate[w] # "UP"})

\* The gateway's monitor before a decision under citedLoads = "stale": seen becomes the cited loads,
\* a step no event reports (the spec's Heartbeat steps that brought them, composed).
ViewPending == l <= Len(TraceLog) /\ UsesView /\ Cited /\ seen # CitedView

ViewStep ==
    /\ ViewPending
    /\ seen' = CitedView
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures,
                   stored, reserved, atarget, rload, gray, l, auxVars>>

(***************************************************************************)
(* Partial traces (HiddenPlace, HiddenLoads).  A step the system does not  *)
(* log is searched for, as etcd's trace validation skips unlogged steps:   *)
(* before a logged event, the search may apply a hidden Place of any       *)
(* request the spec lets it place, on any holder and backup the policy     *)
(* allows (HiddenPlaceStep: it chooses the Place, EventStep applies it as   *)
(* an event), and a decision that cites no loads under "stale" is judged   *)
(* on loads chosen among those each worker had in its window              *)
(* (ChooseLoads).  Under "stale" a hidden Place cites no loads either: it  *)
(* chooses them too, in the window of the logged event before it reaching *)
(* on to now (WinStart), since it took place after that event was logged;  *)
(* it is not itself a state of any window (lh), as it changes no UP        *)
(* worker's load.  TLC then follows every path: one that breaks something  *)
(* ends there (Clean), the violation printed for a logged event only, and  *)
(* the trace is accepted when some path reaches the end of the log.       *)
(***************************************************************************)
HiddenMode == HiddenPlace \/ HiddenLoads
Clean == ~HiddenMode \/ (InvWrong(tR, tW) = "none" /\ pending = "none")

\* Under "stale" a hidden Place's rule reads the report its hidden View brings (ChooseLoads, after
\* the choice): every candidate is tried, and the Place itself judges the choice on that report.
ViewPlace == StaleLoads /\ LoadAwarePlacement
OrNone(S) == IF S = {} THEN {None} ELSE S
HolderOrNone(r) == OrNone(IF ViewPlace THEN HolderCandidates(r) ELSE PlacementChoice(r))
BackupOrNone(r, h) == OrNone(IF ViewPlace /\ DualPlacement /\ h # None THEN HolderCandidates(r) \ {h} ELSE BackupChoice(r, h))
PlaceChoices(r) == IF placed[r] /\ holder[r] # None THEN {<<holder[r], b>> : b \in BackupOrNone(r, holder[r])}
                   ELSE UNION {{<<h, b>> : b \in BackupOrNone(r, h)} : h \in HolderOrNone(r)}
Placeable(r) == /\ phase[r] \in {"QUEUED", "DECODE"}
                /\ ~placed[r] \/ NeedsProtection(r)
                /\ Server(r) # None /\ wstate[Server(r)] = "UP"

HiddenPlaceStep ==
    /\ HiddenPlace /\ syn = NoEv /\ l <= Len(TraceLog) /\ Clean
    /\ \E r \in Requests : /\ Placeable(r)
                           /\ \E c \in PlaceChoices(r) : syn' = [type |-> "Place", req |-> r, holder |-> c[1], backup |-> c[2]]
    /\ UNCHANGED <<vars, l, tR, tW, pending, wdig, hdig, bdig, slag, sst, amiss, aopp, aexc, lh, lfrom, hid, hl>>

\* The loads a hidden View may bring for worker w: any it had in the event's window (0 for a worker not UP, unread).
\* A logged decision that cites none chooses them under HiddenLoads (hl[1] = l); a hidden Place always does (hl[1] = -l).
LoadChoicesOf(w) == IF wstate[w] = "UP" THEN {LoadAt(w, j) : j \in WindowOf(w)} ELSE {0}
\* The reports of workers 0..k-1 a hidden View may bring, one load each (Workers is 0..N-1), built
\* as a product so that TLC enumerates only those.
RECURSIVE LoadVectors(_)
LoadVectors(k) == IF k = 0 THEN {<<>>} ELSE {Append(v, x) : v \in LoadVectors(k - 1), x \in LoadChoicesOf(k - 1)}
HiddenViewPending == /\ l <= Len(TraceLog) /\ UsesView
                     /\ IF syn = NoEv THEN HiddenLoads /\ ~("loads" \in DOMAIN TraceLog[l]) /\ hl[1] # l
                        ELSE hl[1] # -l

ChooseLoads ==
    /\ HiddenViewPending /\ Clean
    /\ \E v \in LoadVectors(Cardinality(Workers)) : hl' = <<IF syn = NoEv THEN l ELSE -l, v>>
    /\ UNCHANGED <<vars, l, tR, tW, pending, wdig, hdig, bdig, slag, sst, amiss, aopp, aexc, lh, lfrom, syn, hid>>

EventStep ==
    /\ l <= Len(TraceLog)
    /\ Clean
    /\ ~ViewPending
    /\ ~HiddenViewPending
    /\ Apply
    /\ Fair
    /\ History
    /\ tR' = TouchedR
    /\ tW' = TouchedW
    /\ pending' = StepWrong
    /\ l' = IF syn = NoEv THEN l + 1 ELSE l
    /\ hid' = (syn # NoEv)
    /\ syn' = NoEv
    \* a hidden Place's choice is spent; a logged event's stays until the next one is chosen
    /\ hl' = IF syn = NoEv THEN hl ELSE <<0, <<>>>>

TraceNext == ViewStep \/ EventStep \/ HiddenPlaceStep \/ ChooseLoads

\* A step that re-sends tokens breaks S7 too (its tokens repeat the reference at later positions);
\* it is reported as the S16 it is.
TraceInv ==
    LET inv == InvWrong(tR, tW)
        v == IF inv # "none" /\ ~(inv = "S7" /\ pending = "S16") THEN inv ELSE pending
    IN  IF v # "none" THEN IF hid THEN TRUE   \* a hidden step that breaks something: not taken
                           ELSE PrintT(<<"lumen-trace-violation", l - 1, v>>) /\ HiddenMode
        ELSE IF l <= Len(TraceLog) THEN TRUE
        ELSE LET whole == InvWrong(Requests, Workers) IN
             IF whole # "none" THEN PrintT(<<"lumen-trace-violation", Len(TraceLog) + 1, whole>>) /\ HiddenMode
             \* a path to the end; a partial trace's search stops at the first finished one
             ELSE PrintT(<<"lumen-trace-end", Unfinished>>) /\ (~HiddenMode \/ Unfinished > 0)

TraceInit ==
    /\ Init
    /\ l = 1
    /\ tR = {}
    /\ tW = {}
    /\ pending = "none"
    /\ wdig = [r \in Requests |-> NoDigests]
    /\ hdig = [r \in Requests |-> NoDigests]
    /\ bdig = [r \in Requests |-> NoDigests]
    /\ slag = [x \in {} |-> 0]
    /\ sst = [sent |-> [w \in Workers |-> 0], seen |-> [x \in {} |-> 0]]
    /\ amiss = [x \in {} |-> "none"]
    /\ aopp = [x \in {} |-> 0]
    /\ aexc = {}
    /\ lh = [w \in Workers |-> <<>>]
    /\ lfrom = [w \in Workers |-> 1]
    /\ syn = NoEv
    /\ hid = FALSE
    /\ hl = <<0, <<>>>>

TraceSpec == TraceInit /\ [][TraceNext]_traceVars

=============================================================================
