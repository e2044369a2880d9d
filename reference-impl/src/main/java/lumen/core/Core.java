package lumen.core;

/**
 * The decision core: one method per spec action. Each takes the current state, makes the
 * decision the spec leaves open the way the state's policy says (with the documented tie-break:
 * the lowest worker id among equals), and returns the next state and the event it emits. It has
 * no clock, thread or I/O; the simulator, the runtime and the conformance adapter all drive it.
 *
 * <p>Methods whose outcome is the model's ({@code prefill}, {@code decode} and {@code assist}
 * with tokens) take that outcome from the caller, which is how the runtime's real models enter
 * the trace; the overloads without tokens compute the spec's own outcome from the reference
 * output, as the simulator does. A method called when its action is not enabled throws
 * {@link IllegalStateException} with the spec's reason: that is a bug in the driver. So does one
 * whose decision the spec does not allow (a stream past the written positions, an assist to a
 * worker that is not most loaded); only a caller's tokens are left to validation to judge.
 */
public final class Core {
    private Core() {}

    private static Step take(ClusterState s, Event e) {
        return take(s, e, true);
    }

    /** Takes the step if the spec allows it; {@code tokens} false leaves a caller's tokens to validation. */
    private static Step take(ClusterState s, Event e, boolean tokens) {
        Finding f = SpecStep.check(s, e, tokens);
        if (f != null) {
            throw new IllegalStateException(e.action().specName() + " is not enabled: " + f.message());
        }
        return new Step(Transition.apply(s, e), e);
    }

    private static RequestRec req(ClusterState s, int r) {
        RequestRec rec = s.request(r);
        if (rec == null) {
            throw new IllegalStateException("request " + r + " has not arrived");
        }
        return rec;
    }

    /** Arrive: the gateway queues r on a shortest queue (under arrival=any, by its id: {@link ClusterState#arriveTarget(int)}). */
    public static Step arrive(ClusterState s, int r, int promptLen, int[] ref) {
        int w = s.arriveTarget(r);
        if (w < 0) {
            throw new IllegalStateException("Arrive is not enabled: no worker is UP");
        }
        return take(s, new Event.Arrive(r, w, promptLen, ref.clone()));
    }

    /**
     * Place: the policy's holder for r, or none; under lumen-dual also a backup. Under the rebackup
     * reading a request that has a holder keeps it and is given a backup.
     */
    public static Step place(ClusterState s, int r) {
        RequestRec rec = req(s, r);
        if (rec.placed() && rec.holder() >= 0) {
            return take(s, new Event.Place(r, rec.holder(), s.policy().chooseBackup(s, rec, rec.holder())));
        }
        int h = s.policy().chooseHolder(s, rec);
        return take(s, new Event.Place(r, h, s.policy().chooseBackup(s, rec, h)));
    }

    /** The pages a Prefill of r writes: from its KV so far to KvLen (the prompt, for a first prefill). */
    public static int[] prefillRange(RequestRec r) {
        return new int[] {r.kv().length() + 1, r.outLen() == 0 ? r.promptLen() : r.kvLen()};
    }

    public static Step prefill(ClusterState s, int r) {
        RequestRec rec = req(s, r);
        int[] range = prefillRange(rec);
        return take(s, new Event.Prefill(r, rec.server(), SpecStep.expectedPrefillTokens(rec),
                PageDigest.synthetic(r, range[0], range[1], s.config().pageTokens())));
    }

    /** Prefill with the model's tokens and the content of the pages the server wrote. */
    public static Step prefill(ClusterState s, int r, int[] tokens, PageDigest[] pages) {
        return take(s, new Event.Prefill(r, req(s, r).server(), tokens, pages), false);
    }

    public static Step decode(ClusterState s, int r) {
        RequestRec rec = req(s, r);
        int[] toks = SpecStep.expectedDecodeTokens(rec);
        int from = rec.kv().length() + 1;
        return take(s, new Event.Decode(r, rec.server(), toks,
                PageDigest.synthetic(r, from, from + toks.length - 1, s.config().pageTokens())));
    }

    /** Decode with the model's tokens and the content of the pages the server wrote. */
    public static Step decode(ClusterState s, int r, int[] tokens, PageDigest[] pages) {
        return take(s, new Event.Decode(r, req(s, r).server(), tokens, pages), false);
    }

    /** StreamPage: r's checkpoint grows to {@code upTo} positions (at most what its server wrote). */
    public static Step streamPage(ClusterState s, int r, int upTo) {
        RequestRec rec = req(s, r);
        return streamPage(s, r, upTo, PageDigest.synthetic(r, rec.ckpt().length() + 1, upTo, s.config().pageTokens()));
    }

    /** StreamPage with the content of the copy's pages that changed. */
    public static Step streamPage(ClusterState s, int r, int upTo, PageDigest[] pages) {
        RequestRec rec = req(s, r);
        return take(s, new Event.StreamPage(r, rec.holder(), upTo, pages));
    }

    /** StreamPage to r's backup holder (lumen-dual): its copy grows to {@code upTo} positions. */
    public static Step streamBackupPage(ClusterState s, int r, int upTo) {
        RequestRec rec = req(s, r);
        return streamBackupPage(s, r, upTo, PageDigest.synthetic(r, rec.bckpt().length() + 1, upTo, s.config().pageTokens()));
    }

    public static Step streamBackupPage(ClusterState s, int r, int upTo, PageDigest[] pages) {
        RequestRec rec = req(s, r);
        if (rec.backup() < 0) {
            throw new IllegalStateException("StreamPage is not enabled: request " + r + " has no backup");
        }
        return take(s, new Event.StreamPage(r, rec.backup(), upTo, pages));
    }

    public static Step complete(ClusterState s, int r) {
        RequestRec rec = req(s, r);
        return take(s, new Event.Complete(r, rec.server(), rec.savedPositions()));
    }

    /** Fail: w crashes; its queue and the checkpoints it held are lost. */
    public static Step fail(ClusterState s, int w) {
        WorkerRec rec = s.worker(w);
        return take(s, new Event.Fail(w, rec.runq().keys(), rec.held().keys(), SpecStep.expectedPromoted(s, w)));
    }

    /** Route: Eq. 6 under the policy; RESTORE on the holder or REPREFILL on the least loaded. */
    public static Step route(ClusterState s, int r) {
        RequestRec rec = req(s, r);
        return route(s, r, s.useHolder(rec) ? PageDigest.synthetic(r, 1, rec.ckpt().length(), s.config().pageTokens()) : new PageDigest[0]);
    }

    /** Route, with the content of the pages a RESTORE brought back into the GPU (unused for a REPREFILL). */
    public static Step route(ClusterState s, int r, PageDigest[] restored) {
        RequestRec rec = req(s, r);
        if (rec.phase() != RequestPhase.INTERRUPTED) {
            throw new IllegalStateException("Route is not enabled: request " + r + " is " + rec.phase());
        }
        if (s.useHolder(rec)) {
            return take(s, new Event.Route(r, RouteMode.RESTORE, rec.holder(), rec.ckpt().length(), rec.savedPositions(), restored));
        }
        int t = s.reprefillTarget();
        if (t < 0) {
            throw new IllegalStateException("Route is not enabled: no worker is UP");
        }
        return take(s, new Event.Route(r, RouteMode.REPREFILL, t, 0, rec.savedPositions(), new PageDigest[0]));
    }

    public static Step restart(ClusterState s, int w) {
        return take(s, new Event.Restart(w));
    }

    /** DraftReady; under the session reading the target is chosen here, a most loaded UP worker (lowest id). */
    public static Step draftReady(ClusterState s, int w) {
        return draftReady(s, w, true);
    }

    /**
     * DraftReady; with {@code chooseNow} false the session's target is left to the first proposal
     * (the spec allows both; a system that decides later logs no target).
     */
    public static Step draftReady(ClusterState s, int w, boolean chooseNow) {
        return take(s, new Event.DraftReady(w, chooseNow && s.config().readings().sessionTarget() ? s.assistTarget() : -1));
    }

    /** Assist: w proposes {@code draft} for r (r must be on a most loaded UP worker). */
    public static Step assist(ClusterState s, int w, int r, int[] draft) {
        return take(s, new Event.Assist(w, r, draft.clone()));
    }

    /**
     * The request recovering worker {@code w} assists next: on a worker it may assist now
     * ({@link ClusterState#mayAssist}: its session's target under the session reading, while that
     * target is UP; else a most loaded UP worker, any of them when several tie), decoding without a
     * draft and with tokens left; the lowest worker id, then the lowest request id, first. -1 when
     * there is none.
     */
    public static int assistCandidate(ClusterState s, int w) {
        return assistCandidate(s, w, id -> false);
    }

    /** As {@link #assistCandidate(ClusterState, int)}, skipping the requests {@code taken} (drafts another worker is preparing). */
    public static int assistCandidate(ClusterState s, int w, java.util.function.IntPredicate taken) {
        int[] round = assistRound(s, w, taken);
        return round.length == 0 ? -1 : round[0];
    }

    /**
     * The requests one assist round of recovering worker {@code w} drafts for: every request that
     * {@link #assistCandidate} could name on the first worker where it names one (the session's
     * target under the session reading; else a most loaded UP worker, the lowest id first), in queue
     * order, skipping those {@code taken}. Empty when there is none.
     */
    public static int[] assistRound(ClusterState s, int w, java.util.function.IntPredicate taken) {
        int kept = s.keptTarget(w);
        if (kept >= 0) {
            return assistRound(s, w, kept, taken);
        }
        // a most loaded UP worker, the lowest id first; the overload skips those w may not assist
        int top = s.assistTarget();
        for (int v = Math.max(top, 0); top >= 0 && v < s.workerCount(); v++) {
            int[] found = assistRound(s, w, v, taken);
            if (found.length > 0) {
                return found;
            }
        }
        return new int[0];
    }

    /**
     * The requests one assist round of recovering worker {@code w} drafts for on {@code server}:
     * those that {@link #canAssist} names there, in queue order, skipping those {@code taken}. Empty
     * when w may not assist {@code server} now, or when none is left.
     */
    public static int[] assistRound(ClusterState s, int w, int server, java.util.function.IntPredicate taken) {
        if (!s.mayAssist(w, server)) {
            return new int[0];
        }
        com.carrotsearch.hppc.IntArrayList found = new com.carrotsearch.hppc.IntArrayList();
        s.worker(server).runq().forEachKey(id -> {
            RequestRec r = s.request(id);
            if (r.phase() == RequestPhase.DECODE && r.proposal() == null && r.outLen() < r.refLen() && !taken.test(id)) {
                found.add(id);
            }
        });
        return found.toArray();
    }

    /**
     * Whether a draft worker {@code w} prepared for request {@code r} may still be proposed now: the
     * request decodes without a draft in flight, has tokens left, and its server is one w may assist
     * now ({@link ClusterState#mayAssist}).
     */
    public static boolean canAssist(ClusterState s, int w, int r) {
        RequestRec rr = s.request(r);
        return rr != null && rr.phase() == RequestPhase.DECODE && rr.proposal() == null && rr.outLen() < rr.refLen()
                && s.mayAssist(w, rr.server());
    }

    /**
     * Event {@code e} with the synthetic content ({@link PageDigest#synthetic}) it would carry as
     * a step from {@code s}, when it carries none: for drivers and tests that build events by hand,
     * so that a v2 trace shows content for them. Events that write or copy no KV are returned as
     * they are.
     */
    public static Event withSyntheticContent(ClusterState s, Event e) {
        int pt = s.config().pageTokens();
        RequestRec r = e.req() >= 0 ? s.request(e.req()) : null;
        if (r == null) {
            return e;
        }
        if (e instanceof Event.Prefill p && p.pages() == null) {
            int[] range = prefillRange(r);
            return new Event.Prefill(p.req(), p.worker(), p.tokens(), PageDigest.synthetic(p.req(), range[0], range[1], pt));
        }
        if (e instanceof Event.Decode d && d.pages() == null) {
            return new Event.Decode(d.req(), d.worker(), d.tokens(),
                    PageDigest.synthetic(d.req(), r.kv().length() + 1, r.kv().length() + d.tokens().length, pt));
        }
        if (e instanceof Event.StreamPage sp && sp.pages() == null) {
            int have = r.backup() >= 0 && sp.holder() == r.backup() && sp.holder() != r.holder() ? r.bckpt().length() : r.ckpt().length();
            return new Event.StreamPage(sp.req(), sp.holder(), sp.ckpt(), PageDigest.synthetic(sp.req(), have + 1, sp.ckpt(), pt));
        }
        if (e instanceof Event.Route rt && rt.pages() == null) {
            return new Event.Route(rt.req(), rt.mode(), rt.worker(), rt.resumed(), rt.freed(),
                    rt.mode() == RouteMode.RESTORE ? PageDigest.synthetic(rt.req(), 1, rt.resumed(), pt) : new PageDigest[0]);
        }
        return e;
    }

    /**
     * ZombieToken: the zombie of w (the incarnation its latest Fail fenced, which lives on) sends
     * r's next token, {@code token}, to the gateway; the gateway takes it only under w's current
     * epoch (the fence), which the zombie's never is, so it is refused.
     */
    public static Step zombieToken(ClusterState s, int w, int r, int token) {
        Zombie z = zombie(s, w);
        return take(s, new Event.ZombieToken(w, r, token, z.epoch(), z.epoch() == s.worker(w).epoch()));
    }

    /**
     * ZombiePage: the zombie of w streams r's next page ({@code pages}: its content, null when not
     * shown) to the holder it streamed to; the holder takes it only under w's current epoch, so
     * it is refused.
     */
    public static Step zombiePage(ClusterState s, int w, int r, PageDigest[] pages) {
        Zombie z = zombie(s, w);
        Zombie.Req q = z.reqs().get(r);
        if (q == null) {
            throw new IllegalStateException("ZombiePage is not enabled: worker " + w + "'s zombie did not serve request " + r);
        }
        return take(s, new Event.ZombiePage(w, r, q.holder(), z.epoch(), pages, z.epoch() == s.worker(w).epoch()));
    }

    /**
     * ZombieAck: the zombie of w acknowledges to the gateway the copy of r it held as r's holder;
     * the gateway takes it only under w's current epoch, so it is refused.
     */
    public static Step zombieAck(ClusterState s, int w, int r) {
        Zombie z = zombie(s, w);
        return take(s, new Event.ZombieAck(w, r, z.epoch(), z.epoch() == s.worker(w).epoch()));
    }

    /** ZombieStops: the zombie of w learns of its fence and resets, or dies. */
    public static Step zombieStops(ClusterState s, int w) {
        zombie(s, w);
        return take(s, new Event.ZombieStops(w));
    }

    private static Zombie zombie(ClusterState s, int w) {
        Zombie z = s.worker(w).zombie();
        if (z == null) {
            throw new IllegalStateException("worker " + w + " has no zombie: it was never failed, or its zombie stopped");
        }
        return z;
    }

    /** FullReady: the atomic handover. */
    public static Step fullReady(ClusterState s, int w) {
        return take(s, new Event.FullReady(w, s.requestsWithProposalFrom(w)));
    }
}
