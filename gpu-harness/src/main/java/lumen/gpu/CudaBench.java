package lumen.gpu;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;

import java.util.SplittableRandom;
import jcuda.driver.CUevent;
import lumen.runtime.KvGeometry;
import lumen.sim.GpuProfile;

/** The GPU measurements of {@code lumen bench gpu}, timed with CUDA events on the device. */
final class CudaBench {
    private CudaBench() {}

    /** The pinned device-to-host copy ceiling, GB/s: one large copy on the side stream, median of 5. */
    static double d2hCeiling(CudaBackend b, long bytes) {
        try (Device.Staging st = b.dev.staging(bytes)) {
            return GpuBench.medianAfterWarmUp(5, () -> GpuBench.gbps(bytes, b.cuda().timed(Device.SIDE, () -> b.dev.toHost(st, bytes, Device.SIDE))));
        }
    }

    /** Streams {@code bytes} worth of pages, scattered over the pool, to pinned memory: GB/s, median of 3 after a warm-up. */
    static double streaming(KvGeometry g, long bytes) {
        int n = (int) Math.max(1, bytes / g.pageBytes());
        long total = (long) n * g.pageBytes();
        try (CudaBackend b = new CudaBackend(g, n)) {
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
                return GpuBench.medianAfterWarmUp(3, () -> GpuBench.gbps(total, b.cuda().timed(Device.SIDE, () -> b.streamAsync(ds, n, st))));
            } finally {
                b.dev.free(ds);
            }
        }
    }

    /** A decode step over a batch alone, then with pages streaming on the side stream: ms per step, and the bytes streamed meanwhile. */
    record Interference(double aloneMs, double streamingMs, double streamedGBps) {}

    /**
     * Decode steps alone and while pages stream, alternately {@code rounds} times, so that both
     * see the same clocks and the same noise; the medians of the rounds.
     */
    static Interference interference(KvGeometry g, int batch, int ctx, long streamBytes, int steps, int rounds) {
        int perReq = g.pagesFor(ctx);
        int streamPages = (int) Math.max(1, streamBytes / g.pageBytes());
        try (CudaBackend b = new CudaBackend(g, batch * perReq + streamPages)) {
            CudaDevice cuda = b.cuda();
            int[] reqs = new int[batch];
            for (int j = 0; j < batch; j++) {
                reqs[j] = j;
                b.compute(j, 1000 + j, 1, ctx);
            }
            b.compute(-1, 7, 1, streamPages * g.pageTokens());
            KernelBackend.Batch bt = b.batch(reqs);
            Device.Ptr ds = b.upload(b.table(-1));
            long total = (long) streamPages * g.pageBytes();
            // enough blocks per request that the batch's grid fills the GPU several times over, as a real decode step's reads do
            int blocks = 16;
            Runnable decodeSteps = () -> {
                for (int s = 0; s < steps; s++) {
                    b.decodeAsync(bt, Device.MAIN, blocks);
                }
            };
            try (Device.Staging st = b.dev.staging(total)) {
                cuda.timed(Device.MAIN, decodeSteps);
                double oneStream = cuda.timed(Device.SIDE, () -> b.streamAsync(ds, streamPages, st));
                double[] alone = new double[rounds];
                double[] together = new double[rounds];
                double[] streamed = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    alone[round] = cuda.timed(Device.MAIN, decodeSteps) / (double) steps;
                    int reps = (int) Math.ceil(alone[round] * steps * 1.5 / oneStream) + 1;
                    CUevent s0 = new CUevent();
                    CUevent s1 = new CUevent();
                    cuEventCreate(s0, 0);
                    cuEventCreate(s1, 0);
                    try {
                        cuEventRecord(s0, cuda.stream(Device.SIDE));
                        for (int i = 0; i < reps; i++) {
                            b.streamAsync(ds, streamPages, st);
                        }
                        cuEventRecord(s1, cuda.stream(Device.SIDE));
                        together[round] = cuda.timed(Device.MAIN, decodeSteps) / (double) steps;
                        cuEventSynchronize(s1);
                        float[] ms = new float[1];
                        cuEventElapsedTime(ms, s0, s1);
                        streamed[round] = reps * (double) total / (ms[0] / 1e3) / 1e9;
                    } finally {
                        cuEventDestroy(s0);
                        cuEventDestroy(s1);
                    }
                }
                return new Interference(GpuBench.median(alone), GpuBench.median(together), GpuBench.median(streamed));
            } finally {
                b.dev.sync(Device.SIDE);
                b.dev.free(ds);
                b.free(bt);
            }
        }
    }

    /** Restoring a prefix of {@code tokens} positions from pinned host memory, as a restore does (H2D into staging, scattered into the pool): ms, median of 5. */
    static double restoreMs(KvGeometry g, int tokens) {
        int n = g.pagesFor(tokens);
        try (CudaBackend b = new CudaBackend(g, n)) {
            b.compute(0, 3, 1, tokens);
            Device.Ptr ds = b.upload(b.table(0));
            try (Device.Staging st = b.dev.staging((long) n * g.pageBytes())) {
                return GpuBench.medianAfterWarmUp(5, () -> b.cuda().timed(Device.SIDE, () -> b.restoreAsync(ds, n, st)));
            } finally {
                b.dev.free(ds);
            }
        }
    }

    /** Verification kernels' throughput, rows per second: greedy over {@code greedyRows}, rejection over {@code rows} rows of vocabulary v. */
    static GpuProfile.Verify verify(int k, int v, int greedyRows, int rows) {
        SplittableRandom r = new SplittableRandom(2);
        try (CudaBackend b = new CudaBackend(new KvGeometry(16, 2, 16), 1)) {
            CudaDevice cuda = b.cuda();
            Device.Ptr d = b.upload(r.ints((long) greedyRows * k, 0, 8).toArray());
            Device.Ptr t = b.upload(r.ints((long) greedyRows * (k + 1), 0, 8).toArray());
            Device.Ptr e = b.zeros((long) greedyRows * Integer.BYTES);
            double greedyMs = cuda.timed(Device.MAIN, () -> {
                for (int i = 0; i < 10; i++) {
                    b.dev.launch("verify_greedy", KernelBackend.blocks(greedyRows, 256), 1, 256, Device.MAIN, d, t, k, greedyRows, e);
                }
            }) / 10;
            GpuBench.VerifyInputs in = GpuBench.VerifyInputs.of(k, v, rows, r);
            Device.Ptr dp = b.upload(in.p());
            Device.Ptr dq = b.upload(in.q());
            Device.Ptr dd = b.upload(in.draft());
            Device.Ptr dua = b.upload(in.uAccept());
            Device.Ptr dus = b.upload(in.uSample());
            Device.Ptr out = b.zeros((long) rows * (k + 1) * Integer.BYTES);
            Device.Ptr em = b.zeros((long) rows * Integer.BYTES);
            double rejMs = cuda.timed(Device.MAIN, () -> {
                for (int i = 0; i < 3; i++) {
                    b.dev.launch("verify_rejection", KernelBackend.blocks(rows, 128), 1, 128, Device.MAIN, dp, dq, dd, dua, dus, k, v, rows, out, em);
                }
            }) / 3;
            // the device frees every allocation when the backend closes
            return new GpuProfile.Verify(k, v, greedyRows / (greedyMs / 1e3), rows / (rejMs / 1e3));
        }
    }
}
