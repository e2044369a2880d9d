package lumen.trace;

import java.io.IOException;
import java.util.SplittableRandom;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.core.Step;
import lumen.core.WorkerState;

/**
 * Valid traces of any length, fast: the decision core driven by a simple deterministic
 * scheduler (no KV bytes, no cost model). Each tick every UP worker places, prefills one queued
 * request, decodes every running request one token (or a verified draft) and streams every
 * whole page; arrivals keep {@code perWorker} requests per worker; every
 * {@code failEvery} events a worker fails, restarts a few ticks later, assists, and hands over.
 * For benchmarks and memory tests of the validator, and as a workload for tests.
 */
public final class SyntheticTrace {
    /** What to generate. */
    public record Spec(Config config, long events, int perWorker, int promptLen, int outLen, long failEvery, long seed) {
        public static Spec of(Config c, long events) {
            return new Spec(c, events, 8, 64, 256, 50_000, 1);
        }
    }

    /** Receives each event of the trace. */
    public interface Out {
        void accept(Event e) throws IOException;
    }

    private final Spec spec;
    private final Out out;
    private final SplittableRandom rnd;
    private ClusterState s;
    private long emitted;
    private int nextReq;
    private final int[] restartAt;
    private long tick;

    private SyntheticTrace(Spec spec, Out out) {
        this.spec = spec;
        this.out = out;
        this.rnd = new SplittableRandom(spec.seed());
        this.s = ClusterState.initial(spec.config());
        this.restartAt = new int[spec.config().workers()];
    }

    /** Generates at least {@code spec.events()} events (it stops at the end of a tick). */
    public static long generate(Spec spec, Out out) throws IOException {
        SyntheticTrace t = new SyntheticTrace(spec, out);
        t.run();
        return t.emitted;
    }

    private void emit(Step st) throws IOException {
        s = st.state();
        out.accept(st.event());
        emitted++;
    }

    private int[] ref() {
        int[] r = new int[spec.outLen()];
        for (int i = 0; i < r.length; i++) {
            r[i] = rnd.nextInt(32_000);
        }
        return r;
    }

    private void run() throws IOException {
        int w = spec.config().workers();
        long nextFail = spec.failEvery();
        while (emitted < spec.events()) {
            tick++;
            int live = 0;
            for (int v = 0; v < w; v++) {
                if (s.isUp(v)) {
                    live += s.worker(v).queue();
                }
            }
            while (live < spec.perWorker() * s.index().size()) {
                emit(Core.arrive(s, nextReq++, spec.promptLen(), ref()));
                live++;
            }
            for (int v = 0; v < w; v++) {
                workerTick(v);
            }
            if (emitted >= nextFail) {
                nextFail += spec.failEvery();
                int victim = rnd.nextInt(w);
                if (s.isUp(victim) && s.index().size() > 1) {
                    Step f = Core.fail(s, victim);
                    emit(f);
                    for (int r : ((Event.Fail) f.event()).interrupted()) {
                        emit(Core.route(s, r));
                    }
                    restartAt[victim] = (int) tick + 3;
                }
            }
        }
    }

    private void workerTick(int v) throws IOException {
        WorkerState st = s.worker(v).state();
        switch (st) {
            case FAILED -> {
                if (tick >= restartAt[v]) {
                    emit(Core.restart(s, v));
                }
                return;
            }
            case LOADING_DRAFT -> {
                emit(Core.draftReady(s, v));
                return;
            }
            case ASSISTING -> {
                int r = Core.assistCandidate(s, v);
                if (r >= 0) {
                    RequestRec rr = s.request(r);
                    int[] d = new int[Math.min(spec.config().k(), 2)];
                    for (int i = 0; i < d.length; i++) {
                        int pos = rr.outLen() + i;
                        d[i] = pos < rr.refLen() && rnd.nextInt(4) > 0 ? rr.ref()[pos] : 32_001;
                    }
                    emit(Core.assist(s, v, r, d));
                }
                if (tick >= restartAt[v] + 6) {
                    emit(Core.fullReady(s, v));
                }
                return;
            }
            case LOADING_FULL -> {
                if (tick >= restartAt[v] + 6) {
                    emit(Core.fullReady(s, v));
                }
                return;
            }
            case UP -> { }
        }
        boolean prefilled = false;
        int pt = spec.config().pageTokens();
        for (int r : s.worker(v).runq().keys()) {
            RequestRec rr = s.request(r);
            if (!rr.placed() || s.needsProtection(rr)) {
                emit(Core.place(s, r));
                rr = s.request(r);
            }
            if (rr.phase() == RequestPhase.QUEUED) {
                if (!prefilled) {
                    prefilled = true;
                    emit(Core.prefill(s, r));
                }
            } else if (rr.outLen() < rr.refLen()) {
                emit(Core.decode(s, r));
            }
            rr = s.request(r);
            if (rr.phase() == RequestPhase.DECODE && rr.outLen() == rr.refLen()) {
                emit(Core.complete(s, r));
                continue;
            }
            int whole = rr.holder() < 0 ? 0 : s.streamUpTo(rr.holder(), rr.ckpt().length(), rr.kv().length() / pt * pt);
            if (rr.holder() >= 0 && whole > rr.ckpt().length()) {
                emit(Core.streamPage(s, r, whole));
            }
            // the backup's copy streams on its own, page by page like the holder's
            rr = s.request(r);
            int backupWhole = rr.backup() < 0 ? 0 : s.streamUpTo(rr.backup(), rr.bckpt().length(), rr.kv().length() / pt * pt);
            if (rr.backup() >= 0 && backupWhole > rr.bckpt().length()) {
                emit(Core.streamBackupPage(s, r, backupWhole));
            }
        }
    }

    /** A whole trace in memory: header and events, as bytes. */
    public static byte[] toBytes(Spec spec) throws IOException {
        return toBytes(spec, TraceFormat.VERSION);
    }

    /** The same trace written in trace contract {@code version} (1: without the KV content). */
    public static byte[] toBytes(Spec spec, int version) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(b, spec.config(), version)) {
            generate(spec, w::write);
        }
        return b.toByteArray();
    }
}
