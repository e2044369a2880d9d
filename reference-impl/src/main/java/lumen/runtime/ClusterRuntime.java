package lumen.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.KitTokens;
import lumen.core.PageDigest;
import lumen.core.PageSeq;
import lumen.core.RequestPhase;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.driver.Driver;

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
 * full model loads, then the atomic handover. The recovery sequence and the assist rounds are the
 * {@link Driver}'s, shared with the simulator; this class is its engine with a real data plane.
 * A worker's iteration is either one request's prefill (or restore and catch-up) or a decode step
 * of every request ready to decode, which verifies the drafts on them in the same pass.
 *
 * <p>Time is virtual, advanced by the {@link CostModel}, and the run is single-threaded and
 * deterministic: the same inputs give the same trace, byte for byte. Every decision and state
 * change goes through {@link Core}, and every event goes to the sink with its time.
 */
public final class ClusterRuntime extends Driver<ClusterRuntime.W> {
    /**
     * Runtime knobs besides the spec's constants.
     *
     * @param flipRestoredBit data-plane fault injection: flip one bit of every restored checkpoint,
     *                        as a bad host DIMM or a wrong copy would; the restore check counts it
     *                        and the target's next token changes, so validation rejects the trace
     */
    public record Options(KvGeometry geometry, int vocab, double draftAgreement, int streamQueueCapacity,
                          boolean flipRestoredBit, java.util.function.Function<KvGeometry, KvDataPlane> dataPlanes,
                          boolean streams, boolean assists, java.util.function.IntFunction<WorkerMemory> memories,
                          boolean lateDrafts) {
        public Options(KvGeometry geometry, int vocab, double draftAgreement, int streamQueueCapacity, boolean flipRestoredBit,
                       java.util.function.Function<KvGeometry, KvDataPlane> dataPlanes, boolean streams, boolean assists) {
            this(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists, null, false);
        }

        public Options(KvGeometry geometry, int vocab, double draftAgreement, int streamQueueCapacity, boolean flipRestoredBit) {
            this(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, CpuKvPlane::new, true, true);
        }

        /**
         * Worker w's memories made by {@code memories} (for example in a process of its own, reached
         * over the network) instead of a {@link WorkerMemory.Local} over {@link #dataPlanes}.
         */
        public Options withMemories(java.util.function.IntFunction<WorkerMemory> memories) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists, memories, lateDrafts);
        }

        /**
         * Seeded bug: a draft that reaches its target after the drafting worker handed over (or
         * failed) is still verified, as an Assist of a worker that is no longer ASSISTING.
         */
        public Options withLateDrafts(boolean late) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists, memories, late);
        }

        /** Worker w's memories: {@link #memories}'s, else both in this process. */
        WorkerMemory memory(int w) {
            return memories != null ? memories.apply(w)
                    : new WorkerMemory.Local(dataPlanes.apply(geometry), new TokenModels(vocab, draftAgreement, geometry));
        }

        public static Options defaults(int pageTokens) {
            return new Options(KvGeometry.small(pageTokens), KitTokens.VOCAB, 0.7, 64, false);
        }

        public Options withDraftAgreement(double a) {
            return new Options(geometry, vocab, a, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists, memories, lateDrafts);
        }

        public Options withFlipRestoredBit(boolean f) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, f, dataPlanes, streams, assists, memories, lateDrafts);
        }

        public Options withStreamQueueCapacity(int c) {
            return new Options(geometry, vocab, draftAgreement, c, flipRestoredBit, dataPlanes, streams, assists, memories, lateDrafts);
        }

        /** Each worker's KV data plane made by {@code planes} (for example a GPU harness backend) instead of {@link CpuKvPlane}. */
        public Options withDataPlanes(java.util.function.Function<KvGeometry, KvDataPlane> planes) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, planes, streams, assists, memories, lateDrafts);
        }

        public Options withVocab(int v) {
            return new Options(geometry, v, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, streams, assists, memories, lateDrafts);
        }

        /** Seeded bugs: a runtime that never streams a checkpoint page, or whose recovering workers never propose a draft. */
        public Options withMechanisms(boolean stream, boolean assist) {
            return new Options(geometry, vocab, draftAgreement, streamQueueCapacity, flipRestoredBit, dataPlanes, stream, assist, memories, lateDrafts);
        }
    }

    /** A worker: its GPU memory (a KV data plane), the checkpoints it holds in host memory, its outgoing page stream. */
    static final class W extends Driver.Worker {
        final WorkerMemory mem;
        final KvDataPlane gpu;
        final ArrayDeque<int[]> streamQ = new ArrayDeque<>();
        boolean streaming;

        W(int id, WorkerMemory mem) {
            super(id);
            this.mem = mem;
            this.gpu = mem.gpu();
        }
    }

    private static final class Req {
        final Arrival a;
        final int[] ref;
        final List<Integer> out = new ArrayList<>();
        int nextPage;
        int nextBackupPage;

        void resetPages(RequestRec r, int pageTokens) {
            nextPage = r.ckpt().length() / pageTokens;
            nextBackupPage = r.bckpt().length() / pageTokens;
        }

        Req(Arrival a, int[] ref) {
            this.a = a;
            this.ref = ref;
        }
    }

    private final Options opt;
    private final TokenModels models;
    private final Map<Integer, Req> reqs = new HashMap<>();
    private final List<Fault> faults = new ArrayList<>();
    private final RuntimeStats stats = new RuntimeStats();

    public ClusterRuntime(Config cfg, CostModel cost, Options opt, Sink sink) {
        this(cfg, cfg.recoveryPolicy(), cost, opt, sink);
    }

    /** A runtime that decides by {@code policy} while its config names another: a seeded bug of the property tests. */
    public ClusterRuntime(Config cfg, RecoveryPolicy policy, CostModel cost, Options opt, Sink sink) {
        super(checked(cfg, opt), policy, cost, sink, id -> new W(id, opt.memory(id)));
        this.opt = opt;
        this.models = new TokenModels(opt.vocab(), opt.draftAgreement(), opt.geometry());
    }

    private static Config checked(Config cfg, Options opt) {
        if (opt.geometry().pageTokens() != cfg.pageTokens()) {
            throw new IllegalArgumentException("KV geometry has " + opt.geometry().pageTokens() + " positions per page, config " + cfg.pageTokens());
        }
        return cfg;
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
        externalRestarts();
        return this;
    }

    /**
     * From now on a restarted worker's memories load its models ({@link WorkerMemory#loadModels},
     * on the cost model's load times), and the engine says when each is loaded
     * ({@link #modelLoaded}), instead of the runtime's timers.
     */
    public ClusterRuntime withExternalLoads() {
        externalLoads();
        return this;
    }

    @Override
    protected void loadModels(W w) {
        boolean draft = state.worker(w.id).state() == lumen.core.WorkerState.LOADING_DRAFT;
        w.mem.loadModels(draft ? cost.draftLoadMs() : 0, cost.fullLoadMs());
    }

    /** A request arrives at {@code a.atMs()} (not before the current time). */
    public void submit(Arrival a) {
        at(Math.max(now, a.atMs()), () -> arrive(a));
    }

    /** A fault: at its time, or at the first point of its kind from then on. */
    public void inject(Fault f) {
        if (f.worker() < 0 || f.worker() >= ws.size()) {
            throw new IllegalArgumentException("fault on unknown worker " + f.worker());
        }
        if (f.point() == Fault.Point.AT_TIME) {
            at(Math.max(now, f.afterMs()), () -> failOrPause(f));
        } else {
            faults.add(f);
        }
    }

    /**
     * Worker w is found dead now, by a live cluster's failure detector: its Fail step (unless it is
     * FAILED already), then every request still waiting to be routed is routed, and the workers act.
     */
    public void failNow(int w) {
        fail(w);
        routeStranded();
        kickAll();
    }

    private boolean maybeFault(W w, Fault.Point point, double dur) {
        Iterator<Fault> it = faults.iterator();
        while (it.hasNext()) {
            Fault f = it.next();
            if (f.worker() == w.id && f.point() == point && now >= f.afterMs()) {
                it.remove();
                at(now + dur / 2, () -> failOrPause(f));
                return true;
            }
        }
        return false;
    }

    /**
     * Fault f fires: the worker crashes, or, for a gray failure, stalls and is declared failed
     * (its Fail fences it) and wakes {@code pauseMs} later as a zombie.
     */
    private void failOrPause(Fault f) {
        int wid = f.worker();
        int failures = state.failures();
        fail(wid);
        if (f.paused() && state.failures() > failures) {
            int epoch = state.worker(wid).zombie().epoch();
            if (f.partitioned()) {
                // cut off from the gateway, it goes on: its pages reach its holders now, its tokens and acks wait for the heal
                at(now, () -> zombieWrites(wid, epoch, false, true, false, false));
                boolean lost = f.partition() == Fault.Partition.LOST;
                at(now + f.pauseMs(), () -> zombieWrites(wid, epoch, !lost, false, !lost, true));
            } else {
                at(now + f.pauseMs(), () -> zombieWrites(wid, epoch, true, true, true, true));
            }
        }
    }

    /**
     * The zombie of worker wid's incarnation {@code epoch} writes what it was writing, from the
     * state it had when it was failed: for each request it served, its next token (right: the
     * target's, from its own KV) to the gateway, and the next page of the request's KV to the
     * holder it streamed to; as a holder then, its acknowledgement of each copy its host memory
     * kept. A paused worker that wakes writes all three, and learns of its fence from the answers
     * and stops; a worker cut off from the gateway writes its pages at once (the holders answer
     * with the fence, but it goes on, as it cannot reach the gateway), and its tokens and acks
     * when the partition heals, and stops then. Every write is in the trace, refused. A zombie a
     * later failure of the same worker replaced is gone.
     */
    private void zombieWrites(int wid, int epoch, boolean tokens, boolean pages, boolean acks, boolean stops) {
        lumen.core.Zombie z = state.worker(wid).zombie();
        if (z == null || z.epoch() != epoch) {
            return;
        }
        if (pages) {
            stats.zombies++;
        }
        for (int r : z.reqs().keys()) {
            lumen.core.Zombie.Req q = state.worker(wid).zombie().reqs().get(r);
            if (tokens && q.out() < q.refLen()) {
                emit(Core.zombieToken(state, wid, r, reqs.get(r).ref[q.out()]));
                stats.zombieWritesRefused++;
            }
            if (pages && q.holder() >= 0 && q.next() <= q.kv().length()) {
                emit(Core.zombiePage(state, wid, r, null));
                stats.zombieWritesRefused++;
            }
        }
        // a holder when it was failed: it acknowledges the copies its host memory still has, each refused
        for (int r : acks ? z.held().keys() : new int[0]) {
            if (state.worker(wid).zombie().held().containsKey(r)) {
                emit(Core.zombieAck(state, wid, r));
                stats.zombieWritesRefused++;
            }
        }
        if (stops) {
            // a pause's wake, or a partition's heal (lossy or not): the zombie hears of its fence
            emit(Core.zombieStops(state, wid));
        }
    }

    /**
     * Tokens the fenced incarnation {@code epoch} of worker {@code wid} wrote for request {@code r}
     * after its Fail, as the edge heard them (in a live cluster: an iteration's answer that came
     * after the gateway had given up on it): each is that zombie's next token for r, refused by
     * the fence. Nothing when that incarnation's zombie is gone (it stopped, or a later Fail
     * replaced it) or did not serve r; none past r's output.
     */
    public void zombieTokens(int wid, int epoch, int r, int[] tokens) {
        for (int token : tokens) {
            lumen.core.Zombie z = state.worker(wid).zombie();
            lumen.core.Zombie.Req q = z == null || z.epoch() != epoch ? null : z.reqs().get(r);
            if (q == null || q.out() >= q.refLen()) {
                return;
            }
            emit(Core.zombieToken(state, wid, r, token));
            stats.zombieWritesRefused++;
        }
    }

    /** Worker wid's zombie learned of its fence (in a live cluster: the gateway reset it): ZombieStops, when it has one. */
    public void zombieStops(int wid) {
        if (state.worker(wid).zombie() != null) {
            emit(Core.zombieStops(state, wid));
        }
    }

    // ---- requests ----------------------------------------------------------------------------

    @Override
    protected int[] admit(Arrival a) {
        Req r = new Req(a, models.reference(a.seed(), a.promptLen(), a.outLen()));
        reqs.put(a.id(), r);
        return r.ref;
    }

    private int[] queueOf(int w) {
        return state.worker(w).runq().keys();
    }

    @Override
    protected void serve(W w) {
        int wid = w.id;
        if (!state.isUp(wid)) {
            return;
        }
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
        startIteration(w);
        List<Integer> batch = new ArrayList<>();
        double ctx = 0;
        int drafts = 0;
        for (int r : queueOf(wid)) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.DECODE && rr.outLen() < rr.refLen() && rr.kv().length() == rr.kvLen()) {
                batch.add(r);
                ctx += rr.ctx();
                if (rr.proposal() != null) {
                    drafts += rr.proposal().toks().length;
                }
            }
        }
        if (!batch.isEmpty()) {
            // the drafts on the batch are verified in the same forward pass
            double dur = cost.decodeMs(batch.size(), ctx / batch.size(), drafts);
            w.busy = true;
            if (drafts > 0) {
                maybeFault(w, Fault.Point.MID_VERIFY, dur);
            }
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
            int upTo = rr.outLen() == 0 ? rr.promptLen() : rr.kvLen();
            TargetPass.Pass pass = w.mem.run(List.of(TargetPass.Job.prefill(r, q.a.seed(), rr.promptLen(), rr.promptLen() + rr.refLen(),
                    rr.kv().length(), upTo, rr.outLen())))[0];
            emit(Core.prefill(state, r, pass.tokens(), pass.content()));
            for (int t : pass.tokens()) {
                q.out.add(t);
            }
        }
        serve(w);
    }

    private void decodeDone(W w, List<Integer> batch) {
        w.busy = false;
        // the iteration's verification passes, all on w's target at once
        List<Integer> live = new ArrayList<>();
        List<TargetPass.Job> jobs = new ArrayList<>();
        for (int r : batch) {
            RequestRec rr = rec(r);
            if (rr == null || rr.phase() != RequestPhase.DECODE || rr.server() != w.id || !state.isUp(w.id)) {
                continue;
            }
            int[] d = rr.proposal() == null ? new int[0] : rr.proposal().toks();
            live.add(r);
            jobs.add(TargetPass.Job.decode(r, reqs.get(r).a.seed(), rr.promptLen(), rr.promptLen() + rr.refLen(), rr.outLen(), d,
                    rr.refLen() - rr.outLen()));
        }
        TargetPass.Pass[] passes = jobs.isEmpty() ? new TargetPass.Pass[0] : w.mem.run(jobs);
        for (int i = 0; i < passes.length; i++) {
            int r = live.get(i);
            protect(r);
            Req q = reqs.get(r);
            int[] d = jobs.get(i).drafts();
            int[] out = passes[i].tokens();
            int kept = 0;
            while (kept < d.length && kept < out.length && d[kept] == out[kept]) {
                kept++;
            }
            stats.draftTokensAccepted += kept;
            for (int t : out) {
                q.out.add(t);
            }
            emit(Core.decode(state, r, out, passes[i].content()));
            if (rec(r).outLen() == rec(r).refLen()) {
                complete(r);
            }
        }
        serve(w);
    }

    private void complete(int r) {
        RequestRec rr = rec(r);
        emit(Core.complete(state, r));
        ws.get(rr.server()).mem.free(r);
        dropCopies(rr);
        stats.completed++;
    }

    /** Frees r's checkpoint copies in its holder's and its backup's host memory. */
    private void dropCopies(RequestRec rr) {
        if (rr.holder() >= 0) {
            ws.get(rr.holder()).mem.dropCopy(rr.id());
        }
        if (rr.backup() >= 0) {
            ws.get(rr.backup()).mem.dropCopy(rr.id());
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
                maybeFault(ws.get(target), Fault.Point.MID_STREAM, dur);
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
        long stored = 0;
        if (valid) {
            try {
                stored = w.mem.sendPage(r, page, ws.get(target).mem, state.worker(w.id).epoch());
            } catch (WorkerMemory.NotAcknowledged lost) {
                // the holder's acknowledgement did not come: the page is not in the checkpoint, and is sent again
                Req q = reqs.get(r);
                if (toBackup) {
                    q.nextBackupPage = Math.min(q.nextBackupPage, page);
                } else {
                    q.nextPage = Math.min(q.nextPage, page);
                }
                stats.streamAcksLost++;
                valid = false;
            }
        }
        if (valid) {
            // the content of the copy as the holder's host memory now has it
            PageDigest[] got = {new PageDigest(page * pt + 1, pt, stored)};
            emit(toBackup ? Core.streamBackupPage(state, r, (page + 1) * pt, got) : Core.streamPage(state, r, (page + 1) * pt, got));
            stats.pagesStreamed++;
        } else {
            stats.streamCopiesDiscarded++;
        }
        serve(w);
        if (!w.busy) {
            startStreams(w);
        }
    }

    // ---- failures and recovery: what the driver's sequence does to the data plane ----------

    @Override
    protected void failureSkipped(int w) {
        stats.faultsSkipped++;
    }

    @Override
    protected void failed(W w, Event.Fail f) {
        stats.failures++;
        // the fence, before any of w's requests is routed again: every other worker refuses its old epoch's pages
        int epoch = state.worker(w.id).epoch();
        for (W v : ws) {
            if (v != w) {
                v.mem.fence(w.id, epoch);
            }
        }
        w.mem.clear();
        w.streamQ.clear();
        w.streaming = false;
        for (int r : f.orphaned()) {
            reqs.get(r).resetPages(rec(r), cfg.pageTokens());
        }
        stats.promotions += f.promoted().length;
    }

    /** A RESTORE: the holder loads the copy in its host memory into its GPU, then reports what the GPU now holds. */
    @Override
    protected PageDigest[] restoreContent(RequestRec before, boolean restore) {
        if (!restore) {
            return new PageDigest[0];
        }
        int r = before.id();
        W h = ws.get(before.holder());
        int resumed = before.ckpt().length();
        List<byte[]> pages = h.mem.takeCopy(r);
        if (before.backup() >= 0) {
            ws.get(before.backup()).mem.dropCopy(r);
        }
        if (opt.flipRestoredBit() && !pages.isEmpty()) {
            pages.get(0)[0] ^= 1;
        }
        checkRestored(r, pages, resumed);
        h.gpu.restore(r, pages, resumed);
        stats.pagesRestored += pages.size();
        return TargetPass.content(h.gpu, r, 1, resumed);
    }

    @Override
    protected void routed(int r, RequestRec before, boolean restore) {
        if (restore) {
            stats.restores++;
        } else {
            dropCopies(before);
            stats.reprefills++;
        }
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

    @Override
    protected void draftLoaded(W w) {
        maybeFault(w, Fault.Point.MID_HANDOVER, Math.max(0, w.fullReadyAt() - now));
    }

    @Override
    protected void handedOver(W w) {
        stats.handovers++;
    }

    @Override
    protected boolean assists() {
        return opt.assists();
    }

    @Override
    protected boolean voidsLateDrafts() {
        return !opt.lateDrafts();
    }

    /** The draft model's tokens for the positions after r's output so far, from the assisting worker w's draft model. */
    @Override
    protected int[] draft(W w, RequestRec rr) {
        Req q = reqs.get(rr.id());
        return w.mem.draft(q.a.seed(), q.ref.length, rr.outLen() + 1, cfg.k());
    }

    @Override
    protected void assisted(W w, int r, int[] toks) {
        stats.draftsDelivered++;
        stats.draftTokensProposed += toks.length;
    }
}
