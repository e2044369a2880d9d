package lumen.core;

import java.util.Arrays;

/**
 * Whether an event is a step of the spec from a state: the action's guard holds, and the outcome
 * the event reports is one the spec allows. This is the left-hand side of each TLA+ action, and
 * the spec's own value of every outcome (Eq. 6's mode, the verified tokens, the lost requests).
 * The first mismatch is returned as a {@link Finding}; it carries a property ID where the step
 * itself is what the property forbids (S2: a request enqueued a second time).
 *
 * <p>A trace event may stand for several spec steps of one request where the spec takes one
 * position at a time: a StreamPage event streams positions up to its {@code ckpt}. A real draft's
 * tokens after its first disagreement are mapped to the spec's {@code Wrong}: verification
 * accepts only the agreeing prefix, so the two drafts verify alike.
 */
public final class SpecStep {
    private SpecStep() {}

    public static Finding check(ClusterState s, Event e) {
        return check(s, e, true);
    }

    /**
     * As {@link #check(ClusterState, Event)}; with {@code tokens} false, the tokens a Prefill or
     * Decode delivers are not compared with the spec's (the caller's model supplied them, and
     * validation judges them).
     */
    public static Finding check(ClusterState s, Event e, boolean tokens) {
        return switch (e.action()) {
            case ARRIVE -> arrive(s, (Event.Arrive) e);
            case PLACE -> place(s, (Event.Place) e);
            case PREFILL -> prefill(s, (Event.Prefill) e, tokens);
            case DECODE -> decode(s, (Event.Decode) e, tokens);
            case STREAM_PAGE -> streamPage(s, (Event.StreamPage) e);
            case COMPLETE -> complete(s, (Event.Complete) e);
            case FAIL -> fail(s, (Event.Fail) e);
            case ROUTE -> route(s, (Event.Route) e);
            case RESTART -> workerIn(s, ((Event.Restart) e).worker(), "Restart", WorkerState.FAILED);
            case DRAFT_READY -> workerIn(s, ((Event.DraftReady) e).worker(), "DraftReady", WorkerState.LOADING_DRAFT);
            case ASSIST -> assist(s, (Event.Assist) e);
            case FULL_READY -> fullReady(s, (Event.FullReady) e);
            case ZOMBIE_TOKEN -> zombieToken(s, (Event.ZombieToken) e);
            case ZOMBIE_PAGE -> zombiePage(s, (Event.ZombiePage) e);
            case ZOMBIE_ACK -> zombieAck(s, (Event.ZombieAck) e);
            case ZOMBIE_STOPS -> s.worker(((Event.ZombieStops) e).worker()).zombie() != null ? null
                    : guard("ZombieStops of worker " + e.worker() + ", which has no zombie (it was never failed, or its zombie stopped)");
        };
    }

    /**
     * {@code ZombieAck(w, r)}: the zombie held a copy of r, not yet acknowledged; the gateway takes
     * the acknowledgement only under w's current epoch, so one taken is S19.
     */
    private static Finding zombieAck(ClusterState s, Event.ZombieAck a) {
        if (a.accepted()) {
            return new Finding(PropertyId.S19, "the gateway took worker " + a.worker() + "'s fenced incarnation's acknowledgement of its copy of"
                    + " request " + a.req() + ": a copy stored under a fenced epoch is a checkpoint again", "refused (the fence)", "accepted");
        }
        Zombie z = s.worker(a.worker()).zombie();
        if (z == null) {
            return guard("ZombieAck of worker " + a.worker() + ", which has no zombie: it was never failed, or its zombie stopped");
        }
        return z.held().containsKey(a.req()) ? null
                : guard("ZombieAck of worker " + a.worker() + " for request " + a.req() + ", whose copy the worker did not hold when it was failed"
                        + " (or has acknowledged already)");
    }

    /** The zombie's view of r, or a finding when w has none or it never served r. */
    private static Finding zombieServed(ClusterState s, int w, int r, String action) {
        Zombie z = s.worker(w).zombie();
        if (z == null) {
            return guard(action + " of worker " + w + ", which has no zombie: it was never failed, or its zombie stopped");
        }
        return z.reqs().containsKey(r) ? null
                : guard(action + " of worker " + w + " for request " + r + ", which the worker did not serve when it was failed");
    }

    /**
     * {@code ZombieToken(w, r)}: the zombie has a token left to write; the gateway takes it only
     * under w's current epoch, which the zombie's is not (the Fail raised it), so a token taken
     * is S18 whatever epoch the event shows.
     */
    private static Finding zombieToken(ClusterState s, Event.ZombieToken t) {
        if (t.accepted()) {
            return new Finding(PropertyId.S18, "the gateway took a token that worker " + t.worker()
                    + "'s fenced incarnation wrote into request " + t.req() + "'s stream (its client got it)",
                    "refused (the fence)", "accepted");
        }
        Finding f = zombieServed(s, t.worker(), t.req(), "ZombieToken");
        if (f != null) {
            return f;
        }
        Zombie.Req q = s.worker(t.worker()).zombie().reqs().get(t.req());
        return q.out() < q.refLen() ? null
                : guard("ZombieToken of worker " + t.worker() + " for request " + t.req() + ", whose zombie had written its whole output");
    }

    /**
     * {@code ZombiePage(w, r)}: the zombie has a page of its KV left to stream, to the holder it
     * streamed to; the holder takes it only under w's current epoch, so a page taken is S19.
     */
    private static Finding zombiePage(ClusterState s, Event.ZombiePage p) {
        if (p.accepted()) {
            return new Finding(PropertyId.S19, "holder " + p.holder() + " took a page of request " + p.req()
                    + " that worker " + p.worker() + "'s fenced incarnation sent into its checkpoint", "refused (the fence)", "accepted");
        }
        Finding f = zombieServed(s, p.worker(), p.req(), "ZombiePage");
        if (f != null) {
            return f;
        }
        Zombie.Req q = s.worker(p.worker()).zombie().reqs().get(p.req());
        if (q.holder() < 0) {
            return guard("ZombiePage of worker " + p.worker() + " for request " + p.req() + ", which had no holder when the worker was failed");
        }
        if (q.next() > q.kv().length()) {
            return guard("ZombiePage of worker " + p.worker() + " for request " + p.req() + ": its zombie had streamed every page it held ("
                    + q.kv().length() + ")");
        }
        return p.holder() == q.holder() ? null
                : mismatch("ZombiePage of worker " + p.worker() + " for request " + p.req() + " goes to the holder it streamed to",
                        "holder " + q.holder(), "holder " + p.holder());
    }

    private static Finding guard(String what) {
        return Finding.of(null, what);
    }

    private static Finding mismatch(String what, Object expected, Object actual) {
        return new Finding(null, what, String.valueOf(expected), String.valueOf(actual));
    }

    private static boolean queued(ClusterState s, RequestRec r) {
        return r.server() >= 0 && s.worker(r.server()).runq().containsKey(r.id());
    }

    private static Finding phaseIs(RequestRec r, String action, RequestPhase allowed) {
        return r.phase() == allowed ? null : phaseIs(r, action, new RequestPhase[] {allowed});
    }

    private static Finding phaseIs(RequestRec r, String action, RequestPhase... allowed) {
        for (RequestPhase p : allowed) {
            if (r.phase() == p) {
                return null;
            }
        }
        return mismatch(action + " of request " + r.id() + " needs phase " + Arrays.toString(allowed), Arrays.toString(allowed), r.phase());
    }

    private static Finding serverUp(ClusterState s, RequestRec r, String action) {
        if (r.server() < 0 || !queued(s, r)) {
            return guard(action + " of request " + r.id() + ", which is in no run queue");
        }
        return s.isUp(r.server()) ? null
                : guard(action + " of request " + r.id() + " on worker " + r.server() + ", which is " + s.worker(r.server()).state());
    }

    /**
     * A step of r reported by a worker other than its server. As reported, that worker serves r
     * too, so the invariants name it (S2, or S3 or S10 when that worker is down or recovering).
     */
    private static Finding onServer(ClusterState s, RequestRec r, int w, String action) {
        return r.server() == w ? null
                : mismatch(action + " of request " + r.id() + " reported by worker " + w + ", but it is queued on worker " + r.server(),
                        "worker " + r.server(), "worker " + w);
    }

    private static Finding first(Finding... fs) {
        for (Finding f : fs) {
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static Finding arrive(ClusterState s, Event.Arrive a) {
        RequestRec r = s.request(a.req());
        if (r != null) {
            return queued(s, r) && r.server() != a.worker()
                    ? Finding.of(PropertyId.S2, "request " + a.req() + " arrives again while queued on worker " + r.server())
                    : guard("request " + a.req() + " arrives again (it is " + r.phase() + ")");
        }
        if (!s.isUp(a.worker())) {
            return guard("request " + a.req() + " is queued on worker " + a.worker() + ", which is " + s.worker(a.worker()).state());
        }
        // ArriveTargets: any UP worker under arrival=any, else a shortest queue (a step off it breaks A6, which names it)
        int t = s.arriveTarget();
        return s.config().readings().anyArrival() || s.depth(a.worker()) == s.depth(t) ? null
                : mismatch("the gateway queues request " + a.req() + " on a shortest queue (arrival=shortest, docs/readings.md#arrival)",
                        "a worker with Q_w=" + s.depth(t) + " (e.g. " + t + ")",
                        "worker " + a.worker() + " with Q_w=" + s.depth(a.worker()));
    }

    private static Finding place(ClusterState s, Event.Place p) {
        RequestRec r = s.request(p.req());
        Finding f = first(r.placed() && !s.needsProtection(r) ? guard("request " + r.id() + " is placed twice in one run"
                        + (r.holder() < 0 ? " (it has no holder, and the placement rule of " + s.policy().key()
                                + " gives it none now; a request is placed again only when the rule has a holder for it)" : "")) : null,
                phaseIs(r, "Place", RequestPhase.QUEUED, RequestPhase.DECODE), serverUp(s, r, "Place"));
        if (f != null) {
            return f;
        }
        if (r.placed() && r.holder() >= 0) {
            // NeedsBackup: the request keeps its holder and is given a backup
            if (p.holder() != r.holder()) {
                return mismatch("a placement that gives request " + r.id() + " a new backup keeps its holder (rebackup reading)",
                        holderName(r.holder()), holderName(p.holder()));
            }
            return s.policy().allowsBackup(s, r, r.holder(), p.backup()) ? null
                    : mismatch("the new backup of request " + r.id() + " is not in BackupChoice under " + s.policy().key(),
                            holderName(s.policy().chooseBackup(s, r, r.holder())), holderName(p.backup()));
        }
        if (!s.policy().allowsHolder(s, r, p.holder())) {
            return mismatch("the holder of request " + r.id() + " is not in PlacementChoice under " + s.policy().key(),
                    holderName(s.policy().chooseHolder(s, r)), holderName(p.holder()));
        }
        return s.policy().allowsBackup(s, r, p.holder(), p.backup()) ? null
                : mismatch("the backup of request " + r.id() + " is not in BackupChoice under " + s.policy().key(),
                        holderName(s.policy().chooseBackup(s, r, p.holder())), holderName(p.backup()));
    }

    static String holderName(int h) {
        return h < 0 ? "none (unprotected)" : "worker " + h;
    }

    /** The first token Prefill delivers: TargetToken on the KV completed to the prompt, if no output yet. */
    public static int[] expectedPrefillTokens(RequestRec r) {
        return r.outLen() == 0 ? new int[] {r.kv().intact() && r.ref() != null ? r.ref()[0] : Tokens.WRONG} : new int[0];
    }

    private static Finding prefill(ClusterState s, Event.Prefill p, boolean tokens) {
        RequestRec r = s.request(p.req());
        // checked one after another, as first(...) would, without building the list on every event
        Finding f = phaseIs(r, "Prefill", RequestPhase.QUEUED);
        if (f == null && !r.placed()) {
            f = guard("Prefill of request " + r.id() + " before its placement decision (Place comes first)");
        }
        f = f != null ? f : serverUp(s, r, "Prefill");
        f = f != null ? f : onServer(s, r, p.worker(), "Prefill");
        f = f != null ? f : protection(s, r, "Prefill");
        if (f != null || !tokens) {
            return f;
        }
        int[] want = expectedPrefillTokens(r);
        return Arrays.equals(want, p.tokens()) ? null
                : mismatch("Prefill of request " + r.id() + " delivers the target's first token", Arrays.toString(want), Arrays.toString(p.tokens()));
    }

    /** The spec's {@code Accepted(r, d)}: how many leading draft tokens the target agrees with. */
    public static int accepted(RequestRec r, int[] d) {
        int n = r.outLen();
        int m = 0;
        while (m < d.length && n + m + 1 <= r.refLen() && d[m] == r.targetToken(n + m + 1)) {
            m++;
        }
        return m;
    }

    /** The spec's {@code DecodeTokens(r)}: one target token, or a verified draft plus one. */
    public static int[] expectedDecodeTokens(RequestRec r) {
        int n = r.outLen();
        if (n >= r.refLen()) {
            return new int[0];
        }
        if (r.proposal() == null) {
            return new int[] {r.targetToken(n + 1)};
        }
        int[] d = r.proposal().toks();
        int m = accepted(r, d);
        boolean plusOne = n + m < r.refLen();
        int[] out = Arrays.copyOf(d, m + (plusOne ? 1 : 0));
        if (plusOne) {
            out[m] = r.targetToken(n + m + 1);
        }
        return out;
    }

    private static Finding decode(ClusterState s, Event.Decode d, boolean tokens) {
        RequestRec r = s.request(d.req());
        Finding f = phaseIs(r, "Decode", RequestPhase.DECODE);
        f = f != null ? f : serverUp(s, r, "Decode");
        f = f != null ? f : onServer(s, r, d.worker(), "Decode");
        if (f == null && r.outLen() >= r.refLen()) {
            f = guard("Decode of request " + r.id() + ", whose output is complete");
        }
        f = f != null ? f : protection(s, r, "Decode");
        if (f != null || !tokens) {
            return f;
        }
        int[] got = d.tokens();
        if (r.proposal() == null && got.length == 1 && got[0] == r.targetToken(r.outLen() + 1)) {
            return null; // the common step, one target token, judged without building the expected list
        }
        int[] want = expectedDecodeTokens(r);
        if (Arrays.equals(want, d.tokens())) {
            return null;
        }
        String kv = r.kv().length() < r.kvNeeded()
                ? " (its KV holds " + r.kv().length() + " of the " + r.kvNeeded() + " positions its context needs: on KV that is not whole"
                        + " the target's token is not the reference's, TargetToken)"
                : !r.kv().intact() ? " (its KV is not its own, in order: the target's token is not the reference's, TargetToken)" : "";
        return mismatch("Decode of request " + r.id() + " delivers " + (r.proposal() == null ? "the target's token" : "the verified draft plus one") + kv,
                Arrays.toString(want), Arrays.toString(d.tokens()));
    }

    /** A pending re-protection blocks serving: S14 when r has no holder and the policy has one for it. */
    private static Finding protection(ClusterState s, RequestRec r, String action) {
        return s.needsProtection(r)
                ? Finding.of(PropertyId.S14, action + " of request " + r.id() + ", which has no holder although worker "
                        + s.policy().chooseHolder(s, r) + " could hold it: it is placed again first (Algorithm 1)")
                : null;
    }

    private static Finding streamPage(ClusterState s, Event.StreamPage sp) {
        RequestRec r = s.request(sp.req());
        if (r.holder() < 0) {
            return guard("StreamPage of request " + r.id() + ", which has no holder");
        }
        boolean toBackup = r.backup() >= 0 && sp.holder() == r.backup();
        int have = toBackup ? r.bckpt().length() : r.ckpt().length();
        if (r.holder() != sp.holder() && !toBackup) {
            return new Finding(PropertyId.S13, "StreamPage of request " + r.id() + " to a worker that holds none of its copies",
                    r.backup() >= 0 ? r.holder() + " or " + r.backup() : Integer.toString(r.holder()), Integer.toString(sp.holder()));
        }
        if (r.phase() != RequestPhase.QUEUED && r.phase() != RequestPhase.DECODE) {
            return phaseIs(r, "StreamPage", RequestPhase.QUEUED, RequestPhase.DECODE);
        }
        if (sp.ckpt() <= have) {
            return mismatch("StreamPage of request " + r.id() + " adds positions", "> " + have, sp.ckpt());
        }
        if (sp.ckpt() > r.kv().length()) {
            return mismatch("StreamPage of request " + r.id() + " streams only positions its server has written (StreamLimit)",
                    "<= " + r.kv().length(), sp.ckpt());
        }
        return sp.ckpt() - have <= s.streamRoom(sp.holder()) ? null
                : mismatch("StreamPage of request " + r.id() + " stays within its holder's budget (StreamRoom, budget=stored)",
                        "<= " + (have + s.streamRoom(sp.holder())), sp.ckpt());
    }

    private static Finding complete(ClusterState s, Event.Complete c) {
        RequestRec r = s.request(c.req());
        return first(phaseIs(r, "Complete", RequestPhase.DECODE), onServer(s, r, c.worker(), "Complete"),
                r.outLen() == r.refLen() ? null : mismatch("Complete of request " + r.id() + " needs its whole output", r.refLen(), r.outLen()),
                c.freed() == r.savedPositions() ? null
                        : mismatch("Complete of request " + r.id() + " frees its whole checkpoint (freed: every position its copies hold)",
                                "freed " + r.savedPositions(), "freed " + c.freed()));
    }

    private static Finding fail(ClusterState s, Event.Fail f) {
        WorkerRec w = s.worker(f.worker());
        if (w.state() == WorkerState.FAILED) {
            return guard("worker " + w.id() + " fails while FAILED");
        }
        boolean otherUp = false;
        for (int v = 0; v < s.workerCount() && !otherUp; v++) {
            otherUp = v != w.id() && s.isUp(v);
        }
        if (!otherUp) {
            return guard("worker " + w.id() + " fails with no other worker UP (outside the spec's failure model)");
        }
        int[] lost = w.runq().keys();
        int[] got = sorted(f.interrupted());
        if (!Arrays.equals(lost, got)) {
            int[] missing = Arrays.stream(lost).filter(x -> Arrays.binarySearch(got, x) < 0).toArray();
            String what = "Fail of worker " + w.id() + " interrupts exactly its run queue";
            return missing.length > 0
                    ? new Finding(PropertyId.S1, what + ": request " + missing[0] + " was queued there and is lost",
                            Arrays.toString(lost), Arrays.toString(got))
                    : mismatch(what, Arrays.toString(lost), Arrays.toString(got));
        }
        int[] orphans = w.held().keys();
        int[] gotO = sorted(f.orphaned());
        if (!Arrays.equals(orphans, gotO)) {
            return mismatch("Fail of worker " + w.id() + " loses exactly the checkpoints it held", Arrays.toString(orphans), Arrays.toString(gotO));
        }
        int[] promote = expectedPromoted(s, w.id());
        int[] gotP = sorted(f.promoted());
        return Arrays.equals(promote, gotP) ? null
                : mismatch("Fail of worker " + w.id() + " hands each lost holder's role to the request's live backup",
                        Arrays.toString(promote), Arrays.toString(gotP));
    }

    /** The requests whose holder is {@code w} and whose backup takes over when w fails. */
    public static int[] expectedPromoted(ClusterState s, int w) {
        return Arrays.stream(s.worker(w).held().keys())
                .filter(id -> s.request(id).holder() == w && s.request(id).backup() >= 0).toArray();
    }

    private static int[] sorted(int[] a) {
        int[] c = a.clone();
        Arrays.sort(c);
        return c;
    }

    /** The routing rule in the docs' words, with the values that decided this route (docs/trace-format.md, Route). */
    private static String routeRule(ClusterState s, RequestRec r) {
        String holder = r.holder() < 0 ? "it has no holder" : !s.isUp(r.holder()) ? "its holder " + r.holder() + " is " + s.worker(r.holder()).state()
                : "its holder " + r.holder() + " is UP";
        if (!s.policy().eq6Routing()) {
            return s.useHolder(r) || r.holder() >= 0 && s.isUp(r.holder())
                    ? "a request whose holder is UP is RESTOREd on it, even from an empty checkpoint, else re-prefilled (" + holder + ")"
                    : "the request is re-prefilled (" + holder + ")";
        }
        return "Eq. 6 RESTOREs a request on its UP holder h when L(h) <= theta or |C_r| > tau, even from an empty checkpoint,"
                + " and re-prefills it otherwise (" + holder + (r.holder() >= 0 && s.isUp(r.holder())
                        ? ", L(h)=" + s.routeLoad(r.holder()) + ", theta=" + s.config().theta() + ", |C_r|=" + r.ckpt().length() + ", tau=" + s.config().tau()
                        : "") + ")";
    }

    private static Finding route(ClusterState s, Event.Route rt) {
        RequestRec r = s.request(rt.req());
        if (r.phase() != RequestPhase.INTERRUPTED) {
            return queued(s, r) && r.server() != rt.worker()
                    ? Finding.of(PropertyId.S2, "request " + r.id() + " is routed to worker " + rt.worker() + " while queued on worker " + r.server())
                    : phaseIs(r, "Route", RequestPhase.INTERRUPTED);
        }
        if (s.index().size() == 0) {
            return guard("Route of request " + r.id() + " with no worker UP");
        }
        RouteMode mode = s.useHolder(r) ? RouteMode.RESTORE : RouteMode.REPREFILL;
        if (mode != rt.mode()) {
            return mismatch("Route of request " + r.id() + " under " + s.policy().key() + ": " + routeRule(s, r), mode, rt.mode());
        }
        Finding f = rt.freed() == r.savedPositions() ? null
                : mismatch("Route of request " + r.id() + " frees its checkpoint (freed: every position its copies hold)",
                        "freed " + r.savedPositions(), "freed " + rt.freed());
        if (mode == RouteMode.RESTORE) {
            return first(rt.worker() == r.holder() ? null
                            : new Finding(PropertyId.S13, "RESTORE of request " + r.id() + " on worker " + rt.worker()
                                    + ", which holds no copy of it: a restore reads the copy streamed to its holder",
                                    "worker " + r.holder(), "worker " + rt.worker()),
                    rt.resumed() == r.ckpt().length() ? null
                            : new Finding(PropertyId.S12, "RESTORE of request " + r.id() + " resumes at its saved prefix |C_r|",
                                    Integer.toString(r.ckpt().length()), Integer.toString(rt.resumed())),
                    f);
        }
        int t = s.reprefillTarget();
        return first(s.isUp(rt.worker()) && s.routeLoad(rt.worker()) == s.routeLoad(t) ? null
                        : mismatch("REPREFILL of request " + r.id() + " on a least loaded UP worker", "worker " + t + " (L=" + s.routeLoad(t) + ")",
                        "worker " + rt.worker() + (s.isUp(rt.worker()) ? " (L=" + s.routeLoad(rt.worker()) + ")" : " (" + s.worker(rt.worker()).state() + ")")),
                rt.resumed() == 0 ? null : mismatch("REPREFILL of request " + r.id() + " starts from no KV", 0, rt.resumed()),
                f);
    }

    private static Finding workerIn(ClusterState s, int w, String action, WorkerState need) {
        WorkerState st = s.worker(w).state();
        return st == need ? null : mismatch(action + " of worker " + w, need, st);
    }

    private static Finding assist(ClusterState s, Event.Assist a) {
        RequestRec r = s.request(a.req());
        if (s.policy().restartState() != WorkerState.LOADING_DRAFT) {
            return guard("Assist under " + s.policy().key() + ", which has no draft model");
        }
        Finding f = first(workerIn(s, a.worker(), "Assist", WorkerState.ASSISTING), phaseIs(r, "Assist", RequestPhase.DECODE),
                serverUp(s, r, "Assist"),
                r.proposal() == null ? null : guard("Assist of request " + r.id() + ", which has a draft in flight"),
                r.outLen() < r.refLen() ? null : guard("Assist of request " + r.id() + ", whose output is complete"),
                a.draft().length >= 1 && a.draft().length <= s.config().k() ? null
                        : mismatch("a draft proposes 1..K tokens", "1.." + s.config().k(), a.draft().length));
        if (f != null) {
            return f;
        }
        if (s.mayAssist(a.worker(), r.server())) {
            return null;
        }
        int kept = s.keptTarget(a.worker());
        int t = kept >= 0 ? kept : s.assistTarget();
        return mismatch("Assist of request " + r.id() + " goes to a worker it may assist now (AssistTargetsOf: "
                        + (kept >= 0 ? "its session's target" : "a most loaded UP worker") + ")",
                "worker " + t + " (L=" + s.seen(t) + ")", "worker " + r.server() + " (L=" + s.seen(r.server()) + ")");
    }

    private static Finding fullReady(ClusterState s, Event.FullReady f) {
        WorkerState st = s.worker(f.worker()).state();
        if (st != WorkerState.ASSISTING && st != WorkerState.LOADING_FULL) {
            return mismatch("FullReady of worker " + f.worker(), "ASSISTING or LOADING_FULL", st);
        }
        int[] want = s.requestsWithProposalFrom(f.worker());
        int[] got = sorted(f.dropped());
        return Arrays.equals(want, got) ? null
                : mismatch("FullReady of worker " + f.worker() + " drops its in-flight drafts", Arrays.toString(want), Arrays.toString(got));
    }
}
