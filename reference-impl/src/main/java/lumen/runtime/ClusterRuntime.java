package lumen.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import lumen.core.ClusterState;
import lumen.core.Readings;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.KitTokens;
import lumen.core.PageDigest;
import lumen.core.PageSeq;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.core.Step;
import lumen.core.WorkerState;

/**
 * A LUMEN cluster with a real paged KV data plane, driven by the decision core.
 *
 * <p>Each worker has a {@link KvDataPlane} (its GPU memory) and a host store (the checkpoints it
 * holds). Prefill and decode write true KV bytes; the target model reads them back (through
 * their digest) for every token, so a restore that brings back a wrong byte changes the output.
 * Each server streams full pages to its requests' holders through a bounded queue at the cost
 * model's bandwidth, asynchronously to decode, so a checkpoint lags by up to a page plus the
 * queue. A failure wipes the worker's KV and host store, routes its requests (Eq. 6), and
 * restarts it: under LUMEN the draft loads first and assists the most loaded survivor while the
 * full model loads, then the atomic handover.
 *
 * <p>Time is virtual, advanced by the {@link CostModel}, and the run is single-threaded and
 * deterministic: the same inputs give the same trace, byte for byte. Every decision and state
 * change goes through {@link Core}, and every event goes to the sink with its time.
 */
public final class ClusterRuntime {
    /** Where events go, with their virtual time in ms. */
    public interface Sink {
        void accept(Event e, double t);
    }

    /**
     * Runtime knobs besides the spec's constants.
     *
     * @param flipRestoredBit data-plane fault injection: flip one bit of every restored checkpoint,
     *                        as a bad host DIMM or a wrong copy would; the restore check counts it
     *                        and the target's next token changes, so validation rejects the trace
     */
    public record Options(KvGeometry geometry, int vocab, double draftAgreement, int streamQueueCapacity,
                          boolean flipRestoredBit, java.util.function.Function<KvGeometry, KvDataPlane> dataPlanes,
                          boolean streams, boolean assists) {
        public Options(KvGeometry geometry, int vocab, double draftAgreement, int streamQueueCapacity, boolean flipRestoredBit) {
            this(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, CpuKvPlane::new, true, true);
        }

        public static Options defaults(int pageTokens) {
            return new Options(KvGeometry.small(pageTokens), KitTokens.VOCAB, 0.7, 64, false);
        }

        public Options withDraftAgreement(double a) {
            return new Options(geometry, vocab, a, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists);
        }

        public Options withFlipRestoredBit(boolean f) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, f, dataPlanes, streams, assists);
        }

        public Options withStreamQueueCapacity(int c) {
            return new Options(geometry, vocab, draftAgreement, c, flipRestoredBit, dataPlanes, streams, assists);
        }

        /** Each worker's KV data plane made by {@code planes} (for example a GPU harness backend) instead of {@link CpuKvPlane}. */
        public Options withDataPlanes(java.util.function.Function<KvGeometry, KvDataPlane> planes) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, planes, streams, assists);
        }

        public Options withVocab(int v) {
            return new Options(geometry, v, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists);
        }

        /** Seeded bugs: a runtime that never streams a checkpoint page, or whose recovering workers never propose a draft. */
        public Options withMechanisms(boolean stream, boolean assist) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, stream, assist);
        }
    }

    private record Timer(double t, long seq, Runnable action) {}

    private final class W {
        final int id;
        final KvDataPlane gpu;
        final Map<Integer, List<byte[]>> host = new HashMap<>();
        final ArrayDeque<int[]> streamQ = new ArrayDeque<>();
        int epoch;
        boolean busy;
        boolean streaming;
        boolean fullLoaded;
        double fullAt;

        W(int id) {
            this.id = id;
            this.gpu = opt.dataPlanes().apply(opt.geometry());
        }
    }

    private static final class Req {
        final Arrival a;
        final int[] ref;
        /** truth[k-1]: the digest of the true KV of positions 1..k, which the target compares with what it reads. */
        final long[] truth;
        final List<Integer> out = new ArrayList<>();
        int nextPage;
        int nextBackupPage;

        void resetPages(RequestRec r, int pageTokens) {
            nextPage = r.ckpt().length() / pageTokens;
            nextBackupPage = r.bckpt().length() / pageTokens;
        }

        Req(Arrival a, int[] ref, long[] truth) {
            this.a = a;
            this.ref = ref;
            this.truth = truth;
        }
    }

    private final Config cfg;
    private final CostModel cost;
    private final Options opt;
    private final TokenModels models;
    private final Sink sink;
    private final W[] ws;
    private final Map<Integer, Req> reqs = new HashMap<>();
    /** The requests a recovering worker is preparing a draft for, and that worker. */
    private final Map<Integer, Integer> drafting = new HashMap<>();
    private final List<Fault> faults = new ArrayList<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> a.t != b.t ? Double.compare(a.t, b.t) : Long.compare(a.seq, b.seq));
    private final RuntimeStats stats = new RuntimeStats();
    private ClusterState state;
    private double now;
    private long seq;
    private boolean externalRestarts;

    public ClusterRuntime(Config cfg, CostModel cost, Options opt, Sink sink) {
        if (opt.geometry().pageTokens() != cfg.pageTokens()) {
            throw new IllegalArgumentException("KV geometry has " + opt.geometry().pageTokens() + " positions per page, config " + cfg.pageTokens());
        }
        this.cfg = cfg;
        this.cost = cost;
        this.opt = opt;
        this.models = new TokenModels(opt.vocab(), opt.draftAgreement(), opt.geometry());
        this.sink = sink;
        this.state = ClusterState.initial(cfg);
        this.ws = new W[cfg.workers()];
        for (int i = 0; i < ws.length; i++) {
            ws[i] = new W(i);
        }
    }

    public ClusterState state() {
        return state;
    }

    public RuntimeStats stats() {
        return stats;
    }

    public TokenModels models() {
        return models;
    }

    /** What each request's client received, token by token. */
    public Map<Integer, int[]> outputs() {
        Map<Integer, int[]> m = new HashMap<>();
        reqs.forEach((id, r) -> m.put(id, r.out.stream().mapToInt(Integer::intValue).toArray()));
        return m;
    }

    /** Each request's reference output (the target alone, no failure). */
    public Map<Integer, int[]> references() {
        Map<Integer, int[]> m = new HashMap<>();
        reqs.forEach((id, r) -> m.put(id, r.ref));
        return m;
    }

    /** Runs the workload with the faults until nothing is left to do; returns the end time. */
    public double run(List<Arrival> arrivals, List<Fault> injected) {
        for (Arrival a : arrivals) {
            submit(a);
        }
        for (Fault f : injected) {
            inject(f);
        }
        advanceTo(Double.POSITIVE_INFINITY);
        stats.faultsSkipped += faults.size();
        return now;
    }

    // ---- incremental driving, for adapters: the environment decides arrivals, faults, restarts --

    /**
     * From now on a failed worker restarts only when {@link #restartWorker} says its machine is
     * back, instead of after the cost model's restart delay.
     */
    public ClusterRuntime withExternalRestarts() {
        externalRestarts = true;
        return this;
    }

    /** A request arrives at {@code a.atMs()} (not before the current time). */
    public void submit(Arrival a) {
        at(Math.max(now, a.atMs()), () -> arrive(a));
    }

    /** A fault: at its time, or at the first point of its kind from then on. */
    public void inject(Fault f) {
        if (f.worker() < 0 || f.worker() >= ws.length) {
            throw new IllegalArgumentException("fault on unknown worker " + f.worker());
        }
        if (f.point() == Fault.Point.AT_TIME) {
            at(Math.max(now, f.afterMs()), () -> fail(f.worker()));
        } else {
            faults.add(f);
        }
    }

    /** The failed worker's machine is back: it restarts now. False when it is not FAILED. */
    public boolean restartWorker(int w) {
        if (w < 0 || w >= ws.length || state.worker(w).state() != WorkerState.FAILED) {
            return false;
        }
        restart(ws[w]);
        return true;
    }

    /** Runs every timer due up to time {@code t}; the clock then reads {@code t} (if finite). */
    public void advanceTo(double t) {
        long steps = 0;
        while (!timers.isEmpty() && timers.peek().t() <= t) {
            Timer x = timers.poll();
            now = x.t();
            x.action().run();
            if (++steps > 50_000_000L) {
                throw new IllegalStateException("runtime did not settle after 50M timer events");
            }
        }
        if (!Double.isInfinite(t)) {
            now = Math.max(now, t);
        }
    }

    /** Nothing is scheduled: the runtime waits for the environment. */
    public boolean idle() {
        return timers.isEmpty();
    }

    public double now() {
        return now;
    }

    private void at(double t, Runnable r) {
        timers.add(new Timer(t, seq++, r));
    }

    /** Schedules work of worker w that is void if w crashes first. */
    private void on(W w, double t, Runnable r) {
        int epoch = w.epoch;
        at(t, () -> {
            if (w.epoch == epoch) {
                r.run();
            }
        });
    }

    private void emit(Step st) {
        pre = state;
        state = monitor(st.state());
        sink.accept(st.event(), now);
    }

    /** The state before the event being emitted (its monitor's loads are the ones a decision cites). */
    private ClusterState pre;

    /** The state before the last event emitted, the gateway's monitor included ({@link ClusterState#citedFor}). */
    public ClusterState before() {
        return pre;
    }

    /** Events since the gateway's monitor last took every worker's report (citedLoads=stale). */
    private long sinceReports;

    /**
     * The gateway's load monitor under citedLoads=stale: every UP worker reports its load once every
     * N events under stale:N, so no decision rests on a report more than N-1 events old; under
     * stale:Tms after every event (the runtime's clock is virtual, so a period in ms could not be
     * kept within the bound across a quiet spell).
     */
    private ClusterState monitor(ClusterState s) {
        Readings.CitedLoads c = cfg.readings().citedLoads();
        if (c.exact() || (!c.millis() && ++sinceReports < (long) c.bound())) {
            return s;
        }
        sinceReports = 0;
        return s.heartbeat();
    }

    private RequestRec rec(int r) {
        return state.request(r);
    }

    private boolean maybeFault(W w, Fault.Point point, double dur) {
        Iterator<Fault> it = faults.iterator();
        while (it.hasNext()) {
            Fault f = it.next();
            if (f.worker() == w.id && f.point() == point && now >= f.afterMs()) {
                it.remove();
                at(now + dur / 2, () -> fail(w.id));
                return true;
            }
        }
        return false;
    }

    // ---- requests ----------------------------------------------------------------------------

    private void arrive(Arrival a) {
        if (state.arriveTarget() < 0) {
            at(now + cost.restartDelayMs(), () -> arrive(a));
            return;
        }
        Req r = new Req(a, models.reference(a.seed(), a.promptLen(), a.outLen()),
                models.trueDigests(a.seed(), a.promptLen() + a.outLen()));
        reqs.put(a.id(), r);
        emit(Core.arrive(state, a.id(), a.promptLen(), r.ref));
        kick(rec(a.id()).server());
    }

    private int[] queueOf(int w) {
        return state.worker(w).runq().keys();
    }

    private void kick(int wid) {
        if (!state.isUp(wid)) {
            return;
        }
        W w = ws[wid];
        for (int r : queueOf(wid)) {
            protect(r);
        }
        for (int r : queueOf(wid)) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.DECODE && rr.outLen() == rr.refLen()) {
                complete(r);
            }
        }
        startStreams(w);
        if (w.busy) {
            return;
        }
        for (int r : queueOf(wid)) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.QUEUED) {
                boolean restored = rr.kv().length() > 0;
                int target = rr.outLen() == 0 ? rr.promptLen() : rr.kvLen();
                double dur = (restored ? cost.restoreMs(rr.kv().length()) : 0) + cost.prefillMs(target - rr.kv().length());
                maybeFault(w, restored ? Fault.Point.MID_RESTORE : Fault.Point.MID_PREFILL, dur);
                w.busy = true;
                on(w, now + dur, () -> prefillDone(w, r));
                return;
            }
        }
        List<Integer> batch = new ArrayList<>();
        double ctx = 0;
        double verify = 0;
        for (int r : queueOf(wid)) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.DECODE && rr.outLen() < rr.refLen() && rr.kv().length() == rr.kvLen()) {
                batch.add(r);
                ctx += rr.ctx();
                if (rr.proposal() != null) {
                    verify += cost.verifyMs(rr.proposal().toks().length);
                }
            }
        }
        if (!batch.isEmpty()) {
            double dur = cost.decodeMs(batch.size(), ctx / batch.size()) + verify;
            w.busy = true;
            maybeFault(w, Fault.Point.MID_DECODE, dur);
            on(w, now + dur, () -> decodeDone(w, batch));
        }
    }

    /**
     * Takes r's placement decision when it is due: at the start of each run, and again whenever
     * r has no holder and the policy now has one for it (Algorithm 1 re-protects an unprotected
     * request before it is served further).
     */
    private void protect(int r) {
        RequestRec rr = rec(r);
        if (!rr.placed() || state.needsProtection(rr)) {
            emit(Core.place(state, r));
            reqs.get(r).resetPages(rec(r), cfg.pageTokens());
            if (rec(r).holder() < 0) {
                stats.unprotectedPlacements++;
            }
        }
    }

    private void prefillDone(W w, int r) {
        w.busy = false;
        RequestRec rr = rec(r);
        if (rr != null && rr.phase() == RequestPhase.QUEUED && rr.server() == w.id && state.isUp(w.id)) {
            protect(r);
            rr = rec(r);
            Req q = reqs.get(r);
            int have = w.gpu.positions(r);
            if (have != rr.kv().length()) {
                throw new IllegalStateException("worker " + w.id + " holds " + have + " KV positions of request " + r + ", the core " + rr.kv().length());
            }
            int p = rr.promptLen();
            if (rr.outLen() == 0) {
                if (have < p) {
                    w.gpu.compute(r, q.a.seed(), have + 1, p);
                }
                // the first token's own KV is written by the first decode step, which feeds it back
                int tok = models.target(q.a.seed(), 1, w.gpu.digest(r, p), q.truth[p - 1]);
                emit(Core.prefill(state, r, new int[] {tok}, content(w, r, have + 1, p)));
                q.out.add(tok);
            } else {
                if (have < rr.kvLen()) {
                    w.gpu.compute(r, q.a.seed(), have + 1, rr.kvLen());
                }
                emit(Core.prefill(state, r, new int[0], content(w, r, have + 1, rr.kvLen())));
            }
        }
        kick(w.id);
    }

    private void decodeDone(W w, List<Integer> batch) {
        w.busy = false;
        for (int r : batch) {
            RequestRec rr = rec(r);
            if (rr == null || rr.phase() != RequestPhase.DECODE || rr.server() != w.id || !state.isUp(w.id)) {
                continue;
            }
            protect(r);
            rr = rec(r);
            Req q = reqs.get(r);
            int n = rr.outLen();
            int p = rr.promptLen();
            int[] d = rr.proposal() == null ? new int[0] : rr.proposal().toks();
            // one verification pass: it feeds back the last token (and each draft token it keeps),
            // writing that position's KV, and reads the KV up to it for the next token
            int[] out = Verification.greedy(d, rr.refLen() - n, i -> {
                int m = n + i + 1;
                w.gpu.compute(r, q.a.seed(), p + m - 1, p + m - 1);
                return models.target(q.a.seed(), m, w.gpu.digest(r, p + m - 1), q.truth[p + m - 2]);
            });
            int kept = 0;
            while (kept < d.length && kept < out.length && d[kept] == out[kept]) {
                kept++;
            }
            stats.draftTokensAccepted += kept;
            for (int t : out) {
                q.out.add(t);
            }
            int kv = w.gpu.positions(r);
            emit(Core.decode(state, r, out, content(w, r, kv - out.length + 1, kv)));
            if (rec(r).outLen() == rec(r).refLen()) {
                complete(r);
            }
        }
        kick(w.id);
    }

    /** The content of r's pages on w's GPU that positions from..to touch, as the trace reports it. */
    private PageDigest[] content(W w, int r, int from, int to) {
        int[][] shape = PageDigest.shape(from, to, cfg.pageTokens());
        PageDigest[] out = new PageDigest[shape.length];
        for (int i = 0; i < shape.length; i++) {
            int page = (shape[i][0] - 1) / cfg.pageTokens();
            out[i] = new PageDigest(shape[i][0], shape[i][1], w.gpu.pageDigest(r, page, shape[i][1]));
        }
        return out;
    }

    private void complete(int r) {
        RequestRec rr = rec(r);
        emit(Core.complete(state, r));
        ws[rr.server()].gpu.free(r);
        dropCopies(rr);
        stats.completed++;
    }

    /** Frees r's checkpoint copies in its holder's and its backup's host memory. */
    private void dropCopies(RequestRec rr) {
        if (rr.holder() >= 0) {
            ws[rr.holder()].host.remove(rr.id());
        }
        if (rr.backup() >= 0) {
            ws[rr.backup()].host.remove(rr.id());
        }
    }

    // ---- streaming ---------------------------------------------------------------------------

    private void startStreams(W w) {
        if (!opt.streams()) {
            return;
        }
        int pt = cfg.pageTokens();
        boolean full = false;
        for (int r : queueOf(w.id)) {
            RequestRec rr = rec(r);
            if (rr.holder() < 0 || (rr.phase() != RequestPhase.QUEUED && rr.phase() != RequestPhase.DECODE)) {
                continue;
            }
            Req q = reqs.get(r);
            int avail = rr.kv().length() / pt;
            while (q.nextPage < avail && state.streamRoom(rr.holder()) >= pt) {
                if (w.streamQ.size() >= opt.streamQueueCapacity()) {
                    full = true;
                    break;
                }
                w.streamQ.add(new int[] {r, q.nextPage++, 0});
            }
            while (rr.backup() >= 0 && q.nextBackupPage < avail && state.streamRoom(rr.backup()) >= pt) {
                if (w.streamQ.size() >= opt.streamQueueCapacity()) {
                    full = true;
                    break;
                }
                w.streamQ.add(new int[] {r, q.nextBackupPage++, 1});
            }
        }
        if (full) {
            stats.streamQueueFull++;
        }
        if (!w.streaming && !w.streamQ.isEmpty()) {
            int[] job = w.streamQ.poll();
            double dur = cost.streamPageMs(pt);
            w.streaming = true;
            RequestRec rr = rec(job[0]);
            int target = job[2] == 0 ? rr.holder() : rr.backup();
            if (!maybeFault(w, Fault.Point.MID_STREAM, dur) && target >= 0) {
                maybeFault(ws[target], Fault.Point.MID_STREAM, dur);
            }
            on(w, now + dur, () -> streamDone(w, job[0], job[1], job[2] == 1));
        }
    }

    private void streamDone(W w, int r, int page, boolean toBackup) {
        w.streaming = false;
        RequestRec rr = rec(r);
        int pt = cfg.pageTokens();
        int target = rr == null ? -1 : toBackup ? rr.backup() : rr.holder();
        PageSeq copy = rr == null ? PageSeq.EMPTY : toBackup ? rr.bckpt() : rr.ckpt();
        boolean valid = rr != null && (rr.phase() == RequestPhase.QUEUED || rr.phase() == RequestPhase.DECODE)
                && rr.server() == w.id && state.isUp(w.id) && target >= 0 && state.isUp(target)
                && copy.length() == page * pt && w.gpu.positions(r) >= (page + 1) * pt;
        if (valid && state.streamRoom(target) < pt) {
            // budget=stored: the holder filled up meanwhile; the page is streamed again once it has room
            Req q = reqs.get(r);
            if (toBackup) {
                q.nextBackupPage = Math.min(q.nextBackupPage, page);
            } else {
                q.nextPage = Math.min(q.nextPage, page);
            }
            valid = false;
        }
        if (valid) {
            byte[] sent = w.gpu.gather(r, page);
            ws[target].host.computeIfAbsent(r, k -> new ArrayList<>()).add(sent);
            // the content of the copy as the holder's host memory now has it
            PageDigest[] got = {new PageDigest(page * pt + 1, pt, PageBytes.pageDigest(sent, 0, opt.geometry().pageBytes()))};
            emit(toBackup ? Core.streamBackupPage(state, r, (page + 1) * pt, got) : Core.streamPage(state, r, (page + 1) * pt, got));
            stats.pagesStreamed++;
        } else {
            stats.streamCopiesDiscarded++;
        }
        kick(w.id);
        if (!w.busy) {
            startStreams(w);
        }
    }

    // ---- failures and recovery ---------------------------------------------------------------

    private void fail(int wid) {
        if (state.worker(wid).state() == WorkerState.FAILED || !state.anotherUp(wid)) {
            stats.faultsSkipped++;
            return;
        }
        W w = ws[wid];
        Step st = Core.fail(state, wid);
        emit(st);
        stats.failures++;
        w.epoch++;
        drafting.values().removeIf(v -> v == wid);
        w.gpu.clear();
        w.host.clear();
        w.streamQ.clear();
        w.streaming = false;
        w.busy = false;
        w.fullLoaded = false;
        Event.Fail f = (Event.Fail) st.event();
        for (int r : f.orphaned()) {
            reqs.get(r).resetPages(rec(r), cfg.pageTokens());
        }
        stats.promotions += f.promoted().length;
        for (int r : f.interrupted()) {
            route(r);
        }
        if (!externalRestarts) {
            on(w, now + cost.restartDelayMs(), () -> restart(w));
        }
        for (int v = 0; v < ws.length; v++) {
            kick(v);
        }
    }

    private void route(int r) {
        RequestRec before = rec(r);
        if (!state.useHolder(before)) {
            emit(Core.route(state, r, new PageDigest[0]));
            dropCopies(before);
            stats.reprefills++;
            reqs.get(r).resetPages(rec(r), cfg.pageTokens());
            return;
        }
        // RESTORE: the holder loads the copy in its host memory into its GPU, then reports what
        // the GPU now holds
        W h = ws[before.holder()];
        int resumed = before.ckpt().length();
        List<byte[]> pages = h.host.remove(r);
        if (before.backup() >= 0) {
            ws[before.backup()].host.remove(r);
        }
        if (pages == null) {
            pages = List.of();
        }
        if (opt.flipRestoredBit() && !pages.isEmpty()) {
            pages.get(0)[0] ^= 1;
        }
        checkRestored(r, pages, resumed);
        h.gpu.restore(r, pages, resumed);
        emit(Core.route(state, r, content(h, r, 1, resumed)));
        stats.restores++;
        stats.pagesRestored += pages.size();
        reqs.get(r).resetPages(rec(r), cfg.pageTokens());
    }

    /** Compares every restored byte with the true KV bytes of its (request, layer, position). */
    private void checkRestored(int r, List<byte[]> pages, int positions) {
        KvGeometry g = opt.geometry();
        long seed = reqs.get(r).a.seed();
        byte[] want = new byte[g.bytesPerTokenLayer()];
        for (int pos = 1; pos <= positions; pos++) {
            byte[] page = pages.get((pos - 1) / g.pageTokens());
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, want, 0, want.length);
                int off = g.offset(pos, layer);
                stats.restoredBytesChecked += want.length;
                if (!Arrays.equals(want, 0, want.length, page, off, off + want.length)) {
                    stats.restoredBytesWrong += want.length;
                }
            }
        }
    }

    private void restart(W w) {
        emit(Core.restart(state, w.id));
        w.fullAt = now + cost.fullLoadMs();
        if (state.worker(w.id).state() == WorkerState.LOADING_DRAFT) {
            on(w, now + cost.draftLoadMs(), () -> draftReady(w));
        }
        on(w, w.fullAt, () -> fullReady(w));
    }

    private void draftReady(W w) {
        emit(Core.draftReady(state, w.id));
        if (w.fullLoaded) {
            fullReady(w);
            return;
        }
        maybeFault(w, Fault.Point.MID_HANDOVER, Math.max(0, w.fullAt - now));
        propose(w);
    }

    private void fullReady(W w) {
        if (state.worker(w.id).state() == WorkerState.LOADING_DRAFT) {
            w.fullLoaded = true;
            return;
        }
        emit(Core.fullReady(state, w.id));
        stats.handovers++;
        for (int v = 0; v < ws.length; v++) {
            kick(v);
        }
    }

    private void propose(W w) {
        if (state.worker(w.id).state() != WorkerState.ASSISTING) {
            return;
        }
        // several recovering workers spread over the requests: none drafts for one another is drafting for
        int r = Core.assistCandidate(state, w.id, drafting::containsKey);
        if (r < 0) {
            on(w, now + cost.decodeMs(1, 0), () -> propose(w));
            return;
        }
        if (!opt.assists()) {
            return;
        }
        drafting.put(r, w.id);
        RequestRec rr = rec(r);
        Req q = reqs.get(r);
        int k = cfg.k();
        int[] toks = new int[k];
        for (int i = 0; i < k; i++) {
            int m = rr.outLen() + i + 1;
            toks[i] = models.draft(q.a.seed(), m, m <= q.ref.length ? q.ref[m - 1] : -1);
        }
        stats.draftsProposed++;
        on(w, now + cost.draftProposeMs(k), () -> deliver(w, r, toks));
    }

    private void deliver(W w, int r, int[] toks) {
        drafting.remove(r);
        if (state.worker(w.id).state() != WorkerState.ASSISTING) {
            return;
        }
        if (Core.canAssist(state, w.id, r)) {
            emit(Core.assist(state, w.id, r, toks));
            stats.draftsDelivered++;
            stats.draftTokensProposed += toks.length;
        }
        propose(w);
    }
}
