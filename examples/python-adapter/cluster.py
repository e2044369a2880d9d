"""A small LUMEN cluster on a virtual clock, reporting trace contract v2 events.

Everything is a discrete-event simulation: `advance(t)` runs every timer due
up to `t`. Each spec action (arrive, place, prefill, decode, stream, complete,
fail, route, restart, draft_ready, assist, full_ready) has a method that applies
its effect and emits its event through `self.emit`; loads and reservations
cited in an event are those seen *before* the decision.

Gray failures (the `pause` command): the worker stalls, the failure detector
declares it failed (`Fail`, which fences it: its epoch rises), and it wakes
`forMs` later with the state it had, a zombie. It sends its next token to the
gateway and its next page to each request's holder, tagged with the epoch it
still has; the gateway and the holders take a write only under the worker's
current epoch, so each is refused (`ZombieToken`, `ZombiePage` with
`"accepted": false`), and the zombie, told so, stops (`ZombieStops`). The
`partition` command cuts the worker off from the gateway instead: declared
failed the same, it works on, so its pages reach the holders at once (refused),
and its tokens and acknowledgements reach the gateway when the partition heals
(refused), or are lost in it (`lossy`); at the heal it learns of its fence.

Policies (the init config's `policy`):

    lumen                placement argmin of Eq. 4 with room (Alg. 1), routing Eq. 6,
                         draft model, assist, atomic handover (Alg. 3)
    lumen-dual           as lumen, plus a backup holder per request
    stop-and-restart     no checkpoints, always re-prefill, full model reload only
    fixed-checkpointing  the ring neighbour holds (if it has room), always restore
                         on the holder, full model reload only
"""

import heapq
import random
import sys

from lumen_trace import TraceWriter
from lumen_trace.kv import KvModel, mix, pages as kv_pages
from lumen_trace.tokens import GOLDEN, M64, token

# Durations in virtual milliseconds. Any values work; these keep runs short.
PREFILL_MS_BASE, PREFILL_MS_PER_POS = 2.0, 0.05
DECODE_MS = 5.0
STREAM_MS = 1.0
DRAFT_LOAD_MS, FULL_LOAD_MS = 40.0, 400.0

POLICIES = ("lumen", "lumen-dual", "stop-and-restart", "fixed-checkpointing")
ACTIVE = ("QUEUED", "PREFILL", "DECODE")          # phases that sit in a run queue

# The synthetic model. Output token n of a request is the kit's token model
# (docs/conformance.md, "The reference"), but only while the KV the decoder reads is
# intact; a decoder reading corrupted KV emits a different token, as a real one would.
# The KV of context position i is the kit's KV content model (lumen_trace.kv), so a
# page copied from the wrong place or the wrong request has other bytes, hence another
# digest, which the kit predicts.
NEVER_WRITTEN = KvModel().zeros()                 # the bytes of a position nothing wrote: zeros


def wrong_token(seed, n, vocab):
    """What a decoder reading bad KV emits instead of token n: anything else."""
    return (token(seed, n, vocab) + 1) % vocab


def digest_over_metadata(first, held):
    """The bug `digest-over-metadata`: a page's digest taken over where the page is
    (its first position and count) instead of over its bytes."""
    return format(mix((first * GOLDEN + len(held)) & M64), "016x")


class Request:
    def __init__(self, rid, prompt_len, out_len, seed):
        self.id, self.prompt_len, self.out_len, self.seed = rid, prompt_len, out_len, seed
        self.phase = "QUEUED"
        self.server = None
        self.out = []            # tokens delivered so far
        self.kv = []             # the server's GPU KV: kv[i] is position i+1
        self.kv_ok = True        # does the KV the decoder reads match the true KV?
        self.holder = None       # checkpoint holder (None: unprotected)
        self.backup = None       # lumen-dual only
        self.copies = {}         # worker -> its host-memory copy (list of words)
        self.draft = None        # (assisting worker, proposed tokens) awaiting verification
        self.restoring = False   # between a RESTORE and the Prefill that completes it
        self.epoch = 0           # bumped when the request moves: stale timers are ignored

    def kv_len(self):
        """Positions the server must hold: the last token's KV is not written yet."""
        return self.prompt_len + len(self.out) - 1 if self.out else 0


class Worker:
    def __init__(self, wid):
        self.id, self.state, self.epoch = wid, "UP", 0   # epoch: the fence, raised by every Fail
        self.last_assist = -1.0  # spreads drafts over several assisting workers
        self.target = None       # Alg. 3 line 4: the survivor this worker assists in its session


class Cluster:
    def __init__(self, config, draft_agreement, vocab, out, bugs=(), kv_model=None):
        policy = config["policy"]
        if policy not in POLICIES:
            raise ValueError(f"policy {policy!r} is not implemented (only {', '.join(POLICIES)})")
        self.policy = policy
        # this implementation follows the default reading of every ambiguity (docs/readings.md),
        # and both readings of the assist target, of the cited loads (citedLoads=stale:N: a
        # load monitor that takes every worker's report once every N events) and of the
        # gateway's arrivals (arrival=any: round robin over the UP workers)
        defaults = {"queue": "run", "ringDirection": "next", "ringFallThrough": False, "rebackup": False,
                    "assistTarget": "session", "routeLoads": "recompute", "budget": "reserve", "citedLoads": "exact",
                    "arrival": "shortest"}
        readings = dict(config.get("readings", {}))
        self.session_target = readings.pop("assistTarget", "session") == "session"
        arrival = readings.pop("arrival", "shortest")
        if arrival not in ("shortest", "any"):
            raise ValueError(f"reading arrival={arrival!r} is not one of shortest, any")
        self.round_robin, self.next_arrival = arrival == "any", 0
        cited = readings.pop("citedLoads", "exact")
        self.report_every = None if cited == "exact" else int(cited[len("stale:"):]) if cited.startswith("stale:") and cited[6:].isdigit() else 1
        self.seen = [0.0] * int(config["workers"])   # the monitor: each worker's last reported load
        self.since_reports = 0
        for name, value in readings.items():
            if defaults.get(name, object()) != value:
                raise ValueError(f"reading {name}={value!r} is not implemented (only the defaults)")
        self.alpha, self.beta = float(config["alpha"]), float(config["beta"])
        self.theta, self.tau = float(config["theta"]), int(config["tau"])
        self.budget, self.page_tokens, self.k = int(config["budget"]), int(config["pageTokens"]), int(config["k"])
        self.workers = [Worker(w) for w in range(int(config["workers"]))]
        self.requests = {}
        self.vocab, self.draft_agreement = vocab, draft_agreement
        self.rng = random.Random(20240617)   # reset by every init: runs do not depend on each other
        self.bugs = set(bugs)
        self.kv_model = kv_model or KvModel()          # the shape of the kit's KV content model (init's kvModel)
        self.digest = digest_over_metadata if "digest-over-metadata" in self.bugs else None
        self.now, self.timers, self.seq = 0.0, [], 0
        self.armed = {w.id: [] for w in self.workers}   # failures waiting for a phase of work
        self.pauses = {w.id: [] for w in self.workers}  # of those, the gray ones: [point, (for_ms, cut)]
        self.pausing = None                             # the gray failure firing now: (ms, cut or None)
        # the events, checked against the trace contract as they are written; the kit writes the header
        self.trace = TraceWriter(out, config, header=False, flush=False)

    # ----------------------------------------------------------------- loads
    def up(self):
        return [w.id for w in self.workers if w.state == "UP"]

    def live(self):
        return [r for r in self.requests.values() if r.phase != "DONE"]

    def stored(self, w):
        return sum(len(r.copies[w]) for r in self.live() if w in r.copies)

    def queue(self, w):
        return sum(1 for r in self.live() if r.server == w and r.phase in ACTIVE)

    def exact_load(self, w):
        """Eq. 4: L(w) = alpha * sum |KV_r| held + beta * Q_w."""
        return self.alpha * self.stored(w) + self.beta * self.queue(w)

    def load(self, w):
        """The load decisions use: Eq. 4 now, or under citedLoads=stale the monitor's last report."""
        return self.exact_load(w) if self.report_every is None else self.seen[w]

    def reports(self):
        """The monitor takes every UP worker's report once every `report_every` events."""
        if self.report_every is None:
            return
        self.since_reports += 1
        if self.since_reports >= self.report_every:
            self.since_reports = 0
            self.seen = [self.exact_load(w.id) if w.state == "UP" else self.seen[w.id] for w in self.workers]

    def loads(self):
        return [self.load(w.id) for w in self.workers]

    def reserved(self, w):
        """Eq. 5 bookkeeping: what the checkpoints placed on w may grow to."""
        return sum(self.size(r) for r in self.live() if w in r.copies)

    def size(self, r):
        return r.prompt_len + r.out_len

    def least_loaded(self, candidates):
        return min(candidates, key=lambda w: (self.load(w), w), default=None)

    # ---------------------------------------------------------------- timers
    def at(self, t, action, *args):
        self.seq += 1
        heapq.heappush(self.timers, (t, self.seq, action, args))

    def advance(self, t):
        while self.timers and self.timers[0][0] <= t:
            due, _, action, args = heapq.heappop(self.timers)
            self.now = max(self.now, due)
            action(*args)
        self.now = max(self.now, t)

    def idle(self):
        return not self.live() and all(w.state in ("UP", "FAILED") for w in self.workers)

    def event(self, etype, **fields):
        self.trace.event(etype, t=round(self.now, 6), **fields)
        self.reports()

    # ------------------------------------------------------------- commands
    def arrive(self, rid, prompt_len, out_len, seed):
        r = Request(rid, prompt_len, out_len, seed)
        self.requests[rid] = r
        # The gateway: a shortest queue among UP workers, lowest id on a tie (arrival=shortest);
        # under arrival=any, round robin: the first UP worker from the one after the last chosen.
        if self.round_robin or "round-robin-gateway" in self.bugs:
            n = len(self.workers)
            r.server = next((self.next_arrival + i) % n for i in range(n)
                            if self.workers[(self.next_arrival + i) % n].state == "UP")
            self.next_arrival = (r.server + 1) % n
        else:
            r.server = min(self.up(), key=lambda w: (self.queue(w), w))
        ref = [token(seed, n, self.vocab) for n in range(1, out_len + 1)]
        self.event("Arrive", req=rid, worker=r.server, promptLen=prompt_len, ref=ref)
        self.place(r)
        self.start_prefill(r, 0)

    def pause_at(self, w, point, for_ms, cut=None):
        """The `pause` command (cut None) and the `partition` command (cut "delayed" or "lost"):
        a gray failure, fired as `fail_at` fires, that leaves a zombie."""
        if point == "AT_TIME":
            self.pausing = (for_ms, cut)
            self.fail_at(w, point)
            self.pausing = None
            return
        self.pauses[w].append([point, (for_ms, cut)])
        self.fail_at(w, point)

    def fail_at(self, w, point):
        """The `fail` command: now (AT_TIME), or at the first moment w is in `point`."""
        if point == "AT_TIME":
            # Not steps of the spec: a worker fails once, and someone stays UP.
            why = ("it is already FAILED" if self.workers[w].state == "FAILED"
                   else "no worker would be UP" if self.up() == [w] else None)
            if why:
                print(f"t={self.now}: ignoring the failure of worker {w}: {why}", file=sys.stderr)
            else:
                self.fail(w)
            return
        self.armed[w].append(point)
        if self.in_phase(w, point) and self.take_armed(w, point):
            self.fail(w)

    def in_phase(self, w, point):
        mine = [r for r in self.live() if r.server == w]
        if point == "MID_PREFILL":
            return any(r.phase == "PREFILL" and not r.restoring for r in mine)
        if point == "MID_RESTORE":
            return any(r.phase == "PREFILL" and r.restoring for r in mine)
        if point == "MID_DECODE":
            return any(r.phase == "DECODE" for r in mine)
        if point == "MID_HANDOVER":
            return self.workers[w].state == "ASSISTING"
        if point == "MID_VERIFY":
            return any(r.phase == "DECODE" and r.draft for r in mine)
        return False                              # MID_STREAM: caught in stream()

    def take_armed(self, w, point):
        """Is a failure of w waiting for `point`, and may it happen now? (Consumes it.)"""
        if point not in self.armed[w] or self.workers[w].state == "FAILED":
            return False
        if self.up() == [w]:                      # the spec's guard: someone must stay UP
            return False
        self.armed[w].remove(point)
        paused = next((p for p in self.pauses[w] if p[0] == point), None)
        if paused is not None:                    # a pause armed for this point: the failure is gray
            self.pauses[w].remove(paused)
            self.pausing = paused[1]
        return True

    def fail(self, w):
        worker = self.workers[w]
        pause, self.pausing = self.pausing, None
        if pause is not None:                     # gray: the stalled worker keeps its view, and wakes later
            zombie = {"epoch": worker.epoch, "reqs": {
                r.id: {"out": len(r.out), "kv": list(r.kv), "holder": r.holder,
                       "next": len(r.copies.get(r.holder, [])) + 1 if r.holder is not None else 1,
                       "seed": r.seed, "out_len": r.out_len}
                for r in self.live() if r.server == w and r.phase in ACTIVE},
                # the copies it held as a holder, which its host memory still has when it wakes
                "held": {r.id: list(r.copies[w]) for r in self.live() if r.holder == w and r.copies.get(w)}}
            for_ms, cut = pause
            if cut is None:                       # a pause: it wakes and writes all it was writing
                self.at(self.now + for_ms, self.zombie_writes, w, zombie, True, True, True)
            else:                                 # cut off from the gateway, it works on: its pages reach the
                # holders now; its tokens and acks reach the gateway at the heal, or are lost
                self.at(self.now, self.zombie_writes, w, zombie, False, True, False, False)
                self.at(self.now + for_ms, self.zombie_writes, w, zombie, cut == "delayed", False, cut == "delayed")
        worker.state, worker.epoch, worker.target = "FAILED", worker.epoch + 1, None
        self.seen[w] = 0.0                       # the monitor forgets a failed worker's report
        interrupted = sorted(r.id for r in self.live() if r.server == w and r.phase in ACTIVE)
        orphaned = sorted(r.id for r in self.live() if w in r.copies)
        promoted = []
        for rid in orphaned:                     # its host memory is gone
            r = self.requests[rid]
            del r.copies[w]
            if r.holder == w:
                if r.backup is not None:         # lumen-dual: the backup takes over with its copy
                    promoted.append(rid)
                r.holder, r.backup = r.backup, None
            elif r.backup == w:
                r.backup = None
        for r in self.live():                    # drafts die with either end
            if r.draft and (r.draft[0] == w or r.server == w):
                r.draft = None
        for rid in interrupted:                  # and so does the GPU memory
            r = self.requests[rid]
            r.phase, r.server, r.kv, r.epoch = "INTERRUPTED", None, [], r.epoch + 1
        fields = {"worker": w, "interrupted": interrupted, "orphaned": orphaned}
        if promoted:
            fields["promoted"] = promoted
        self.event("Fail", **fields)
        for rid in interrupted:
            self.route(self.requests[rid])

    # ----------------------------------------------------------- the fences
    def gateway_takes(self, w, epoch):
        """The gateway streams a worker's token only under the worker's current epoch."""
        return epoch == self.workers[w].epoch or "gateway-no-fence" in self.bugs

    def ack_takes(self, w, epoch):
        """The gateway takes a holder's acknowledgement only under the holder's current epoch."""
        return epoch == self.workers[w].epoch or "ack-no-fence" in self.bugs

    def holder_takes(self, w, epoch):
        """A holder stores a worker's page only under the worker's current epoch."""
        return epoch == self.workers[w].epoch or "holder-no-fence" in self.bugs

    def zombie_writes(self, w, zombie, tokens, pages, acks, stops=True):
        """The zombie carries on where it stood: its next token and next page per request, its
        acknowledgements as a holder; then, told of its fence, it stops."""
        e = zombie["epoch"]
        if self.workers[w].epoch != e + 1:
            # the worker was failed again while this incarnation stalled: the trace contract knows one
            # zombie per worker, the latest Fail's (docs/trace-format.md), so this older one stays silent
            return
        for rid in sorted(zombie["reqs"]):
            z, r = zombie["reqs"][rid], self.requests[rid]
            if tokens and z["out"] < z["out_len"]:
                late = token(z["seed"], z["out"] + 1, self.vocab)
                taken = self.gateway_takes(w, e) and r.phase != "DONE"
                if taken:                          # a gateway without the fence: the client gets it
                    r.out.append(late)
                self.event("ZombieToken", worker=w, req=rid, token=late, epoch=e, accepted=taken)
            h = z["holder"]
            if pages and h is not None and z["next"] <= len(z["kv"]):
                copy = r.copies.get(h)
                # the holder keeps pages by (request, position): it takes the page into the copy of the
                # request it holds now, if any, at the page's position
                taken = self.holder_takes(w, e) and copy is not None and z["next"] <= len(copy) + 1
                if taken:                          # a holder without the fence: the copy takes it
                    word = z["kv"][z["next"] - 1]
                    if z["next"] <= len(copy):
                        copy[z["next"] - 1] = word
                    else:
                        copy.append(word)
                self.event("ZombiePage", worker=w, req=rid, holder=h, epoch=e, accepted=taken)
        for rid in sorted(zombie["held"]) if acks else []:  # a holder: its late acknowledgements of the copies it kept
            r = self.requests[rid]
            taken = self.ack_takes(w, e) and r.phase != "DONE" and r.holder is None
            if taken:                              # a gateway without the fence: the copy is a checkpoint again
                r.holder, r.copies[w] = w, list(zombie["held"][rid])
            self.event("ZombieAck", worker=w, req=rid, epoch=e, accepted=taken)
        if stops:
            self.event("ZombieStops", worker=w)    # told of its fence, it resets

    def restart(self, w):
        worker = self.workers[w]
        with_draft = self.policy in ("lumen", "lumen-dual")
        worker.state = "LOADING_DRAFT" if with_draft else "LOADING_FULL"
        self.event("Restart", worker=w)
        if with_draft:
            self.at(self.now + DRAFT_LOAD_MS, self.draft_ready, w, worker.epoch)
        self.at(self.now + FULL_LOAD_MS, self.full_ready, w, worker.epoch)

    # ------------------------------------------------- mechanism 1: placement
    def choose_holders(self, r):
        """Algorithm 1 (or the policy's own rule): (holder, backup)."""
        def room(w):
            return self.reserved(w) + self.size(r) <= self.budget
        if self.policy == "stop-and-restart":
            return None, None
        if self.policy == "fixed-checkpointing":
            n = len(self.workers)
            ring = [(r.server + i) % n for i in range(1, n)]
            nxt = next((w for w in ring if self.workers[w].state == "UP"), None)
            return (nxt if nxt is not None and room(nxt) else None), None
        others = [w for w in self.up() if (w != r.server or "holder-is-server" in self.bugs) and room(w)]
        holder = self.least_loaded(others)
        backup = None
        if self.policy == "lumen-dual" and holder is not None:
            backup = self.least_loaded([w for w in others if w != holder])
        return holder, backup

    def place(self, r):
        loads, reserved = self.loads(), [self.reserved(w.id) for w in self.workers]
        r.holder, r.backup = self.choose_holders(r)
        r.copies = {w: [] for w in (r.holder, r.backup) if w is not None}
        fields = {"req": r.id, "holder": r.holder}
        if self.policy == "lumen-dual":
            fields["backup"] = r.backup
        self.event("Place", **fields, loads=loads, reserved=reserved)

    def reprotect(self, r):
        """S14: an unprotected request is placed again once a holder can be had."""
        if r.holder is None and "no-reprotection" not in self.bugs and self.choose_holders(r)[0] is not None:
            self.place(r)

    def stream(self, rid, epoch):
        """Copy every whole page the server has written and a copy lacks."""
        r = self.requests[rid]
        if r.epoch != epoch or r.phase != "DECODE" or "never-streams" in self.bugs:
            return
        pt = self.page_tokens
        target = r.kv_len() // pt * pt
        if any(w is not None and len(r.copies[w]) < target for w in (r.holder, r.backup)):
            for w in (r.server, r.holder, r.backup):
                if w is not None and self.take_armed(w, "MID_STREAM"):
                    self.fail(w)                  # the copy in flight is lost with it
                    return
        for w in (r.holder, r.backup):
            if w is None or len(r.copies[w]) >= target:
                continue
            copy = r.copies[w]
            old = len(copy)
            copy.extend(r.kv[old:target])
            self.event("StreamPage", req=rid, holder=w, ckpt=target,
                       pages=kv_pages(copy, old + 1, target, pt, self.digest))

    # --------------------------------------------------- mechanism 2: routing
    def route(self, r):
        """Eq. 6: restore on the holder if L(h) <= theta or |C_r| > tau, else re-prefill."""
        loads, h = self.loads(), r.holder
        if h is None:
            restore = False
        elif self.policy == "fixed-checkpointing":
            restore = True
        else:
            restore = self.load(h) <= self.theta or len(r.copies[h]) > self.tau
        freed = sum(len(c) for c in r.copies.values())
        if restore:
            saved = r.copies[h]
            resumed = len(saved)
            if "restore-past-checkpoint" in self.bugs and r.out:
                resumed = r.kv_len()   # believes the checkpoint is current
            r.kv = saved[:resumed] + [NEVER_WRITTEN] * (resumed - len(saved))
            r.kv_ok = all(word == self.kv_model.words(r.seed, i + 1) for i, word in enumerate(r.kv))
            target, mode, pages = h, "RESTORE", kv_pages(r.kv, 1, resumed, self.page_tokens, self.digest)
        else:
            target, mode, resumed, pages = self.least_loaded(self.up()), "REPREFILL", 0, []
            r.kv, r.kv_ok = [], True
        r.copies, r.holder, r.backup = {}, None, None
        r.server, r.phase, r.restoring = target, "QUEUED", restore
        self.event("Route", req=r.id, mode=mode, worker=target, resumed=resumed,
                   freed=freed, pages=pages, loads=loads)
        self.place(r)
        self.start_prefill(r, resumed)

    # ----------------------------------------------------- serving: the model
    def start_prefill(self, r, have):
        r.phase = "PREFILL"
        todo = (r.kv_len() or r.prompt_len) - have
        self.at(self.now + PREFILL_MS_BASE + PREFILL_MS_PER_POS * max(todo, 0), self.prefill, r.id, r.epoch)

    def target_token(self, r, n):
        return token(r.seed, n, self.vocab) if r.kv_ok else wrong_token(r.seed, n, self.vocab)

    def write_kv(self, r, upto):
        first = len(r.kv) + 1
        r.kv.extend(self.kv_model.words(r.seed, i) for i in range(first, upto + 1))
        return kv_pages(r.kv, first, upto, self.page_tokens, self.digest)

    def prefill(self, rid, epoch):
        r = self.requests[rid]
        if r.epoch != epoch:
            return
        if self.take_armed(r.server, "MID_RESTORE" if r.restoring else "MID_PREFILL"):
            self.fail(r.server)
            return
        r.restoring = False
        self.reprotect(r)
        if r.out:                                   # after a restore or re-prefill
            tokens, pages = [], self.write_kv(r, r.kv_len())
        else:
            pages = self.write_kv(r, r.prompt_len)
            tokens = [self.target_token(r, 1)]
            r.out.extend(tokens)
        r.phase = "DECODE"
        self.event("Prefill", req=rid, worker=r.server, tokens=tokens, pages=pages)
        self.after_step(r)

    def decode(self, rid, epoch):
        r = self.requests[rid]
        if r.epoch != epoch:
            return
        if (r.draft and self.take_armed(r.server, "MID_VERIFY")) or self.take_armed(r.server, "MID_DECODE"):
            self.fail(r.server)
            return
        self.reprotect(r)
        m = len(r.out)
        tokens = []
        if r.draft:                                 # greedy verification of the draft
            for i, proposed in enumerate(r.draft[1]):
                if proposed != self.target_token(r, m + i + 1) and "accept-unverified-draft" not in self.bugs:
                    break
                tokens.append(proposed)
            r.draft = None
        tokens.append(self.target_token(r, m + len(tokens) + 1))
        r.out.extend(tokens)
        pages = self.write_kv(r, r.kv_len())
        self.event("Decode", req=rid, worker=r.server, tokens=tokens, pages=pages)
        self.after_step(r)

    def after_step(self, r):
        if len(r.out) >= r.out_len:
            self.complete(r)
            return
        self.at(self.now + STREAM_MS, self.stream, r.id, r.epoch)
        self.at(self.now + DECODE_MS, self.decode, r.id, r.epoch)
        self.offer_assist(r)

    def complete(self, r):
        freed = sum(len(c) for c in r.copies.values())
        if "leaks-checkpoint" in self.bugs:
            freed = 0
        r.phase, r.copies, r.holder, r.backup = "DONE", {}, None, None
        r.epoch += 1
        self.event("Complete", req=r.id, worker=r.server, freed=freed)

    # ---------------------------------------------- mechanism 3: draft, handover
    def draft_ready(self, w, epoch):
        worker = self.workers[w]
        if worker.epoch == epoch and worker.state == "LOADING_DRAFT":
            worker.state = "ASSISTING"
            if self.session_target:          # choose the session's target now: a most loaded survivor
                up = self.up()
                top = max(self.load(v) for v in up)
                worker.target = min(v for v in up if self.load(v) == top)
                self.event("DraftReady", worker=w, target=worker.target, loads=self.loads())
            else:
                self.event("DraftReady", worker=w)
            if "MID_HANDOVER" in self.armed[w]:   # fail it while it assists
                self.at(self.now + (FULL_LOAD_MS - DRAFT_LOAD_MS) / 2, self.handover_fault, w, epoch)

    def handover_fault(self, w, epoch):
        if self.workers[w].epoch == epoch and self.take_armed(w, "MID_HANDOVER"):
            self.fail(w)

    def offer_assist(self, r):
        """Algorithm 3: an assisting worker drafts for a request on a most loaded UP worker."""
        helpers = [w for w in self.workers if w.state == "ASSISTING"]
        remaining = r.out_len - len(r.out)
        if not helpers or r.draft or remaining < 2 or r.phase != "DECODE":
            return
        up = self.up()
        top = max(self.load(w) for w in up)
        most_loaded = self.load(r.server) == top

        def may_assist(w):   # its session's target while that is UP, else a most loaded survivor
            if self.session_target and w.target is not None and self.workers[w.target].state == "UP":
                return r.server == w.target
            return most_loaded
        helpers = [w for w in helpers if may_assist(w)]
        if not helpers:
            return
        helper = min(helpers, key=lambda w: (w.last_assist, w.id))   # take turns
        helper.last_assist = self.now
        if self.session_target:
            helper.target = r.server
        m = len(r.out)
        draft = []
        for n in range(m + 1, m + 1 + min(self.k, remaining - 1)):
            right = token(r.seed, n, self.vocab)
            draft.append(right if self.rng.random() < self.draft_agreement else (right + 1) % self.vocab)
        r.draft = (helper.id, draft)
        self.event("Assist", worker=helper.id, req=r.id, draft=draft, loads=self.loads())

    def full_ready(self, w, epoch):
        worker = self.workers[w]
        if worker.epoch != epoch:
            return
        dropped = sorted(r.id for r in self.live() if r.draft and r.draft[0] == w)
        for rid in dropped:
            self.requests[rid].draft = None
        worker.state, worker.target = "UP", None
        self.event("FullReady", worker=w, dropped=dropped)
