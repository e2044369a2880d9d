---------------------------- MODULE GrayFailure ----------------------------
(***************************************************************************)
(* Gray failures and fencing.  A failure is the gateway's detection (its   *)
(* heartbeat timed out), not the truth: under GrayFailures the worker it   *)
(* declares failed may live on, a zombie with its old state, and go on     *)
(* writing what it was writing when it was suspected: the next token of a  *)
(* request it served, to the gateway; the next page of that request's KV,  *)
(* to the holder it streamed to.  Fail raises the worker's epoch in the    *)
(* step that interrupts its requests (the fence, FailureRouting), and the  *)
(* gateway and every holder accept a worker's write only under its         *)
(* current epoch.  A zombie's writes carry the epoch it was failed at, so  *)
(* each is refused; it stops at any time (it learns of the fence and      *)
(* resets, or dies), and it writes at most what it had left to write, so  *)
(* its writes are finitely many and liveness is untouched.                 *)
(*                                                                         *)
(* Ghost state records the truth the properties are stated on, whatever   *)
(* the epochs say: gray.leaked counts the zombie tokens a gateway let      *)
(* through, and a page a zombie wrote is tagged as such in whatever copy   *)
(* takes it.  (A property keyed on the epochs would pass a system that     *)
(* never raises them.)                                                     *)
(***************************************************************************)
EXTENDS DraftHandover

\* Whether the gateway takes a token that w's incarnation of epoch e wrote (the fence).
GatewayTakes(w, e) == e = gray.epoch[w]

\* Whether holder h takes a page that w's incarnation of epoch e wrote (the fence).
HolderTakes(h, w, e) == e = gray.epoch[w]

\* Whether the gateway takes an acknowledgement that w's incarnation of epoch e sent (the fence).
AckTakes(w, e) == e = gray.epoch[w]

\* A page a zombie wrote, as its holder's copy: tagged, so that no copy can pass for a live one.
ZombieCopy(p, h) == <<p[1], p[2], h, "zombie">>

\* The zombie of w sends r's next token as it computes it, right, from its own KV: the gateway
\* takes it into r's open stream only under w's current epoch.
ZombieToken(w, r) ==
    LET z == gray.zombie[w] IN
    /\ z # None
    /\ r \in DOMAIN z.out
    /\ Len(z.out[r]) < Len(Ref[r])
    /\ LET t == Ref[r][Len(z.out[r]) + 1]
           takes == GatewayTakes(w, z.epoch) /\ phase[r] \notin {"NEW", "DONE"} /\ Len(out[r]) < Len(Ref[r])
       IN  /\ out' = IF takes THEN [out EXCEPT ![r] = Append(@, t)] ELSE out
           /\ gray' = [gray EXCEPT !.zombie[w].out[r] = Append(@, t),
                                   !.refused = IF takes THEN @ ELSE @ + 1,
                                   !.leaked = IF takes THEN @ + 1 ELSE @]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, proposal, failures,
                   stored, reserved, atarget, rload, seen>>

\* The zombie of w streams r's next page from its own KV (the pages it holds, in order) to the
\* holder it streamed to; the holder takes it, at the position it stands at, only under w's
\* current epoch.
ZombiePage(w, r) ==
    LET z == gray.zombie[w] IN
    /\ z # None
    /\ r \in DOMAIN z.kv
    /\ z.next[r] <= Len(z.kv[r])
    /\ LET h == z.holder[r]
           i == z.next[r]
           takes == /\ h # None /\ holder[r] = h /\ wstate[h] = "UP" /\ Len(ckpt[r]) = i - 1
                    /\ phase[r] \in {"QUEUED", "DECODE"} /\ HolderTakes(h, w, z.epoch)
       IN  /\ ckpt' = IF takes THEN [ckpt EXCEPT ![r] = Append(@, ZombieCopy(z.kv[r][i], h))] ELSE ckpt
           /\ stored' = IF takes THEN [stored EXCEPT ![h] = @ + 1] ELSE stored
           /\ gray' = [gray EXCEPT !.zombie[w].next[r] = @ + 1, !.refused = IF takes THEN @ ELSE @ + 1]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, backup, bckpt, out, proposal, failures,
                   reserved, atarget, rload, seen>>

\* The zombie of w, a holder when it was failed, acknowledges the copy of r its host memory still
\* holds (its late acknowledgement of the pages it stored) to the gateway.  The gateway lost r's
\* holder with w's failure; it takes the acknowledgement only under w's current epoch.  Taken
\* while r is still unprotected and w is UP again, it makes w r's holder again with that copy,
\* each page of which was stored by the fenced incarnation (tagged as the zombie's).
ZombieAck(w, r) ==
    LET z == gray.zombie[w] IN
    /\ z # None
    /\ r \in DOMAIN z.held
    /\ LET takes == /\ AckTakes(w, z.epoch) /\ wstate[w] = "UP" /\ holder[r] = None /\ placed[r]
                    /\ phase[r] \in {"QUEUED", "DECODE"} /\ r \notin runq[w] /\ backup[r] # w
       IN  /\ holder' = IF takes THEN [holder EXCEPT ![r] = w] ELSE holder
           /\ ckpt' = IF takes THEN [ckpt EXCEPT ![r] = [i \in 1..Len(z.held[r]) |-> ZombieCopy(z.held[r][i], w)]] ELSE ckpt
           /\ stored' = IF takes THEN [stored EXCEPT ![w] = @ + Len(z.held[r])] ELSE stored
           /\ reserved' = IF takes THEN [reserved EXCEPT ![w] = @ + Size(r)] ELSE reserved
           /\ gray' = [gray EXCEPT !.zombie[w].held = [q \in DOMAIN @ \ {r} |-> @[q]],
                                   !.refused = IF takes THEN @ ELSE @ + 1]
    /\ UNCHANGED <<wstate, active, phase, runq, placed, kv, backup, bckpt, out, proposal, failures,
                   atarget, rload, seen>>

\* The zombie stops: it learns of the fence and resets, or it dies.
ZombieStops(w) ==
    /\ gray.zombie[w] # None
    /\ gray' = [gray EXCEPT !.zombie[w] = None]
    /\ UNCHANGED <<wstate, active, phase, runq, holder, placed, kv, ckpt, backup, bckpt, out, proposal, failures,
                   stored, reserved, atarget, rload, seen>>

ZombieNext(w) == ZombieStops(w) \/ \E r \in Requests : ZombieToken(w, r) \/ ZombiePage(w, r) \/ ZombieAck(w, r)

-----------------------------------------------------------------------------
(* Properties *)

\* S18: no token of a fenced epoch reaches a client: no token a zombie wrote, whatever its epoch.
S18_NoFencedTokenDeliveredInv == gray.leaked = 0

\* S19: no page of a fenced epoch enters a checkpoint or a backup copy, nor, through a restore,
\* the KV a request is served from.
FromZombie(p) == Len(p) = 4
S19(r) == /\ \A i \in 1..Len(ckpt[r]) : ~FromZombie(ckpt[r][i])
          /\ \A i \in 1..Len(bckpt[r]) : ~FromZombie(bckpt[r][i])
          /\ \A i \in 1..Len(kv[r]) : ~FromZombie(kv[r][i])
S19_NoFencedPageInv == \A r \in Requests : S19(r)

=============================================================================
