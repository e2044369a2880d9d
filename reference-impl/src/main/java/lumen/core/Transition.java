package lumen.core;

/**
 * The effect of each spec action, applied exactly as an event reports it. This is the right-hand
 * side of each TLA+ action with its parameters and outcome taken from the event; the guards and
 * the spec's expected outcome live in {@link SpecStep}. Keeping them apart lets the trace
 * validator apply what an implementation claims and then judge the state it claimed, with the
 * same invariant checks the spec states.
 *
 * <p>Workers and requests named by the event must exist (the validator checks that first).
 */
public final class Transition {
    private Transition() {}

    public static ClusterState apply(ClusterState s, Event e) {
        return switch (e.action()) {
            case ARRIVE -> arrive(s, (Event.Arrive) e);
            case PLACE -> place(s, (Event.Place) e);
            case PREFILL -> prefill(s, (Event.Prefill) e);
            case DECODE -> decode(s, (Event.Decode) e);
            case STREAM_PAGE -> streamPage(s, (Event.StreamPage) e);
            case COMPLETE -> complete(s, (Event.Complete) e);
            case FAIL -> fail(s, (Event.Fail) e);
            case ROUTE -> route(s, (Event.Route) e);
            case RESTART -> s.withWorker(s.worker(((Event.Restart) e).worker()).withState(s.policy().restartState(), ActiveModel.NONE));
            case DRAFT_READY -> draftReady(s, (Event.DraftReady) e);
            case ASSIST -> assist(s, (Event.Assist) e);
            case FULL_READY -> fullReady(s, (Event.FullReady) e);
            case ZOMBIE_TOKEN -> zombieToken(s, (Event.ZombieToken) e);
            case ZOMBIE_PAGE -> zombiePage(s, (Event.ZombiePage) e);
            case ZOMBIE_STOPS -> s.withWorker(s.worker(((Event.ZombieStops) e).worker()).withZombie(null));
            case ZOMBIE_ACK -> zombieAck(s, (Event.ZombieAck) e);
        };
    }

    /**
     * {@code ZombieOf(w)}: w's incarnation as the Fail fences it, with its view of each request it
     * served (its run queue before the Fail). A worker failed again while its old zombie lives
     * gets the new one: a trace names a worker's zombie by the worker, so it is the incarnation
     * the latest Fail fenced.
     */
    private static Zombie zombieOf(ClusterState s, WorkerRec w) {
        PIntMap<Zombie.Req> reqs = PIntMap.empty();
        for (int id : w.runq().keys()) {
            RequestRec r = s.request(id);
            if (r != null) {
                reqs = reqs.put(id, new Zombie.Req(r.outLen(), r.refLen(), r.kv(), r.holder(), r.ckpt().length() + 1));
            }
        }
        PIntMap<PageSeq> held = PIntMap.empty();
        for (int id : w.held().keys()) {
            RequestRec r = s.request(id);
            if (r != null && r.holder() == w.id() && r.ckpt().length() > 0) {
                held = held.put(id, r.ckpt());
            }
        }
        return new Zombie(w.epoch(), reqs, held);
    }

    /**
     * The zombie's acknowledgement of the copy of r it held, as reported: taken, r's holder is the
     * zombie's worker again with that copy, every page of it not intact (it comes from a fenced
     * epoch; S19 names it).
     */
    private static ClusterState zombieAck(ClusterState s, Event.ZombieAck a) {
        WorkerRec w = s.worker(a.worker());
        Zombie z = w.zombie();
        PageSeq copy = z == null ? null : z.held().get(a.req());
        ClusterState n = copy == null ? s : s.withWorker(w.withZombie(z.acknowledged(a.req())));
        RequestRec r = n.request(a.req());
        if (!a.accepted() || copy == null || r.holder() >= 0) {
            return n;
        }
        // every position a hole: none of it may pass for a page the live incarnation stored
        return n.withRequest(r.withHolder(a.worker(), PageSeq.EMPTY.resize(copy.length())))
                .withWorker(n.worker(a.worker()).hold(r.id(), r.size(), copy.length()));
    }

    /** The zombie's token, as reported: taken into r's stream when the event says the gateway took it (S18 then names it). */
    private static ClusterState zombieToken(ClusterState s, Event.ZombieToken t) {
        WorkerRec w = s.worker(t.worker());
        Zombie z = w.zombie();
        Zombie.Req q = z == null ? null : z.reqs().get(t.req());
        ClusterState n = q == null ? s : s.withWorker(w.withZombie(z.with(t.req(), q.tokenWritten())));
        return t.accepted() ? n.withRequest(n.request(t.req()).withOutput(new int[] {t.token()})) : n;
    }

    /**
     * The zombie's page, as reported: when the event says the holder took it, r's checkpoint grows
     * by a page that is not intact (it came from a fenced epoch, whatever its bytes; S19 names it).
     */
    private static ClusterState zombiePage(ClusterState s, Event.ZombiePage p) {
        WorkerRec w = s.worker(p.worker());
        Zombie z = w.zombie();
        Zombie.Req q = z == null ? null : z.reqs().get(p.req());
        ClusterState n = q == null ? s : s.withWorker(w.withZombie(z.with(p.req(), q.pageWritten())));
        if (!p.accepted() || q == null) {
            return n;
        }
        RequestRec r = n.request(p.req());
        if (r.backup() >= 0 && p.holder() == r.backup() && p.holder() != r.holder()) {
            return n.withRequest(r.withBackup(r.backup(), r.bckpt().resize(r.bckpt().length() + 1)))
                    .withWorker(n.worker(r.backup()).addStored(1));
        }
        if (r.holder() != p.holder() || r.holder() < 0) {
            return n;
        }
        return n.withRequest(r.withHolder(r.holder(), r.ckpt().resize(r.ckpt().length() + 1)))
                .withWorker(n.worker(r.holder()).addStored(1));
    }

    /** The worker assists; under the session reading a target the event names is its session's target. */
    private static ClusterState draftReady(ClusterState s, Event.DraftReady d) {
        int t = s.config().readings().sessionTarget() && d.target() >= 0 ? d.target() : -1;
        return s.withWorker(s.worker(d.worker()).withState(WorkerState.ASSISTING, ActiveModel.DRAFT).withTarget(t));
    }

    /** A draft is in flight; under the session reading its request's server is the session's target from now on. */
    private static ClusterState assist(ClusterState s, Event.Assist a) {
        RequestRec r = s.request(a.req());
        ClusterState n = s.withRequest(r.withProposal(new RequestRec.Proposal(a.worker(), r.server(), a.draft())));
        return s.config().readings().sessionTarget() ? n.withWorker(n.worker(a.worker()).withTarget(r.server())) : n;
    }

    private static ClusterState arrive(ClusterState s, Event.Arrive a) {
        RequestRec old = s.request(a.req());
        RequestRec r = RequestRec.arrived(a.req(), a.worker(), a.promptLen(), a.ref(), a.maxOut());
        if (old != null) {
            // a second arrival keeps whatever the first left behind, so S2 sees both queues
            r = old.withServer(a.worker()).withPhase(RequestPhase.QUEUED).withPlaced(false);
        }
        return s.withRequest(r).withWorker(s.worker(a.worker()).enqueue(a.req()));
    }

    /**
     * A placement as reported: the old copies (a correct trace has none here) are released, the new
     * holder and backup reserve Size(r) and start with empty copies.
     */
    private static ClusterState place(ClusterState s, Event.Place p) {
        RequestRec r = s.request(p.req());
        if (p.keepsHolderOf(r) && r.backup() < 0) {
            // the rebackup reading: r keeps its holder and its copy, and gains a backup
            ClusterState n = p.backup() >= 0 ? s.withWorker(s.worker(p.backup()).hold(r.id(), r.size(), 0)) : s;
            return n.withRequest(r.withBackup(p.backup(), PageSeq.EMPTY));
        }
        ClusterState n = s;
        if (r.holder() >= 0) {
            n = n.withWorker(n.worker(r.holder()).release(r.id(), r.size(), r.ckpt().length()));
        }
        if (r.backup() >= 0) {
            n = n.withWorker(n.worker(r.backup()).release(r.id(), r.size(), r.bckpt().length()));
        }
        if (p.holder() >= 0) {
            n = n.withWorker(n.worker(p.holder()).hold(r.id(), r.size(), 0));
        }
        if (p.backup() >= 0) {
            n = n.withWorker(n.worker(p.backup()).hold(r.id(), r.size(), 0));
        }
        return n.withRequest(r.withHolder(p.holder(), PageSeq.EMPTY).withBackup(p.backup(), PageSeq.EMPTY).withPlaced(true));
    }

    /** A step of r reported by a worker other than its server: that worker serves r too (S2, S3 or S10 judge it). */
    /**
     * r served by w as reported: w's queue holds it, and a request that had no server (a finished
     * one, prefilled or decoded again) has w as its server, as the spec's Server(r) reads the run
     * queues.
     */
    private static ClusterState servedBy(ClusterState s, int req, int w) {
        RequestRec r = s.request(req);
        if (r.server() == w || w < 0) {
            return s;
        }
        ClusterState n = s.withWorker(s.worker(w).enqueue(req));
        return r.server() < 0 ? n.withRequest(r.withServer(w)) : n;
    }

    private static ClusterState prefill(ClusterState s, Event.Prefill p) {
        ClusterState n = servedBy(s, p.req(), p.worker());
        RequestRec r = n.request(p.req()).withOutput(p.tokens());
        r = r.withKv(r.kv().extendIntact(r.kvLen())).withPhase(RequestPhase.DECODE);
        int w = p.worker() >= 0 ? p.worker() : r.server();
        if (w >= 0) {
            n = n.withWorker(n.worker(w).started(p.req()));
        }
        return n.withRequest(r);
    }

    private static ClusterState decode(ClusterState s, Event.Decode d) {
        ClusterState n = servedBy(s, d.req(), d.worker());
        return n.withRequest(n.request(d.req()).decoded(d.tokens()));
    }

    private static ClusterState streamPage(ClusterState s, Event.StreamPage sp) {
        RequestRec r = s.request(sp.req());
        if (r.backup() >= 0 && sp.holder() == r.backup() && sp.holder() != r.holder()) {
            PageSeq c = r.bckpt().streamFrom(r.kv(), sp.ckpt());
            return s.withRequest(r.withBackup(r.backup(), c))
                    .withWorker(s.worker(r.backup()).addStored(c.length() - r.bckpt().length()));
        }
        PageSeq c = r.ckpt().streamFrom(r.kv(), sp.ckpt());
        ClusterState n = s.withRequest(r.withHolder(r.holder(), c));
        if (r.holder() >= 0) {
            n = n.withWorker(n.worker(r.holder()).addStored(c.length() - r.ckpt().length()));
        }
        return n;
    }

    /**
     * Frees {@code freed} positions of r's checkpoint copies, the backup's first; a copy freed
     * whole releases its holder too. Freeing less than everything leaves the rest held (a leak,
     * which S8 reports once the request is DONE).
     */
    private static ClusterState freeCheckpoint(ClusterState s, RequestRec r, int freed, RequestRec updated) {
        int left = Math.max(0, freed);
        ClusterState n = s;
        RequestRec u = updated;
        if (r.backup() >= 0) {
            WorkerRec b = n.worker(r.backup());
            if (left >= r.bckpt().length()) {
                left -= r.bckpt().length();
                n = n.withWorker(b.release(r.id(), r.size(), r.bckpt().length()));
                u = u.withBackup(-1, PageSeq.EMPTY);
            } else {
                int keep = r.bckpt().length() - left;
                left = 0;
                n = n.withWorker(b.addStored(keep - r.bckpt().length()));
                u = u.withBackup(r.backup(), r.bckpt().resize(keep));
            }
        } else {
            u = u.withBackup(-1, PageSeq.EMPTY);
        }
        if (r.holder() < 0) {
            return n.withRequest(u.withHolder(-1, PageSeq.EMPTY));
        }
        WorkerRec h = n.worker(r.holder());
        if (left >= r.ckpt().length()) {
            return n.withWorker(h.release(r.id(), r.size(), r.ckpt().length()))
                    .withRequest(u.withHolder(-1, PageSeq.EMPTY));
        }
        int keep = r.ckpt().length() - left;
        return n.withWorker(h.addStored(keep - r.ckpt().length()))
                .withRequest(u.withHolder(r.holder(), r.ckpt().resize(keep)));
    }

    private static ClusterState complete(ClusterState s, Event.Complete c) {
        RequestRec r = s.request(c.req());
        ClusterState n = s;
        if (r.server() >= 0) {
            n = n.withWorker(n.worker(r.server()).dequeue(r.id()));
        }
        RequestRec done = r.finished();
        return freeCheckpoint(n, r, c.freed(), done);
    }

    /**
     * A crash as reported: the listed requests are interrupted, the listed checkpoints lost. The
     * worker's whole queue and host memory are gone whatever the event lists, so a queued request
     * the event leaves out is lost (S1), and a checkpoint it leaves out stays held by a dead
     * worker (S8).
     */
    private static ClusterState fail(ClusterState s, Event.Fail f) {
        WorkerRec w = s.worker(f.worker());
        ClusterState n = s;
        for (int id : f.interrupted()) {
            RequestRec r = n.request(id);
            if (r.server() >= 0 && r.server() != f.worker()) {
                n = n.withWorker(n.worker(r.server()).dequeue(id));
            }
            n = n.withRequest(r.withPhase(RequestPhase.INTERRUPTED).withServer(-1).withKv(PageSeq.EMPTY).withProposal(null));
        }
        PIntMap<Boolean> held = w.held();
        long stored = w.stored();
        long reserved = w.reserved();
        java.util.Set<Integer> promoted = new java.util.HashSet<>();
        for (int id : f.promoted()) {
            promoted.add(id);
        }
        for (int id : f.orphaned()) {
            RequestRec r = n.request(id);
            if (r.backup() == f.worker() && r.holder() != f.worker()) {
                held = held.remove(id);
                stored -= r.bckpt().length();
                reserved -= r.size();
                n = n.withRequest(r.withBackup(-1, PageSeq.EMPTY));
                continue;
            }
            if (r.holder() != f.worker()) {
                continue;
            }
            held = held.remove(id);
            stored -= r.ckpt().length();
            reserved -= r.size();
            if (promoted.contains(id) && r.backup() >= 0) {
                // the backup takes over, with its own copy; its worker already holds the pages
                n = n.withRequest(r.withHolder(r.backup(), r.bckpt()).withBackup(-1, PageSeq.EMPTY));
                continue;
            }
            // a running request that lost its holder keeps its placement decision: Algorithm 1
            // re-protects it (NeedsProtection) as soon as a holder can be had
            n = n.withRequest(r.withHolder(-1, PageSeq.EMPTY));
        }
        n = n.withWorker(w.crashed(held, stored, reserved, zombieOf(s, w)));
        // drafts this worker had in flight die with it
        for (int id : n.requestsWithProposalFrom(f.worker())) {
            n = n.withRequest(n.request(id).withProposal(null));
        }
        return forget(routeLoadsAfterFail(s, n.withFailure(), f), f.worker());
    }

    /** Under citedLoads=stale the monitor forgets a failed worker's report (the spec's seen'[w] = 0). */
    private static ClusterState forget(ClusterState n, int w) {
        if (!n.staleLoads() || n.seenLoads() == null || n.seenLoads()[w] == 0) {
            return n;
        }
        double[] v = n.seenLoads().clone();
        v[w] = 0;
        return n.withSeen(v);
    }

    /**
     * {@code RouteLoadsAfterFail}: under routeLoads=increment Algorithm 2 starts from the loads at
     * the failure (a survivor's load is the same after it), or there is nothing to route.
     */
    private static ClusterState routeLoadsAfterFail(ClusterState pre, ClusterState n, Event.Fail f) {
        if (!pre.routeIncrement()) {
            return n;
        }
        if (f.interrupted().length == 0 && !pre.anyInterruptedBut(-1)) {
            return n.withRouteLoads(null);
        }
        double[] l = new double[pre.workerCount()];
        for (int v = 0; v < l.length; v++) {
            l[v] = pre.isUp(v) ? pre.load(v) : 0;
        }
        return n.withRouteLoads(l);
    }

    /** {@code RouteLoadsAfterRoute}: t is charged beta ("L(t) += cost"); the run ends with the last interrupted request. */
    private static ClusterState routeLoadsAfterRoute(ClusterState pre, ClusterState n, int r, int t) {
        if (!pre.routeIncrement()) {
            return n;
        }
        if (!pre.anyInterruptedBut(r)) {
            return n.withRouteLoads(null);
        }
        double[] l = pre.routeLoads() == null ? new double[pre.workerCount()] : pre.routeLoads().clone();
        l[t] += pre.config().beta();
        return n.withRouteLoads(l);
    }

    private static ClusterState route(ClusterState s, Event.Route rt) {
        RequestRec r = s.request(rt.req());
        PageSeq kv = rt.mode() == RouteMode.RESTORE ? r.ckpt().resize(rt.resumed()) : PageSeq.EMPTY.resize(rt.resumed());
        RequestRec moved = r.withServer(rt.worker()).withKv(kv).withPhase(RequestPhase.QUEUED).withPlaced(false);
        ClusterState n = s.withWorker(s.worker(rt.worker()).enqueue(r.id()));
        return routeLoadsAfterRoute(s, freeCheckpoint(n, r, rt.freed(), moved), r.id(), rt.worker());
    }

    private static ClusterState fullReady(ClusterState s, Event.FullReady f) {
        ClusterState n = s.withWorker(s.worker(f.worker()).withState(WorkerState.UP, ActiveModel.FULL));
        for (int id : f.dropped()) {
            RequestRec r = n.request(id);
            if (r != null && r.proposal() != null && r.proposal().src() == f.worker()) {
                n = n.withRequest(r.withProposal(null));
            }
        }
        if (s.routeIncrement() && s.routeLoads() != null) {
            // Algorithm 3 line 8: L(w) <- 0
            double[] l = s.routeLoads().clone();
            l[f.worker()] = 0;
            n = n.withRouteLoads(l);
        }
        return n;
    }
}
