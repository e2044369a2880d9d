package lumen.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.driver.Driver;
import lumen.runtime.Arrival;

/**
 * A discrete-event simulator of a serving cluster at scale, on the same decision core and
 * policies as the runtime: every placement, route, assist and handover is a {@link Core} step, so
 * a simulated run emits the trace contract and {@code lumen validate} accepts it.
 *
 * <p>What it models, per worker: continuous batching (each iteration decodes every running request
 * up to {@code maxBatch} and prefills up to {@code chunkTokens} prompt tokens, Sarathi-style chunked
 * prefill, admitting a queued request only while fewer than {@code maxBatch} are running and the KV
 * positions they reserve fit the worker's KV pool ({@link ProfiledCostModel#kvCapacityPositions});
 * its duration is the cost model's prefill plus decode time); a FCFS queue; checkpoint
 * streaming after each iteration at the cost model's bandwidth, shared by the worker's requests, with
 * its slowdown of decode while pages are in flight; restores at restore bandwidth before a restored
 * request's catch-up prefill. Failures, restarts, the draft's assist (each draft token agrees with
 * probability {@code draftAcceptance}) and the handover follow the policy, through the {@link
 * Driver} the cluster runtime also runs; this class is its engine at scale. What it does not model:
 * token values (the reference tokens stand in), preemption (a request reserves its whole output at
 * admission, so none is ever retracted), network contention between workers.
 */
public final class Simulator extends Driver<Simulator.W> {

    /**
     * @param chunkTokens      prefill tokens per iteration (chunked prefill)
     * @param maxBatch         running requests: decoded per iteration, and admitted at most (0: no cap but the KV pool)
     * @param draftAcceptance  probability that one draft token agrees with the target, once warm
     * @param coldAcceptance   the same for the first proposals of a freshly loaded draft (its context is cold)
     * @param warmupProposals  proposals over which the draft warms: after n of them the probability is
     *                         {@code warm - (warm - cold) * exp(-n / warmupProposals)}
     * @param detectMs         from a failure until the gateway knows of it and routes the interrupted
     *                         requests (heartbeat detection)
     */
    public record Options(Config config, ProfiledCostModel cost, int chunkTokens, int maxBatch, double draftAcceptance,
                          double coldAcceptance, double warmupProposals, double detectMs, long seed) {
        /** A draft that is warm from its first proposal, and a failure seen at once. */
        public Options(Config config, ProfiledCostModel cost, int chunkTokens, int maxBatch, double draftAcceptance, long seed) {
            this(config, cost, chunkTokens, maxBatch, draftAcceptance, draftAcceptance, 1, 0, seed);
        }

        /** The agreement probability of a draft token after {@code n} proposals of this draft. */
        public double acceptanceAfter(int n) {
            return draftAcceptance - (draftAcceptance - coldAcceptance) * Math.exp(-n / Math.max(1e-9, warmupProposals));
        }
    }

    /** A worker: the driver's record; the simulator keeps its per-worker state in arrays. */
    static final class W extends Driver.Worker {
        W(int id) {
            super(id);
        }
    }

    private final Options opt;
    private final ProfiledCostModel cost;
    private final SplittableRandom rnd;
    /** Per worker: link time, in positions, left over from the last iteration's streaming (less than a page). */
    private final double[] streamCredit;
    private final Map<Integer, Integer> progress = new HashMap<>();
    private final Set<Integer> restoring = new HashSet<>();
    private final Map<Integer, SimResult.Req> metrics = new HashMap<>();
    private final SimResult result = new SimResult();
    private long tokens;

    public Simulator(Options opt, Sink sink) {
        super(opt.config(), opt.config().recoveryPolicy(), opt.cost(), sink, W::new);
        this.opt = opt;
        this.cost = opt.cost();
        this.rnd = new SplittableRandom(opt.seed());
        this.streamCredit = new double[cfg.workers()];
    }

    /** Runs the arrivals with worker failures at the given times until every request is done. */
    public SimResult run(List<Arrival> arrivals, List<SimResult.Failure> failures) {
        long t0 = System.nanoTime();
        for (Arrival a : arrivals) {
            at(a.atMs(), () -> arrive(a));
        }
        for (SimResult.Failure f : failures) {
            at(f.atMs(), () -> {
                int h = f.holder() ? busiestHolderOf(f.workers()) : -1;
                h = f.holder() && h < 0 ? f.fallback() : h;
                for (int w : f.workers()) {
                    fail(w);
                }
                if (h >= 0) {
                    fail(h);
                }
            });
            result.failures.add(f);
        }
        double nextSample = 0;
        while (!idle()) {
            double t = nextTimer();
            while (nextSample <= t) {
                sample(nextSample);
                nextSample += SAMPLE_MS;
            }
            advanceTo(t);
        }
        result.events = events();
        result.endMs = now;
        result.requests.addAll(metrics.values());
        result.requests.sort((a, b) -> Integer.compare(a.id, b.id));
        result.wallSeconds = (System.nanoTime() - t0) / 1e9;
        return result;
    }

    /**
     * The mean Eq. 4 load of the workers, sampled each second from {@code fromMs} until
     * {@code toMs}, of the arrivals before {@code toMs} run without failures: the load before a
     * failure at {@code toMs}, which a run with that failure shares (both are the same run until
     * then). The unit is the config's (pages when {@code alpha} is per position over the page size).
     */
    public double meanLoadBefore(List<Arrival> arrivals, double fromMs, double toMs) {
        for (Arrival a : arrivals) {
            if (a.atMs() < toMs) {
                at(a.atMs(), () -> arrive(a));
            }
        }
        double sum = 0;
        int n = 0;
        double next = Math.max(0, fromMs);
        while (next < toMs) {
            if (!idle() && nextTimer() <= next) {
                advanceTo(nextTimer());
                continue;
            }
            for (int w = 0; w < ws.size(); w++) {
                sum += state.load(w);
            }
            n += ws.size();
            next += SAMPLE_MS;
        }
        return n == 0 ? 0 : sum / n;
    }

    /** The sampling period of {@link SimResult#samples}, ms. */
    public static final double SAMPLE_MS = 1_000;

    private void sample(double t) {
        int queued = 0;
        int decoding = 0;
        for (int w = 0; w < ws.size(); w++) {
            for (int id : state.worker(w).runq().keys()) {
                if (state.request(id).phase() == RequestPhase.QUEUED) {
                    queued++;
                } else {
                    decoding++;
                }
            }
        }
        result.samples.add(new SimResult.Sample(t, queued, decoding, tokens));
    }

    @Override
    protected double detectMs() {
        return opt.detectMs();
    }

    // ---- requests ----------------------------------------------------------------------------

    /** The reference tokens stand in for the model's output (the simulator models no token values). */
    @Override
    protected int[] admit(Arrival a) {
        int[] ref = new int[a.outLen()];
        for (int i = 0; i < ref.length; i++) {
            ref[i] = (int) ((a.seed() + 31L * i) & 0x7fff);
        }
        metrics.put(a.id(), new SimResult.Req(a.id(), a.atMs(), a.promptLen(), a.outLen()));
        return ref;
    }

    /**
     * One iteration of continuous batching, when the worker is free: chunked prefill, then a decode
     * step of the running requests that verifies the drafts on them in the same pass.
     */
    @Override
    protected void serve(W w) {
        int wid = w.id;
        placeAll(wid);
        if (!state.isUp(wid) || w.busy) {
            return;
        }
        startIteration(w);
        int budget = opt.chunkTokens();
        int prefillTokens = 0;
        List<int[]> chunks = new ArrayList<>();
        double restoreMs = 0;
        List<Integer> finishing = new ArrayList<>();
        List<Integer> batch = new ArrayList<>();
        double ctx = 0;
        int drafts = 0;
        int cap = opt.maxBatch() > 0 ? opt.maxBatch() : Integer.MAX_VALUE;
        long pool = cost.kvCapacityPositions();
        int running = 0;
        long reserved = 0;
        // admitted: decoding, or part-way through a prefill (a full batch or pool shows as queueing before the first token)
        for (int r : state.worker(wid).runq().keys()) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.DECODE || rr.phase() == RequestPhase.QUEUED && progress.containsKey(r)) {
                running++;
                reserved += rr.size();
            }
        }
        for (int r : state.worker(wid).runq().keys()) {
            RequestRec rr = rec(r);
            // a request larger than the whole pool is admitted alone, as an engine would truncate or refuse it rather than stall
            if (rr.phase() == RequestPhase.QUEUED && rr.placed() && budget > 0
                    && (progress.containsKey(r) || running < cap && (reserved + rr.size() <= pool || running == 0))) {
                if (!progress.containsKey(r)) {
                    running++;
                    reserved += rr.size();
                }
                if (restoring.remove(r)) {
                    restoreMs += cost.restoreMs(rr.kv().length());
                }
                int need = (rr.outLen() == 0 ? rr.promptLen() : rr.kvLen()) - rr.kv().length();
                int done = progress.getOrDefault(r, 0);
                int take = Math.min(budget, need - done);
                budget -= take;
                prefillTokens += take;
                if (take > 0) {
                    chunks.add(new int[] {take, rr.kv().length() + done});
                }
                if (done + take >= need) {
                    finishing.add(r);
                    progress.remove(r);
                } else {
                    progress.put(r, done + take);
                }
            } else if (rr.phase() == RequestPhase.DECODE && rr.outLen() < rr.refLen() && rr.kv().length() == rr.kvLen()
                    && batch.size() < cap) {
                batch.add(r);
                ctx += rr.ctx();
                if (rr.proposal() != null) {
                    drafts += rr.proposal().toks().length;
                }
            }
        }
        if (finishing.isEmpty() && batch.isEmpty() && prefillTokens == 0) {
            return;
        }
        int[] take = new int[chunks.size()];
        int[] cached = new int[chunks.size()];
        for (int i = 0; i < take.length; i++) {
            take[i] = chunks.get(i)[0];
            cached[i] = chunks.get(i)[1];
        }
        // one fused forward pass: the prefill chunks, the decode step and the drafts it verifies
        double pass = cost.iterationMs(take, cached, batch.size(), batch.isEmpty() ? 0 : ctx / batch.size(), drafts);
        double dur = restoreMs + (streamingFrom(wid) ? pass * cost.streamingFactor() : pass);
        w.busy = true;
        on(w, now + dur, () -> iterationDone(w, finishing, batch, dur));
    }

    /**
     * Takes every placement decision due on this worker: for each new or routed request, and for
     * each unprotected one the policy now has a holder for (re-protection, Algorithm 1).
     */
    private void placeAll(int wid) {
        if (!state.isUp(wid)) {
            return;
        }
        for (int r : state.worker(wid).runq().keys()) {
            protect(r);
        }
    }

    private void protect(int r) {
        RequestRec rr = rec(r);
        if ((!rr.placed() || state.needsProtection(rr)) && (rr.phase() == RequestPhase.QUEUED || rr.phase() == RequestPhase.DECODE)) {
            emit(Core.place(state, r));
        }
    }

    private boolean streamingFrom(int wid) {
        for (int r : state.worker(wid).runq().keys()) {
            RequestRec rr = rec(r);
            if (rr.holder() >= 0 && rr.ckpt().length() < rr.kv().length() || rr.backup() >= 0 && rr.bckpt().length() < rr.kv().length()) {
                return true;
            }
        }
        return false;
    }

    private void iterationDone(W w, List<Integer> finishing, List<Integer> batch, double dur) {
        w.busy = false;
        for (int r : finishing) {
            RequestRec rr = rec(r);
            if (rr.phase() == RequestPhase.QUEUED && rr.server() == w.id) {
                boolean first = rr.outLen() == 0;
                protect(r);
                emit(Core.prefill(state, r));
                if (first) {
                    metrics.get(r).firstMs = now;
                    metrics.get(r).lastTokenMs = now;
                    tokens++;
                    replayed(r);
                }
                completeIfDone(r);
            }
        }
        for (int r : batch) {
            RequestRec rr = rec(r);
            if (rr.phase() != RequestPhase.DECODE || rr.server() != w.id) {
                continue;
            }
            int before = rr.outLen();
            RequestRec.Proposal prop = rr.proposal();
            protect(r);
            emit(Core.decode(state, r));
            int got = rec(r).outLen() - before;
            tokens += got;
            SimResult.Req m = metrics.get(r);
            // this step's time per token, since the request's last token (across a failure, the stall)
            result.tpotSteps.add(now, (now - m.lastTokenMs) / got, got);
            m.lastTokenMs = now;
            replayed(r);
            if (prop != null) {
                // the draft's tokens kept: its prefix that agrees with the reference
                int kept = 0;
                while (kept < prop.toks().length && before + kept < rr.refLen() && prop.toks()[kept] == rr.ref()[before + kept]) {
                    kept++;
                }
                result.drafts.add(new SimResult.Draft(now, now - ws.get(prop.src()).draftReadyAt, prop.toks().length, kept));
            }
            completeIfDone(r);
        }
        stream(w.id, dur);
        serve(w);
    }

    private void replayed(int r) {
        SimResult.Req m = metrics.get(r);
        if (m.interrupted && Double.isNaN(m.replayFirstMs)) {
            m.replayFirstMs = now;
        }
    }

    private void completeIfDone(int r) {
        RequestRec rr = rec(r);
        if (rr.phase() == RequestPhase.DECODE && rr.outLen() == rr.refLen()) {
            emit(Core.complete(state, r));
            metrics.get(r).doneMs = now;
        }
    }

    /**
     * Streams checkpoint positions of this worker's requests for {@code ms} of link time. A copy
     * takes pages as the server wrote them: it stops at a page boundary, or at the written KV, and
     * link time too short for a whole page carries over (up to one page) to the next iteration.
     */
    private void stream(int wid, double ms) {
        double budget = streamCredit[wid] + cost.streamablePositions(ms);
        int pt = cfg.pageTokens();
        for (int r : state.worker(wid).runq().keys()) {
            RequestRec rr = rec(r);
            if (rr.phase() != RequestPhase.QUEUED && rr.phase() != RequestPhase.DECODE) {
                continue;
            }
            if (rr.holder() >= 0) {
                int to = state.streamUpTo(rr.holder(), rr.ckpt().length(), cut(rr.ckpt().length(), rr.kv().length(), budget, pt));
                if (to > rr.ckpt().length()) {
                    budget -= to - rr.ckpt().length();
                    emit(Core.streamPage(state, r, to));
                }
            }
            rr = rec(r);
            if (rr.backup() >= 0) {
                int to = state.streamUpTo(rr.backup(), rr.bckpt().length(), cut(rr.bckpt().length(), rr.kv().length(), budget, pt));
                if (to > rr.bckpt().length()) {
                    budget -= to - rr.bckpt().length();
                    emit(Core.streamBackupPage(state, r, to));
                }
            }
        }
        streamCredit[wid] = Math.min(budget, pt);
    }

    /** Where a copy of {@code have} positions can stop with {@code budget} positions of link time: -1 if nowhere. */
    private static int cut(int have, int kv, double budget, int pt) {
        if (have >= kv) {
            return -1;
        }
        if (kv - have <= budget) {
            return kv;
        }
        int boundary = (int) ((have + budget) / pt) * pt;
        return boundary > have ? boundary : -1;
    }

    // ---- failures and recovery ---------------------------------------------------------------

    /**
     * The up worker, outside {@code failing}, that holds the most checkpoints (primary or backup) of
     * requests served by {@code failing} (lowest id on ties); -1 when none holds any.
     */
    private int busiestHolderOf(int[] failing) {
        Set<Integer> out = new HashSet<>();
        for (int w : failing) {
            out.add(w);
        }
        int[] held = new int[ws.size()];
        for (int w : failing) {
            if (!state.isUp(w)) {
                continue;
            }
            for (int r : state.worker(w).runq().keys()) {
                RequestRec rr = rec(r);
                for (int h : new int[] {rr.holder(), rr.backup()}) {
                    if (h >= 0 && !out.contains(h) && state.isUp(h)) {
                        held[h]++;
                    }
                }
            }
        }
        int best = -1;
        for (int h = 0; h < held.length; h++) {
            if (held[h] > 0 && (best < 0 || held[h] > held[best])) {
                best = h;
            }
        }
        return best;
    }

    @Override
    protected void failureSkipped(int w) {
        result.failuresSkipped++;
    }

    @Override
    protected void failed(W w, Event.Fail f) {
        streamCredit[w.id] = 0;
        for (int r : f.interrupted()) {
            progress.remove(r);
            restoring.remove(r);
            SimResult.Req m = metrics.get(r);
            if (!m.interrupted) {
                m.interrupted = true;
                m.interruptedMs = now;
            }
        }
    }

    @Override
    protected PageDigest[] restoreContent(RequestRec before, boolean restore) {
        return restore ? PageDigest.synthetic(before.id(), 1, before.ckpt().length(), cfg.pageTokens()) : new PageDigest[0];
    }

    @Override
    protected void routed(int r, RequestRec before, boolean restore) {
        if (restore) {
            restoring.add(r);
            metrics.get(r).restored = true;
        }
    }

    /** Each token agrees with the reference with the draft's acceptance after its proposals so far; the first disagreement ends the run of agreement. */
    @Override
    protected int[] draft(W w, RequestRec rr) {
        int[] d = new int[cfg.k()];
        boolean agree = true;
        double pAgree = opt.acceptanceAfter(w.proposals);
        for (int i = 0; i < d.length; i++) {
            int pos = rr.outLen() + i;
            int right = pos < rr.refLen() ? rr.ref()[pos] : 7;
            agree &= rnd.nextDouble() < pAgree;
            d[i] = agree ? right : right + 1;
        }
        return d;
    }
}
