package lumen.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.Readings;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.core.Step;
import lumen.core.WorkerState;
import lumen.runtime.Arrival;
import lumen.runtime.CostModel;

/**
 * The one driver of a LUMEN cluster over the decision core, on virtual time: its event loop, the
 * requests' arrival, and the recovery sequence (Fail, Route, Restart, DraftReady, the assist
 * rounds, FullReady). The cluster runtime (real paged KV) and the simulator (continuous batching
 * at scale) are its two engines: they say how a worker serves its queue, what a failure wipes,
 * what a restore brings back and what a draft proposes; the driver decides when, through
 * {@link Core}, so a fix to the recovery sequence is made once for both.
 *
 * <p><b>The assist</b> (Algorithm 3), as the paper describes it: a recovering worker whose draft
 * model is loaded runs rounds, beside its target and without holding it up. A round begins when
 * the target starts an iteration: it takes every decoding request on the target that has no draft
 * and tokens left, and drafts {@code k} tokens for all of them in one batched step at the draft
 * model's cost ({@link CostModel#draftRoundMs}). The drafts wait at the target until it starts its
 * next iteration; there they become one Assist step each, and that iteration verifies them as extra
 * tokens of the same forward pass ({@link CostModel#decodeMs(int, double, int)}), so the accepted
 * tokens and one more per request are credited when it ends, and never in an iteration that did
 * not pay for them. The target is the one the reading in force names ({@link
 * Readings#sessionTarget}: kept for the session, or chosen again each round), checked again
 * when the draft becomes a step. A draft is taken as aligned with the target's output when it is
 * verified: its staleness and the draft's cold start are in the engine's acceptance.
 *
 * <p>The run is single-threaded and deterministic: timers at the same time run in the order they
 * were set.
 *
 * @param <W> the engine's per-worker record
 */
public abstract class Driver<W extends Driver.Worker> {
    /** Where events go, with their virtual time in ms. */
    public interface Sink {
        void accept(Event e, double t);
    }

    /** What the driver keeps per worker; an engine extends it with its own. */
    public static class Worker {
        public final int id;
        /** Increments at each failure: work scheduled before it is void. */
        int epoch;
        /** Running an iteration (or a prefill, a restore): no other starts until it ends. */
        public boolean busy;
        boolean fullLoaded;
        double fullAt;
        /** When its draft model last became ready (ms). */
        public double draftReadyAt;
        /** Draft proposals since then. */
        public int proposals;
        /** Drafts delivered to this worker and not yet verified: {request, drafting worker, its epoch then}. */
        final java.util.ArrayDeque<int[]> delivered = new java.util.ArrayDeque<>();
        /** Whether this worker has an assist round in flight. */
        boolean drafting;
        /** The target of its last assist round (-1: none yet). */
        int lastTarget = -1;

        protected Worker(int id) {
            this.id = id;
        }

        /** When its full model is loaded, since its last restart (ms). */
        public double fullReadyAt() {
            return fullAt;
        }
    }

    private record Timer(double t, long seq, Runnable action) {}

    protected final Config cfg;
    protected final CostModel cost;
    private final Sink sink;
    protected final List<W> ws;
    private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> a.t != b.t ? Double.compare(a.t, b.t) : Long.compare(a.seq, b.seq));
    /** The requests a recovering worker is drafting for, and that worker. */
    private final Map<Integer, Integer> draftingFor = new HashMap<>();
    /** The workers restarted with a draft model and not yet handed over, in the order they restarted. */
    private final List<W> recovering = new ArrayList<>();
    protected ClusterState state;
    /** The state before the event being emitted (its monitor's loads are the ones a decision cites). */
    private ClusterState pre;
    protected double now;
    private long seq;
    private long events;
    private boolean externalRestarts;
    private boolean externalLoads;
    /** Events since the gateway's monitor last took every worker's report (citedLoads=stale). */
    private long sinceReports;

    /**
     * A cluster of {@code cfg.workers()} workers that decides by {@code policy} (the config's own,
     * except for a seeded bug), on {@code cost}'s durations, emitting every event to {@code sink}
     * (null: nowhere).
     */
    protected Driver(Config cfg, RecoveryPolicy policy, CostModel cost, Sink sink, java.util.function.IntFunction<W> worker) {
        this.cfg = cfg;
        this.cost = cost;
        this.sink = sink;
        this.state = ClusterState.initial(cfg, policy);
        List<W> list = new ArrayList<>(cfg.workers());
        for (int i = 0; i < cfg.workers(); i++) {
            list.add(worker.apply(i));
        }
        this.ws = List.copyOf(list);
    }

    // ---- what an engine provides -----------------------------------------------------------

    /** Request {@code a} is admitted: its reference output (the target alone, no failure). */
    protected abstract int[] admit(Arrival a);

    /**
     * Worker {@code w} may act: take the placements due, start streams, and start an iteration
     * when it is not {@link Worker#busy}, calling {@link #startIteration} right before it prices the
     * decode step.
     */
    protected abstract void serve(W w);

    /** Worker {@code w} has just failed (its Fail step emitted): wipe what the failure destroys. */
    protected abstract void failed(W w, Event.Fail f);

    /**
     * Request {@code before} is about to be routed: the content of the pages a RESTORE brings back
     * into its holder's GPU ({@code restore}), or an empty array for a REPREFILL.
     */
    protected abstract PageDigest[] restoreContent(RequestRec before, boolean restore);

    /** Request {@code r} has been routed from {@code before}'s state. */
    protected abstract void routed(int r, RequestRec before, boolean restore);

    /** The {@code k} tokens worker {@code w}'s draft model proposes for request {@code r} now. */
    protected abstract int[] draft(W w, RequestRec r);   // null: the drafting worker could not be reached

    /** Seeded bug hook: false when a draft that arrives after its drafting worker stopped assisting is verified all the same. */
    protected boolean voidsLateDrafts() {
        return true;
    }

    /** Seeded bug hook: whether recovering workers propose drafts at all. */
    protected boolean assists() {
        return true;
    }

    /** Worker {@code w}'s draft model is ready and its full model still loading. */
    protected void draftLoaded(W w) {}

    /** Worker {@code w} proposed {@code toks} for request {@code r} (its Assist step emitted). */
    protected void assisted(W w, int r, int[] toks) {}

    /** Worker {@code w} has handed over to its full model. */
    protected void handedOver(W w) {}

    /** A failure that was not injected: its worker is already FAILED, or no other worker is UP. */
    protected void failureSkipped(int w) {}

    /** From a failure until the gateway routes the interrupted requests, ms (0: at once). */
    protected double detectMs() {
        return 0;
    }

    // ---- the event loop --------------------------------------------------------------------

    public ClusterState state() {
        return state;
    }

    /** The state before the last event emitted, the gateway's monitor included ({@link ClusterState#citedFor}). */
    public ClusterState before() {
        return pre;
    }

    public double now() {
        return now;
    }

    /** Spec events emitted so far. */
    public long events() {
        return events;
    }

    /** Nothing is scheduled: the cluster waits for the environment. */
    public boolean idle() {
        return timers.isEmpty();
    }

    /** The time of the next timer, or +infinity (a live cluster's loop sleeps until then). */
    public double nextTimer() {
        return timers.isEmpty() ? Double.POSITIVE_INFINITY : timers.peek().t();
    }

    /** Runs every timer due up to time {@code t}; the clock then reads {@code t} (if finite). */
    public void advanceTo(double t) {
        long steps = 0;
        while (!timers.isEmpty() && timers.peek().t() <= t) {
            Timer x = timers.poll();
            now = x.t();
            x.action().run();
            if (++steps > 50_000_000L) {
                throw new IllegalStateException("the cluster did not settle after 50M timer events");
            }
        }
        if (!Double.isInfinite(t)) {
            now = Math.max(now, t);
        }
    }

    /**
     * From now on a failed worker restarts only when {@link #restartWorker} says its machine is
     * back, instead of after the cost model's restart delay.
     */
    protected void externalRestarts() {
        externalRestarts = true;
    }

    /**
     * From now on a restarted worker loads its models itself ({@link #loadModels}) and says when each
     * is loaded ({@link #modelLoaded}), instead of after the cost model's load times.
     */
    protected void externalLoads() {
        externalLoads = true;
    }

    /** With external loads: restarted worker w starts loading its models (the draft, if its state loads one, and the full). */
    protected void loadModels(W w) {}

    /**
     * With external loads: worker w, restarted, has loaded its draft ({@code full} false) or its
     * full model. False when that means nothing now (w is not loading that model: it failed since,
     * or the report is a repeat).
     */
    public boolean modelLoaded(int wid, boolean full) {
        if (wid < 0 || wid >= ws.size()) {
            return false;
        }
        W w = ws.get(wid);
        WorkerState st = state.worker(wid).state();
        if (!full) {
            if (st != WorkerState.LOADING_DRAFT) {
                return false;
            }
            draftReady(w);
            return true;
        }
        boolean loadingFull = st == WorkerState.ASSISTING || st == WorkerState.LOADING_FULL || st == WorkerState.LOADING_DRAFT && !w.fullLoaded;
        if (!loadingFull) {
            return false;
        }
        fullReady(w);
        return true;
    }

    /** The failed worker's machine is back: it restarts now. False when it is not FAILED. */
    public boolean restartWorker(int w) {
        if (w < 0 || w >= ws.size() || state.worker(w).state() != WorkerState.FAILED) {
            return false;
        }
        restart(ws.get(w));
        return true;
    }

    protected final void at(double t, Runnable r) {
        timers.add(new Timer(t, seq++, r));
    }

    /** Schedules work of worker w that is void if w fails first. */
    protected final void on(W w, double t, Runnable r) {
        int epoch = w.epoch;
        at(t, () -> {
            if (w.epoch == epoch) {
                r.run();
            }
        });
    }

    protected final void emit(Step st) {
        pre = state;
        state = monitor(st.state());
        events++;
        if (sink != null) {
            sink.accept(st.event(), now);
        }
    }

    /**
     * The gateway's load monitor under citedLoads=stale: every UP worker reports its load once every
     * N events under stale:N, so no decision rests on a report more than N-1 events old; under
     * stale:Tms after every event (the clock is virtual, so a period in ms could not be kept within
     * the bound across a quiet spell).
     */
    private ClusterState monitor(ClusterState s) {
        Readings.CitedLoads c = cfg.readings().citedLoads();
        if (c.exact() || (!c.millis() && ++sinceReports < (long) c.bound())) {
            return s;
        }
        sinceReports = 0;
        return s.heartbeat();
    }

    protected final RequestRec rec(int r) {
        return state.request(r);
    }

    protected final void kick(int w) {
        serve(ws.get(w));
    }

    protected final void kickAll() {
        for (W w : ws) {
            serve(w);
        }
    }

    // ---- requests --------------------------------------------------------------------------

    /** Request {@code a} arrives now; while no worker can take it, it waits a restart delay and tries again. */
    protected final void arrive(Arrival a) {
        if (state.arriveTarget() < 0) {
            at(now + cost.restartDelayMs(), () -> arrive(a));
            return;
        }
        emit(Core.arrive(state, a.id(), a.promptLen(), admit(a)));
        kick(rec(a.id()).server());
    }

    // ---- failures and recovery -------------------------------------------------------------

    /** Worker {@code wid} fails now: its Fail step, its interrupted requests routed, its restart scheduled. */
    protected final void fail(int wid) {
        if (state.worker(wid).state() == WorkerState.FAILED || !state.anotherUp(wid)) {
            failureSkipped(wid);
            return;
        }
        W w = ws.get(wid);
        Step st = Core.fail(state, wid);
        emit(st);
        w.epoch++;
        w.busy = false;
        w.fullLoaded = false;
        w.drafting = false;
        recovering.remove(w);
        draftingFor.values().removeIf(v -> v == wid);
        // the drafts it had received and not yet verified are gone with its memory
        for (int[] d : w.delivered) {
            draftingFor.remove(d[0], d[1]);
        }
        w.delivered.clear();
        Event.Fail f = (Event.Fail) st.event();
        failed(w, f);
        if (detectMs() > 0) {
            at(now + detectMs(), () -> {
                routeAll(f.interrupted());
                kickAll();
            });
        } else {
            routeAll(f.interrupted());
        }
        if (!externalRestarts) {
            on(w, now + cost.restartDelayMs(), () -> restart(w));
        }
        kickAll();
    }

    /**
     * Routes every request still INTERRUPTED: in a live cluster a second failure can be found while
     * the first one's requests are being routed (the holder of one of them is dead too), and those
     * are routed once that failure's step is taken.
     */
    protected final void routeStranded() {
        List<Integer> stranded = new ArrayList<>();
        for (int r : state.requests().keys()) {
            if (rec(r).phase() == lumen.core.RequestPhase.INTERRUPTED) {
                stranded.add(r);
            }
        }
        routeAll(stranded.stream().mapToInt(Integer::intValue).toArray());
    }

    /** Routes those of {@code rs} still waiting for it (Eq. 6 on the loads of now). */
    private void routeAll(int[] rs) {
        for (int r : rs) {
            RequestRec before = rec(r);
            if (before.phase() != lumen.core.RequestPhase.INTERRUPTED) {
                continue;
            }
            boolean restore = state.useHolder(before);
            emit(Core.route(state, r, restoreContent(before, restore)));
            routed(r, before, restore);
        }
    }

    private void restart(W w) {
        emit(Core.restart(state, w.id));
        w.fullAt = now + cost.fullLoadMs();
        boolean draft = state.worker(w.id).state() == WorkerState.LOADING_DRAFT;
        if (draft) {
            recovering.add(w);
        }
        if (externalLoads) {
            loadModels(w);
            return;
        }
        if (draft) {
            on(w, now + cost.draftLoadMs(), () -> draftReady(w));
        }
        on(w, w.fullAt, () -> fullReady(w));
    }

    private void draftReady(W w) {
        emit(Core.draftReady(state, w.id));
        w.draftReadyAt = now;
        w.proposals = 0;
        if (w.fullLoaded) {
            fullReady(w);
            return;
        }
        draftLoaded(w);
        // a target between iterations starts one, and the first round with it
        kickAll();
    }

    private void fullReady(W w) {
        if (state.worker(w.id).state() == WorkerState.LOADING_DRAFT) {
            w.fullLoaded = true;
            return;
        }
        emit(Core.fullReady(state, w.id));
        recovering.remove(w);
        if (!voidsLateDrafts()) {
            lateRound(w);
        }
        handedOver(w);
        kickAll();
    }

    // ---- the assist ------------------------------------------------------------------------

    /**
     * Worker {@code t} starts an iteration: the drafts delivered to it become Assist steps now (each
     * if it may still be proposed), to be verified in this iteration, and every assist round due on
     * {@code t} begins. An engine calls this right before it prices the iteration's decode step.
     */
    protected final void startIteration(W t) {
        while (!t.delivered.isEmpty()) {
            int[] d = t.delivered.poll();
            int r = d[0];
            W w = ws.get(d[1]);
            if (draftingFor.getOrDefault(r, -1) == w.id) {
                draftingFor.remove(r);
            }
            // the drafting worker may have failed or handed over meanwhile (its drafts are void then)
            boolean assisting = w.epoch == d[2] && state.worker(w.id).state() == WorkerState.ASSISTING && Core.canAssist(state, w.id, r);
            if ((assisting || !voidsLateDrafts() && lateDraftFits(r)) && rec(r).server() == t.id) {
                int[] toks = draft(w, rec(r));
                if (toks == null) {
                    // the drafting worker did not answer: its drafts never arrive, and the target goes on without them
                    continue;
                }
                w.proposals++;
                if (assisting) {
                    emit(Core.assist(state, w.id, r, toks));
                } else {
                    // the late-draft bug: a system that does not check the worker still assists takes the step all the same
                    Event.Assist late = new Event.Assist(w.id, r, toks.clone());
                    emit(new Step(lumen.core.Transition.apply(state, late), late));
                }
                assisted(w, r, toks);
            }
        }
        if (recovering.isEmpty()) {
            return;
        }
        // the recovering workers free to draft whose target is t share its requests, the one that
        // has proposed least first, so none waits while another drafts for every request
        List<W> group = new ArrayList<>();
        for (W w : recovering) {
            if (!w.drafting && state.worker(w.id).state() == WorkerState.ASSISTING && assists() && state.mayAssist(w.id, t.id)) {
                group.add(w);
            }
        }
        if (group.isEmpty()) {
            return;
        }
        // t is a target of every one of them: they draft for t's own requests (a free drafting worker
        // never passes over a target it may assist for another it could assist later). A request
        // whose last token this iteration gives is skipped: its draft would land after it finished
        int[] eligible = Core.assistRound(state, group.get(0).id, t.id,
                id -> draftingFor.containsKey(id) || rec(id).refLen() - rec(id).outLen() < 2);
        if (eligible.length == 0) {
            return;
        }
        group.sort(java.util.Comparator.<W>comparingInt(w -> w.proposals).thenComparingInt(w -> w.id));
        for (int g = 0; g < group.size() && g < eligible.length; g++) {
            int[] share = new int[(eligible.length - g + group.size() - 1) / group.size()];
            for (int i = 0; i < share.length; i++) {
                share[i] = eligible[g + i * group.size()];
            }
            beginRound(group.get(g), t.id, share);
        }
    }

    /**
     * The late-draft bug: at the handover the draft model proposes once more for its last target's
     * decoding requests (a pipeline not drained), and nothing voids those drafts when they arrive.
     */
    private void lateRound(W w) {
        int t = w.lastTarget;
        if (t < 0 || !state.isUp(t)) {
            return;
        }
        List<Integer> reqs = new ArrayList<>();
        for (int r : state.worker(t).runq().keys()) {
            if (lateDraftFits(r)) {
                reqs.add(r);
            }
        }
        if (!reqs.isEmpty()) {
            beginRound(w, t, reqs.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    /** Under the late-draft bug: the request could still take a draft, whoever proposes it. */
    private boolean lateDraftFits(int r) {
        RequestRec rr = rec(r);
        return rr.phase() == lumen.core.RequestPhase.DECODE && rr.proposal() == null && rr.outLen() < rr.refLen();
    }

    /** Worker {@code w} drafts for requests {@code reqs} on its target {@code t}, in one batched step. */
    private void beginRound(W w, int t, int[] reqs) {
        w.lastTarget = t;
        for (int r : reqs) {
            draftingFor.put(r, w.id);
        }
        w.drafting = true;
        on(w, now + cost.draftRoundMs(cfg.k(), reqs.length), () -> {
            w.drafting = false;
            W target = ws.get(t);
            // drafts for a target that failed meanwhile, or from a worker that handed over, are void
            boolean live = state.isUp(t) && (state.worker(w.id).state() == WorkerState.ASSISTING || !voidsLateDrafts());
            for (int r : reqs) {
                if (live) {
                    target.delivered.add(new int[] {r, w.id, w.epoch});
                } else {
                    draftingFor.remove(r, w.id);
                }
            }
            serve(target);
        });
    }
}
