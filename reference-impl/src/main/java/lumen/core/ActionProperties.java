package lumen.core;

/**
 * The spec's action properties as Java checks on one step (pre-state and event): S12, S14 and S16,
 * which hold under every policy, A1 to A3, the load-aware decision rules, A4 and A5, the
 * baselines' own rules, and A6, the gateway's arrival rule. Each restates its rule from the paper (or from DejaVu) by a plain scan over
 * the workers, independently of the {@link LoadIndex} and of the policies' own choices, exactly
 * as the TLA+ properties restate them independently of {@code HolderCandidates},
 * {@code RingHolder} and {@code UseHolder}; the policy tells only which mechanism it runs. Past
 * {@link #SCAN_MAX} workers, where a scan per decision would cost O(W), A1 to A3 ask the index for
 * the argmin and argmax instead (LoadIndexTest and ActionPropertiesTest hold the two to the same
 * answers).
 */
public final class ActionProperties {
    private ActionProperties() {}

    /** The first action property the step breaks, in report order (S12, S14, S16, A1 to A6), or null. */
    public static Finding check(ClusterState pre, Event e) {
        return switch (e.action()) {
            case ARRIVE -> a6(pre, (Event.Arrive) e);
            case PLACE -> pre.policy().loadAwarePlacement() ? a1(pre, (Event.Place) e) : a4(pre, (Event.Place) e);
            case ROUTE -> {
                Event.Route rt = (Event.Route) e;
                if (pre.request(rt.req()).phase() != RequestPhase.INTERRUPTED) {
                    yield null;
                }
                Finding f = s12(pre, rt);
                yield f != null ? f : pre.policy().eq6Routing() ? a2(pre, rt) : a5(pre, rt);
            }
            case PREFILL, DECODE -> {
                RequestRec r = pre.request(e.req());
                Finding f = e instanceof Event.Decode d ? s17(r, d) : null;
                f = f != null ? f : s14(pre, r, e);
                yield f != null ? f : s16(r, e);
            }
            case ASSIST -> a3(pre, (Event.Assist) e);
            case DRAFT_READY -> a3(pre, (Event.DraftReady) e);
            default -> null;
        };
    }

    /**
     * The routing rule of r's policy, restated ({@code RuleRestores} in FailureRouting): under Eq. 6
     * routing restore on the live holder h exactly when L(h) <= theta or |C_r| > tau; under
     * Fixed-Checkpointing's routing whenever the holder is live; under Stop-and-Restart's never.
     */
    public static boolean ruleRestores(ClusterState s, RequestRec r) {
        int h = r.holder();
        if (h < 0 || !s.isUp(h) || s.policy().neverRestores()) {
            return false;
        }
        return !s.policy().eq6Routing() || s.routeLoad(h) <= s.config().theta() || r.ckpt().length() > s.config().tau();
    }

    /** The routing rule in the docs' words, with the values that decided it. */
    static String ruleWords(ClusterState s, RequestRec r) {
        int h = r.holder();
        String holder = h < 0 ? "it has no holder" : !s.isUp(h) ? "its holder " + h + " is " + s.worker(h).state() : null;
        if (s.policy().neverRestores()) {
            return "Stop-and-Restart's routing never restores; it re-prefills on a least loaded survivor";
        }
        if (!s.policy().eq6Routing()) {
            return holder != null ? "Fixed-Checkpointing's routing re-prefills on a least loaded survivor when the holder is lost (" + holder + ")"
                    : "Fixed-Checkpointing's routing restores on the live holder " + h + ", whatever its load and its checkpoint (|C_r|="
                            + r.ckpt().length() + ")";
        }
        return holder != null ? "Eq. 6 re-prefills on a least loaded survivor (" + holder + ")"
                : "Eq. 6 restores on the holder " + h + " when L(h) <= theta or |C_r| > tau (L(h)=" + s.routeLoad(h) + ", theta="
                        + s.config().theta() + ", |C_r|=" + r.ckpt().length() + ", tau=" + s.config().tau() + ")";
    }

    /**
     * S12: a request the policy's rule restores ({@link #ruleRestores}) resumes on its live holder
     * with exactly the checkpoint C_r that holder saved. In the spec the trigger is the rule, not the
     * route's mode, so a request that should have been restored and was re-prefilled breaks S12 too;
     * on a trace that step is named by the rule it breaks (A2 under Eq. 6, A5 under the baselines),
     * which says more, and S12 names a RESTORE the rule calls for that lands elsewhere or resumes
     * with other than C_r (TraceLumen's {@code S12_Trace}).
     */
    public static Finding s12(ClusterState s, Event.Route rt) {
        RequestRec r = s.request(rt.req());
        int h = r.holder();
        if (rt.mode() == RouteMode.RESTORE && h >= 0 && rt.worker() != h && r.ckpt().length() > 0 && rt.resumed() > 0) {
            // the pages it resumes with are the holder's copy, now on another worker's GPU
            return new Finding(PropertyId.S13, "RESTORE of request " + r.id() + " on worker " + rt.worker()
                    + ", which holds no copy of it: a restore reads the copy streamed to its holder", "worker " + h, "worker " + rt.worker());
        }
        if (rt.mode() != RouteMode.RESTORE || !ruleRestores(s, r) || rt.worker() == h && rt.resumed() == r.ckpt().length()) {
            return null;
        }
        return new Finding(PropertyId.S12, "request " + r.id() + " must resume on its holder with exactly the checkpoint it saved: "
                + ruleWords(s, r), "RESTORE on worker " + h + ", resumed " + r.ckpt().length(),
                "RESTORE on worker " + rt.worker() + ", resumed " + rt.resumed());
    }

    /**
     * S14: no request is served (prefilled or decoded) while it has no holder although the
     * policy's placement rule has one for it: any eligible worker under load-aware placement
     * (restated by a scan), the policy's own choice otherwise (the ring neighbour, or none).
     */
    public static Finding s14(ClusterState s, RequestRec r, Event e) {
        if (r != null && r.holder() >= 0 && r.backup() < 0 && r.server() >= 0 && s.config().readings().rebackup()
                && s.policy().dualPlacement()) {
            int could = leastLoadedEligible(s, r, r.holder());
            if (could >= 0) {
                return new Finding(PropertyId.S14, e.action().specName() + " of request " + r.id() + " while it has a holder and no backup"
                        + " although worker " + could + " could be its backup (the rebackup reading gives it one before it is served further)",
                        "a Place of request " + r.id() + " with a backup first", e.action().specName());
            }
        }
        if (r == null || r.holder() >= 0 || r.server() < 0) {
            return null;
        }
        int could = s.policy().loadAwarePlacement() ? leastLoadedEligible(s, r, -1) : s.policy().chooseHolder(s, r);
        return could < 0 ? null
                : new Finding(PropertyId.S14, e.action().specName() + " of request " + r.id() + " while it has no holder although worker "
                        + could + " could hold it (Algorithm 1 re-protects an unprotected request before it is served further)",
                        "a Place of request " + r.id() + " first", e.action().specName());
    }

    /** Up to this many workers the eligible holders are found by a plain scan; past it, on the index. */
    static final int SCAN_MAX = 64;

    /**
     * The least loaded eligible worker other than {@code except} (-1: none excepted), lowest id on
     * ties, or -1 when none is eligible. Up to {@link #SCAN_MAX} workers by a plain scan, which
     * restates the rule independently of the {@link LoadIndex}; on larger clusters the index's
     * argmin over the UP workers with room other than r's server, taken only when
     * the scan's eligibility agrees with it on what can differ (r queued on its server alone), so
     * the answer is the scan's.
     */
    static int leastLoadedEligible(ClusterState s, RequestRec r, int except) {
        if (s.workerCount() > SCAN_MAX) {
            int server = r.server();
            int pick = except >= 0 ? s.index().minLoadWithRoom(s.roomNeeded(r), server, except)
                    : s.index().minLoadWithRoom(s.roomNeeded(r), server);
            if ((pick < 0 || eligible(s, r, pick)) && (server < 0 || server == except || !eligible(s, r, server))) {
                return pick;
            }
        }
        int best = -1;
        for (int w = 0; w < s.workerCount(); w++) {
            if (w != except && eligible(s, r, w) && (best < 0 || s.seen(w) < s.seen(best))) {
                best = w;
            }
        }
        return best;
    }

    private static boolean eligible(ClusterState s, RequestRec r, int w) {
        WorkerRec rec = s.worker(w);
        return rec.state() == WorkerState.UP && !rec.runq().containsKey(r.id())
                && (s.config().readings().budget() == Readings.Budget.STORED ? rec.stored() < s.config().budget()
                        : rec.reserved() + r.size() <= s.config().budget());
    }

    /**
     * A1: a placement is an argmin of Eq. 4 over the eligible holders; unprotected only if none is.
     * The loads are those decided on ({@link ClusterState#seen}): Eq. 4 now, or the monitor's under
     * citedLoads=stale. So are A3's.
     */
    public static Finding a1(ClusterState s, Event.Place p) {
        RequestRec r = s.request(p.req());
        if (p.keepsHolderOf(r)) {
            // the rebackup reading's step: only the new backup is decided
            return backupIsArgMin(s, r, p);
        }
        int best = leastLoadedEligible(s, r, -1);
        if (best < 0) {
            return p.holder() < 0 ? null
                    : new Finding(PropertyId.A1, "request " + r.id() + " is placed although no worker is eligible (UP, not its server, "
                            + (s.config().readings().budget() == Readings.Budget.STORED ? "storing less than the budget " + s.config().budget()
                                    : "room to reserve Size(r)=" + r.size() + " within the budget " + s.config().budget()) + ", Eq. 5)",
                            "none (unprotected)", "worker " + p.holder());
        }
        if (p.holder() < 0) {
            return new Finding(PropertyId.A1, "request " + r.id() + " runs unprotected although worker " + best + " is eligible",
                    "worker " + best + " (L=" + s.seen(best) + ")", "none");
        }
        if (p.holder() >= s.workerCount() || !eligible(s, r, p.holder())) {
            return new Finding(PropertyId.A1, "request " + r.id() + "'s holder is not eligible (UP, not its server, room for Size(r))",
                    "an eligible worker such as " + best, "worker " + p.holder());
        }
        if (s.seen(p.holder()) > s.seen(best)) {
            return new Finding(PropertyId.A1, "request " + r.id() + "'s holder is not least loaded (Eq. 4)",
                    "L=" + s.seen(best) + " (worker " + best + ")", "L=" + s.seen(p.holder()) + " (worker " + p.holder() + ")");
        }
        return s.policy().chooseBackup(s, r, p.holder()) >= 0 || p.backup() >= 0 ? backupIsArgMin(s, r, p) : null;
    }

    /** A1 under lumen-dual: the backup is an argmin of Eq. 4 over the eligible workers but the holder. */
    static Finding backupIsArgMin(ClusterState s, RequestRec r, Event.Place p) {
        int best = leastLoadedEligible(s, r, p.holder());
        int b = p.backup();
        if (best < 0) {
            return b < 0 ? null : new Finding(PropertyId.A1, "request " + r.id() + " has a backup although no other worker is eligible",
                    "none", "worker " + b);
        }
        if (b < 0) {
            return new Finding(PropertyId.A1, "request " + r.id() + " has no backup although worker " + best + " is eligible",
                    "worker " + best + " (L=" + s.seen(best) + ")", "none");
        }
        if (b >= s.workerCount() || b == p.holder() || !eligible(s, r, b)) {
            return new Finding(PropertyId.A1, "request " + r.id() + "'s backup is not eligible (UP, not its server or holder, room for Size(r))",
                    "an eligible worker such as " + best, "worker " + b);
        }
        return s.seen(b) <= s.seen(best) ? null
                : new Finding(PropertyId.A1, "request " + r.id() + "'s backup is not least loaded among the rest (Eq. 4)",
                        "L=" + s.seen(best) + " (worker " + best + ")", "L=" + s.seen(b) + " (worker " + b + ")");
    }

    /**
     * A2: under Eq. 6 routing, RESTORE on the live holder exactly when L(h) <= theta or |C_r| > tau,
     * else REPREFILL on an argmin; L is Algorithm 2's load ({@link ClusterState#routeLoad}: Eq. 4
     * now, or under routeLoads=increment the load at the failure plus beta per request routed since).
     */
    public static Finding a2(ClusterState s, Event.Route rt) {
        return routedPerRule(s, rt, PropertyId.A2);
    }

    /**
     * A5: under the baselines' routing, the baseline's own rule: Fixed-Checkpointing restores on the
     * live holder whatever its load and its checkpoint, Stop-and-Restart never restores, and either
     * re-prefills on a least loaded survivor otherwise.
     */
    public static Finding a5(ClusterState s, Event.Route rt) {
        return routedPerRule(s, rt, PropertyId.A5);
    }

    /** {@code RoutedPerRule(r)}: the restore the rule calls for, or a re-prefill on an argmin from no KV with the checkpoint freed. */
    private static Finding routedPerRule(ClusterState s, Event.Route rt, PropertyId id) {
        RequestRec r = s.request(rt.req());
        int h = r.holder();
        // on a trace the route's mode is the rule's decision too (TraceLumen's RouteModeFollowsRule): a
        // re-prefill on the holder of an empty checkpoint has a restore's effect, but not its decision
        if (ruleRestores(s, r)) {
            if (rt.worker() != h || rt.mode() != RouteMode.RESTORE) {
                return new Finding(id, "request " + r.id() + ": " + ruleWords(s, r), "RESTORE on worker " + h, rt.mode() + " on worker " + rt.worker());
            }
            return rt.resumed() == r.ckpt().length() ? null
                    : new Finding(id, "request " + r.id() + " must resume with exactly its checkpoint C_r",
                            Integer.toString(r.ckpt().length()), Integer.toString(rt.resumed()));
        }
        double min = Double.POSITIVE_INFINITY;
        for (int w = 0; w < s.workerCount(); w++) {
            if (s.isUp(w)) {
                min = Math.min(min, s.routeLoad(w));
            }
        }
        StringBuilder least = new StringBuilder();
        for (int w = 0; w < s.workerCount(); w++) {
            if (s.isUp(w) && s.routeLoad(w) <= min) {
                least.append(least.length() == 0 ? "" : ", ").append(w);
            }
        }
        boolean targetOk = rt.worker() >= 0 && rt.worker() < s.workerCount() && s.isUp(rt.worker()) && s.routeLoad(rt.worker()) <= min;
        if (!targetOk || rt.mode() != RouteMode.REPREFILL) {
            String why = id == PropertyId.A2 && h >= 0 && s.isUp(h)
                    ? "L(h)=" + s.routeLoad(h) + " > theta=" + s.config().theta() + " and |C_r|=" + r.ckpt().length() + " <= tau=" + s.config().tau()
                    : null;
            return new Finding(id, "request " + r.id() + ": " + (why == null ? ruleWords(s, r) : "Eq. 6 re-prefills on a least loaded survivor (" + why + ")"),
                    "REPREFILL on a worker with L=" + min + " (worker " + least + ")", rt.mode() + " on worker " + rt.worker()
                    + (rt.worker() >= 0 && rt.worker() < s.workerCount() && s.isUp(rt.worker()) ? " (L=" + s.routeLoad(rt.worker()) + ")" : ""));
        }
        if (rt.resumed() != 0) {
            return new Finding(id, "a re-prefilled request starts from no KV", "0", Integer.toString(rt.resumed()));
        }
        return rt.freed() == r.savedPositions() ? null
                : new Finding(id, "a re-prefill frees request " + r.id() + "'s checkpoint",
                        "freed " + r.savedPositions(), "freed " + rt.freed());
    }

    /**
     * A4: the baselines' placement, restated from DejaVu. Under ring placement a placement's holder
     * is the first UP worker after the server on the fixed ring when it is eligible, else none (with
     * the ringFallThrough reading, the first eligible worker on the ring), and never a backup; under
     * no placement (Stop-and-Restart) no request is ever given a holder or a backup.
     */
    public static Finding a4(ClusterState s, Event.Place p) {
        RequestRec r = s.request(p.req());
        if (!s.policy().placesCheckpoints()) {
            return p.holder() < 0 && p.backup() < 0 ? null
                    : new Finding(PropertyId.A4, "Stop-and-Restart places no checkpoint, but request " + r.id() + " is given "
                            + (p.holder() >= 0 ? "a holder" : "a backup"), "none", "worker " + (p.holder() >= 0 ? p.holder() : p.backup()));
        }
        if (!s.policy().ringPlacement()) {
            return null;
        }
        if (p.backup() >= 0) {
            return new Finding(PropertyId.A4, "Fixed-Checkpointing's placement gives request " + r.id() + " one holder and no backup",
                    "no backup", "worker " + p.backup());
        }
        int n = s.workerCount();
        boolean next = s.config().readings().ringDirection() == Readings.RingDirection.NEXT;
        int firstUp = -1;
        int firstEligible = -1;
        int v = r.server();
        for (int i = 1; i < n && v >= 0; i++) {
            v = next ? (v + 1) % n : (v + n - 1) % n;
            if (firstUp < 0 && s.isUp(v)) {
                firstUp = v;
            }
            if (firstEligible < 0 && eligible(s, r, v)) {
                firstEligible = v;
            }
        }
        boolean fallThrough = s.config().readings().ringFallThrough();
        int want = fallThrough ? firstEligible : firstUp >= 0 && eligible(s, r, firstUp) ? firstUp : -1;
        if (p.holder() == want) {
            return null;
        }
        String rule = fallThrough ? "the first worker after its server " + r.server() + " on the fixed ring (" + s.config().readings().ringDirection()
                        + ") with room for it (ringFallThrough)"
                : "the first UP worker after its server " + r.server() + " on the fixed ring (" + s.config().readings().ringDirection()
                        + "), " + (firstUp < 0 ? "and there is none" : "worker " + firstUp + ", when it has room, else none");
        return new Finding(PropertyId.A4, "Fixed-Checkpointing's holder of request " + r.id() + " is " + rule,
                SpecStep.holderName(want), SpecStep.holderName(p.holder()));
    }

    /**
     * A6: under the arrival=shortest reading a new request joins a shortest queue, Eq. 4's Q_w
     * under the queue reading, among the UP workers; under arrival=any, wherever the gateway sends
     * it (a worker that is not UP is not a step of the spec, judged there). Restated by a scan over
     * the workers (past {@link #SCAN_MAX}, the index's minimum), not by the core's own target.
     */
    public static Finding a6(ClusterState s, Event.Arrive a) {
        Readings rd = s.config().readings();
        if (rd.anyArrival() || s.request(a.req()) != null || a.worker() < 0 || a.worker() >= s.workerCount()) {
            return null;
        }
        int least = -1;
        if (s.workerCount() > SCAN_MAX) {
            least = s.index().minQueue();
        } else {
            for (int w = 0; w < s.workerCount(); w++) {
                if (s.isUp(w) && (least < 0 || s.depth(w) < s.depth(least))) {
                    least = w;
                }
            }
        }
        if (least < 0 || s.depth(a.worker()) <= s.depth(least)) {
            return null;
        }
        return new Finding(PropertyId.A6, "the gateway must queue request " + a.req() + " on a shortest queue (Q_w under queue=" + rd.queue()
                + (rd.queue() == Readings.QueueDepth.RUN ? ": queued and running requests" : ": requests waiting for their prefill")
                + "; arrival=shortest, docs/readings.md#arrival)",
                "a worker with Q_w=" + s.depth(least) + " (e.g. " + least + ")",
                "worker " + a.worker() + " with Q_w=" + s.depth(a.worker()));
    }

    /**
     * S17 on a step: a Decode that delivers several tokens at once, the reference's next ones, for a
     * request with no draft in flight: the verification of a draft that is not (or no longer) in
     * flight for its server, such as one made before the request was interrupted and kept across
     * the failure. A decode without a draft delivers one token.
     */
    public static Finding s17(RequestRec r, Event.Decode d) {
        int[] got = d.tokens();
        int n = r.outLen();
        int[] ref = r.ref();
        if (r.proposal() != null || got.length < 2 || ref == null || n + got.length > ref.length
                || !java.util.Arrays.equals(got, 0, got.length, ref, n, n + got.length)) {
            return null;
        }
        return new Finding(PropertyId.S17, "Decode of request " + r.id() + " on worker " + d.worker() + " delivers " + got.length
                + " tokens at once, as the verification of a draft would, but no draft is in flight for it there: a draft is verified"
                + " only on the survivor it was made for, while in flight (a failure that interrupts its request drops it)",
                "1 token (no draft in flight)", got.length + " tokens");
    }

    /**
     * S16: a Prefill or Decode whose tokens are not those the spec delivers, and are the reference's
     * from a position the client already has, sends them again (a re-prefill that restarts the
     * output, a restore that repeats the last token). The output a client has only grows.
     */
    public static Finding s16(RequestRec r, Event e) {
        int[] got = e instanceof Event.Prefill p ? p.tokens() : ((Event.Decode) e).tokens();
        int n = r.outLen();
        int[] ref = r.ref();
        if (got.length == 0 || n == 0 || ref == null) {
            return null;
        }
        int[] want = e instanceof Event.Prefill ? SpecStep.expectedPrefillTokens(r) : SpecStep.expectedDecodeTokens(r);
        if (java.util.Arrays.equals(want, got)) {
            return null;
        }
        for (int j = 1; j <= n; j++) {
            if (j + got.length - 1 <= ref.length && java.util.Arrays.equals(got, 0, got.length, ref, j - 1, j - 1 + got.length)) {
                return new Finding(PropertyId.S16, e.action().specName() + " of request " + r.id() + " sends again output tokens " + j + ".."
                        + (j + got.length - 1) + ", which its client already has (it has tokens 1.." + n + "): a restore or a re-prefill"
                        + " resumes the client's output where it stands", java.util.Arrays.toString(want), java.util.Arrays.toString(got));
            }
        }
        return null;
    }

    /**
     * A3: every draft goes to a request on an UP worker: under the session reading on the
     * assisting worker's target while that target is UP, else on a most loaded UP worker.
     */
    public static Finding a3(ClusterState s, Event.Assist a) {
        RequestRec r = s.request(a.req());
        int server = r.server();
        if (server < 0 || !s.isUp(server)) {
            return new Finding(PropertyId.A3, "a draft for request " + r.id() + ", which is on no UP worker",
                    "an UP server", server < 0 ? "none" : "worker " + server + " (" + s.worker(server).state() + ")");
        }
        int kept = s.keptTarget(a.worker());
        if (kept >= 0) {
            return server == kept ? null
                    : new Finding(PropertyId.A3, "a draft of worker " + a.worker() + " for request " + r.id()
                            + " leaves its assist session's target (assistTarget=session: the target is chosen once"
                            + " and kept while it is UP, Algorithm 3 line 4)", "worker " + kept, "worker " + server);
        }
        return mostLoaded(s, server, "a draft for request " + r.id() + " goes to a worker that is not most loaded");
    }

    /** A3: a target a DraftReady names is a most loaded UP worker when it is chosen. */
    public static Finding a3(ClusterState s, Event.DraftReady d) {
        int t = d.target();
        if (t < 0) {
            return null;
        }
        if (!s.isUp(t)) {
            return new Finding(PropertyId.A3, "worker " + d.worker() + "'s assist target, which is not UP",
                    "an UP worker", "worker " + t + " (" + s.worker(t).state() + ")");
        }
        return mostLoaded(s, t, "worker " + d.worker() + "'s assist target is not a most loaded UP worker");
    }

    /** A3's load test, by a plain scan: no UP worker is more loaded than {@code u}; a finding names the most loaded one. */
    private static Finding mostLoaded(ClusterState s, int u, String what) {
        // past SCAN_MAX workers the index's argmax over the UP workers (lowest id on ties, as the scan)
        int top = s.workerCount() > SCAN_MAX ? s.index().maxLoad() : -1;
        for (int w = 0; s.workerCount() <= SCAN_MAX && w < s.workerCount(); w++) {
            if (s.isUp(w) && (top < 0 || s.seen(w) > s.seen(top))) {
                top = w;
            }
        }
        return top < 0 || s.seen(top) <= s.seen(u) ? null
                : new Finding(PropertyId.A3, what, "L=" + s.seen(top) + " (worker " + top + ")", "L=" + s.seen(u) + " (worker " + u + ")");
    }
}
