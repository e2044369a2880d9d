package lumen.core;

/**
 * The spec's action properties as Java checks on one step (pre-state and event): S12 and S14,
 * which hold under every policy, and A1 to A3, the load-aware decision rules. A1 to A3 restate
 * their rule from the paper by a plain scan over the workers, independently of the
 * {@link LoadIndex} and of the policies, exactly as the TLA+ properties restate them
 * independently of {@code HolderCandidates} and {@code UseHolder}. Past {@link #SCAN_MAX}
 * workers, where a scan per decision would cost O(W), they ask the index for the argmin and argmax
 * instead (LoadIndexTest and ActionPropertiesTest hold the two to the same answers).
 */
public final class ActionProperties {
    private ActionProperties() {}

    /** The first action property the step breaks, in report order (S12, S14, A1, A2, A3), or null. */
    public static Finding check(ClusterState pre, Event e) {
        return switch (e.action()) {
            case PLACE -> pre.policy().loadAwarePlacement() ? a1(pre, (Event.Place) e) : null;
            case ROUTE -> {
                Event.Route rt = (Event.Route) e;
                if (pre.request(rt.req()).phase() != RequestPhase.INTERRUPTED) {
                    yield null;
                }
                Finding f = s12(pre, rt);
                yield f != null || !pre.policy().eq6Routing() ? f : a2(pre, rt);
            }
            case PREFILL, DECODE -> s14(pre, pre.request(e.req()), e);
            case ASSIST -> a3(pre, (Event.Assist) e);
            case DRAFT_READY -> a3(pre, (Event.DraftReady) e);
            default -> null;
        };
    }

    /**
     * S12: a RESTORE resumes on the request's live holder with exactly the checkpoint C_r that
     * holder saved. Whether to restore at all is the routing rule's question (A2 under LUMEN);
     * this is about what a restore brings back, under every policy.
     */
    public static Finding s12(ClusterState s, Event.Route rt) {
        if (rt.mode() != RouteMode.RESTORE) {
            return null;
        }
        RequestRec r = s.request(rt.req());
        int h = r.holder();
        if (h >= 0 && rt.worker() != h && r.ckpt().length() > 0 && rt.resumed() > 0) {
            // the pages it resumes with are the holder's copy, now on another worker's GPU
            return new Finding(PropertyId.S13, "RESTORE of request " + r.id() + " on worker " + rt.worker()
                    + ", which holds no copy of it: a restore reads the copy streamed to its holder", "worker " + h, "worker " + rt.worker());
        }
        if (h >= 0 && s.isUp(h) && rt.worker() == h && rt.resumed() == r.ckpt().length()) {
            return null;
        }
        String where = h < 0 ? "request " + r.id() + " has no checkpoint to restore"
                : !s.isUp(h) ? "request " + r.id() + "'s holder " + h + " is " + s.worker(h).state()
                : "a RESTORE of request " + r.id() + " resumes on its holder " + h + " with exactly the checkpoint it saved";
        return new Finding(PropertyId.S12, where, h < 0 ? "no RESTORE" : "worker " + h + ", resumed " + r.ckpt().length(),
                "worker " + rt.worker() + ", resumed " + rt.resumed());
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
     * A2: RESTORE on the live holder exactly when L(h) <= theta or |C_r| > tau, else REPREFILL on an
     * argmin; L is Algorithm 2's load ({@link ClusterState#routeLoad}: Eq. 4 now, or under
     * routeLoads=increment the load at the failure plus beta per request routed since).
     */
    public static Finding a2(ClusterState s, Event.Route rt) {
        RequestRec r = s.request(rt.req());
        int h = r.holder();
        boolean restore = h >= 0 && s.isUp(h)
                && (s.routeLoad(h) <= s.config().theta() || r.ckpt().length() > s.config().tau());
        if (restore) {
            if (rt.worker() != h || rt.mode() != RouteMode.RESTORE) {
                return new Finding(PropertyId.A2, "Eq. 6 sends request " + r.id() + " to its holder (L(h)=" + s.routeLoad(h)
                        + ", theta=" + s.config().theta() + ", |C_r|=" + r.ckpt().length() + ", tau=" + s.config().tau() + ")",
                        "RESTORE on worker " + h, rt.mode() + " on worker " + rt.worker());
            }
            return rt.resumed() == r.ckpt().length() ? null
                    : new Finding(PropertyId.A2, "request " + r.id() + " must resume with exactly its checkpoint C_r",
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
            String why = h < 0 ? "it has no checkpoint" : !s.isUp(h) ? "its holder is down"
                    : "L(h)=" + s.routeLoad(h) + " > theta=" + s.config().theta() + " and |C_r|=" + r.ckpt().length() + " <= tau=" + s.config().tau();
            return new Finding(PropertyId.A2, "Eq. 6 re-prefills request " + r.id() + " on a least loaded survivor (" + why + ")",
                    "REPREFILL on a worker with L=" + min + " (worker " + least + ")", rt.mode() + " on worker " + rt.worker()
                    + (s.isUp(rt.worker()) ? " (L=" + s.routeLoad(rt.worker()) + ")" : ""));
        }
        if (rt.resumed() != 0) {
            return new Finding(PropertyId.A2, "a re-prefilled request starts from no KV", "0", Integer.toString(rt.resumed()));
        }
        return rt.freed() == r.savedPositions() ? null
                : new Finding(PropertyId.A2, "a re-prefill frees request " + r.id() + "'s checkpoint",
                        "freed " + r.savedPositions(), "freed " + rt.freed());
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
