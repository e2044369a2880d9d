package lumen.gpu;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import lumen.runtime.KvGeometry;
import lumen.sim.GpuProfile;

/**
 * The kernel-backend measurements of {@code lumen bench gpu}, timed by the device (on a GPU, with
 * CUDA events). Every backend comes from {@code open}, so the same code runs on the GPU and, with
 * small sizes, on the host device the tests use.
 */
final class KernelBench {
    private KernelBench() {}

    /** A kernel backend with a pool of the given pages. */
    interface Open extends BiFunction<KvGeometry, Integer, KernelBackend> {}

    /** How much each measurement moves. */
    record Sizes(long copyBytes, int batch, int ctx, long streamBytes, int steps, int rounds, int[] prefixes, int greedyRows, int rows, int vocab) {
        static final int[] PREFIXES = {16, 64, 256, 1024, 4096, 16384, 32768};
        static final Sizes FULL = new Sizes(1L << 30, 64, 4096, 2L << 30, 50, 7, PREFIXES, 1 << 22, 4096, 32_000);
        static final Sizes QUICK = new Sizes(256L << 20, 64, 2048, 1L << 30, 20, 3, PREFIXES, 1 << 20, 1024, 32_000);
    }

    /** The device-to-host copy ceiling, GB/s: one large copy on the side stream, median of 5 after a warm-up. */
    static double d2hCeiling(KernelBackend b, long bytes) {
        try (Device.Staging st = b.dev.staging(bytes)) {
            return GpuBench.medianAfterWarmUp(5, () -> GpuBench.gbps(bytes, b.dev.timed(Device.SIDE, () -> b.dev.toHost(st, bytes, Device.SIDE))));
        }
    }

    /** Streams {@code bytes} worth of pages, scattered over the pool, to host memory: GB/s, median of 3 after a warm-up. */
    static double streaming(Open open, KvGeometry g, long bytes) {
        int n = (int) Math.max(1, bytes / g.pageBytes());
        long total = (long) n * g.pageBytes();
        try (KernelBackend b = open.apply(g, n)) {
            int[] slots = new int[n];
            for (int i = 0; i < n; i++) {
                slots[i] = i;
            }
            SplittableRandom r = new SplittableRandom(1);
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = slots[i];
                slots[i] = slots[j];
                slots[j] = t;
            }
            Device.Ptr ds = b.upload(slots);
            try (Device.Staging st = b.dev.staging(total)) {
                return GpuBench.medianAfterWarmUp(3, () -> GpuBench.gbps(total, b.dev.timed(Device.SIDE, () -> b.streamAsync(ds, n, st))));
            } finally {
                b.dev.free(ds);
            }
        }
    }

    /** A decode step over a batch alone, then with pages streaming on the side stream: ms per step, and the bytes streamed meanwhile. */
    record Interference(double aloneMs, double streamingMs, double streamedGBps) {}

    /**
     * Decode steps alone and while pages stream, alternately {@code s.rounds()} times, so that both
     * see the same clocks and the same noise; the medians of the rounds.
     */
    static Interference interference(Open open, KvGeometry g, Sizes s) {
        int perReq = g.pagesFor(s.ctx());
        int streamPages = (int) Math.max(1, s.streamBytes() / g.pageBytes());
        try (KernelBackend b = open.apply(g, s.batch() * perReq + streamPages)) {
            int[] reqs = new int[s.batch()];
            for (int j = 0; j < reqs.length; j++) {
                reqs[j] = j;
                b.compute(j, 1000 + j, 1, s.ctx());
            }
            b.compute(-1, 7, 1, streamPages * g.pageTokens());
            KernelBackend.Batch bt = b.batch(reqs);
            Device.Ptr ds = b.upload(b.table(-1));
            long total = (long) streamPages * g.pageBytes();
            // enough blocks per request that the batch's grid fills the GPU several times over, as a real decode step's reads do
            int blocks = 16;
            Runnable decodeSteps = () -> {
                for (int step = 0; step < s.steps(); step++) {
                    b.decodeAsync(bt, Device.MAIN, blocks);
                }
            };
            try (Device.Staging st = b.dev.staging(total)) {
                b.dev.timed(Device.MAIN, decodeSteps);
                double oneStream = b.dev.timed(Device.SIDE, () -> b.streamAsync(ds, streamPages, st));
                double[] alone = new double[s.rounds()];
                double[] together = new double[s.rounds()];
                double[] streamed = new double[s.rounds()];
                for (int round = 0; round < s.rounds(); round++) {
                    alone[round] = b.dev.timed(Device.MAIN, decodeSteps) / s.steps();
                    int reps = (int) Math.ceil(alone[round] * s.steps() * 1.5 / Math.max(oneStream, 1e-6)) + 1;
                    Device.Mark s0 = b.dev.mark(Device.SIDE);
                    for (int i = 0; i < reps; i++) {
                        b.streamAsync(ds, streamPages, st);
                    }
                    Device.Mark s1 = b.dev.mark(Device.SIDE);
                    together[round] = b.dev.timed(Device.MAIN, decodeSteps) / s.steps();
                    streamed[round] = GpuBench.gbps(reps * total, b.dev.elapsedMs(s0, s1));
                }
                return new Interference(GpuBench.median(alone), GpuBench.median(together), GpuBench.median(streamed));
            } finally {
                b.dev.sync(Device.SIDE);
                b.dev.free(ds);
                b.free(bt);
            }
        }
    }

    /** Restoring a prefix of {@code tokens} positions from host memory, as a restore does (H2D into staging, scattered into the pool): ms, median of 5 after a warm-up. */
    static double restoreMs(Open open, KvGeometry g, int tokens) {
        int n = g.pagesFor(tokens);
        try (KernelBackend b = open.apply(g, n)) {
            b.compute(0, 3, 1, tokens);
            Device.Ptr ds = b.upload(b.table(0));
            try (Device.Staging st = b.dev.staging((long) n * g.pageBytes())) {
                return GpuBench.medianAfterWarmUp(5, () -> b.dev.timed(Device.SIDE, () -> b.restoreAsync(ds, n, st)));
            } finally {
                b.dev.free(ds);
            }
        }
    }

    /** Verification kernels' throughput, rows per second (k = 4): greedy over {@code s.greedyRows()}, rejection over {@code s.rows()} rows of {@code s.vocab()} tokens. */
    static GpuProfile.Verify verify(Open open, Sizes s) {
        int k = 4;
        SplittableRandom r = new SplittableRandom(2);
        try (KernelBackend b = open.apply(new KvGeometry(16, 2, 16), 1)) {
            int greedyRows = s.greedyRows();
            Device.Ptr d = b.upload(r.ints((long) greedyRows * k, 0, 8).toArray());
            Device.Ptr t = b.upload(r.ints((long) greedyRows * (k + 1), 0, 8).toArray());
            Device.Ptr e = b.zeros((long) greedyRows * Integer.BYTES);
            double greedyMs = b.dev.timed(Device.MAIN, () -> {
                for (int i = 0; i < 10; i++) {
                    b.dev.launch("verify_greedy", KernelBackend.blocks(greedyRows, 256), 1, 256, Device.MAIN, d, t, k, greedyRows, e);
                }
            }) / 10;
            int rows = s.rows();
            GpuBench.VerifyInputs in = GpuBench.VerifyInputs.of(k, s.vocab(), rows, r);
            List<Device.Ptr> args = List.of(b.upload(in.p()), b.upload(in.q()), b.upload(in.draft()), b.upload(in.uAccept()), b.upload(in.uSample()),
                    b.zeros((long) rows * (k + 1) * Integer.BYTES), b.zeros((long) rows * Integer.BYTES));
            double rejMs = b.dev.timed(Device.MAIN, () -> {
                for (int i = 0; i < 3; i++) {
                    b.dev.launch("verify_rejection", KernelBackend.blocks(rows, 128), 1, 128, Device.MAIN, args.get(0), args.get(1), args.get(2),
                            args.get(3), args.get(4), k, s.vocab(), rows, args.get(5), args.get(6));
                }
            }) / 3;
            // the device frees every allocation when the backend closes
            return new GpuProfile.Verify(k, s.vocab(), greedyRows / (greedyMs / 1e3), rows / (rejMs / 1e3));
        }
    }
}
