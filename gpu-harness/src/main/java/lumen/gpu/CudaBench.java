package lumen.gpu;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;

import java.util.SplittableRandom;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import lumen.runtime.KvGeometry;
import lumen.sim.GpuProfile;

/** The GPU measurements of {@code lumen bench gpu}, timed with CUDA events on the device. */
final class CudaBench {
    private CudaBench() {}

    /** Milliseconds of what {@code work} enqueues on {@code s}, between two events. */
    static float timed(CUstream s, Runnable work) {
        CUevent a = new CUevent();
        CUevent b = new CUevent();
        cuEventCreate(a, 0);
        cuEventCreate(b, 0);
        try {
            cuEventRecord(a, s);
            work.run();
            cuEventRecord(b, s);
            cuEventSynchronize(b);
            float[] ms = new float[1];
            cuEventElapsedTime(ms, a, b);
            return ms[0];
        } finally {
            cuEventDestroy(a);
            cuEventDestroy(b);
        }
    }

    /** The pinned device-to-host copy ceiling, GB/s: one large copy on the side stream, median of 5. */
    static double d2hCeiling(CudaBackend b, long bytes) {
        try (CudaBackend.Staging st = CudaBackend.Staging.of(bytes)) {
            return GpuBench.medianAfterWarmUp(5, () -> GpuBench.gbps(bytes, timed(b.sideStream(), () -> cuMemcpyDtoHAsync(st.host(), st.device(), bytes, b.sideStream()))));
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
            CUdeviceptr ds = CudaBackend.upload(slots);
            try (CudaBackend.Staging st = CudaBackend.Staging.of(total)) {
                return GpuBench.medianAfterWarmUp(3, () -> GpuBench.gbps(total, timed(b.sideStream(), () -> b.streamAsync(ds, n, st))));
            } finally {
                cuMemFree(ds);
            }
        }
    }

    /** A decode step over a batch alone, then with pages streaming on the side stream: ms per step, and the bytes streamed meanwhile. */
    record Interference(double aloneMs, double streamingMs, double streamedGBps) {}

    static Interference interference(KvGeometry g, int batch, int ctx, long streamBytes, int steps) {
        int perReq = g.pagesFor(ctx);
        int streamPages = (int) Math.max(1, streamBytes / g.pageBytes());
        try (CudaBackend b = new CudaBackend(g, batch * perReq + streamPages)) {
            int[] reqs = new int[batch];
            for (int j = 0; j < batch; j++) {
                reqs[j] = j;
                b.compute(j, 1000 + j, 1, ctx);
            }
            b.compute(-1, 7, 1, streamPages * g.pageTokens());
            CudaBackend.Batch bt = b.batch(reqs);
            int[] table = new int[streamPages];
            System.arraycopy(b.table(-1), 0, table, 0, streamPages);
            CUdeviceptr ds = CudaBackend.upload(table);
            long total = (long) streamPages * g.pageBytes();
            CudaBackend.Staging st = CudaBackend.Staging.of(total);
            int blocks = 16;
            try {
                timed(b.mainStream(), () -> b.decodeAsync(bt, b.mainStream(), blocks));
                double alone = timed(b.mainStream(), () -> {
                    for (int s = 0; s < steps; s++) {
                        b.decodeAsync(bt, b.mainStream(), blocks);
                    }
                }) / (double) steps;
                double oneStream = timed(b.sideStream(), () -> b.streamAsync(ds, streamPages, st));
                int reps = (int) Math.ceil(alone * steps * 1.5 / oneStream) + 1;
                CUevent s0 = new CUevent();
                CUevent s1 = new CUevent();
                cuEventCreate(s0, 0);
                cuEventCreate(s1, 0);
                cuEventRecord(s0, b.sideStream());
                for (int i = 0; i < reps; i++) {
                    b.streamAsync(ds, streamPages, st);
                }
                cuEventRecord(s1, b.sideStream());
                double together = timed(b.mainStream(), () -> {
                    for (int s = 0; s < steps; s++) {
                        b.decodeAsync(bt, b.mainStream(), blocks);
                    }
                }) / (double) steps;
                cuEventSynchronize(s1);
                float[] ms = new float[1];
                cuEventElapsedTime(ms, s0, s1);
                cuEventDestroy(s0);
                cuEventDestroy(s1);
                return new Interference(alone, together, reps * (double) total / (ms[0] / 1e3) / 1e9);
            } finally {
                cuCtxSynchronize();
                st.close();
                cuMemFree(ds);
                CudaBackend.free(bt);
            }
        }
    }

    /** Restoring a prefix of {@code tokens} positions from pinned host memory, as a restore does (H2D into staging, scattered into the pool): ms, median of 5. */
    static double restoreMs(KvGeometry g, int tokens) {
        int n = g.pagesFor(tokens);
        try (CudaBackend b = new CudaBackend(g, n)) {
            b.compute(0, 3, 1, tokens);
            CUdeviceptr ds = CudaBackend.upload(b.table(0));
            try (CudaBackend.Staging st = CudaBackend.Staging.of((long) n * g.pageBytes())) {
                return GpuBench.medianAfterWarmUp(5, () -> timed(b.sideStream(), () -> b.restoreAsync(ds, n, st)));
            } finally {
                cuMemFree(ds);
            }
        }
    }

    /** Verification kernels' throughput, rows per second: greedy over {@code greedyRows}, rejection over {@code rows} rows of vocabulary v. */
    static GpuProfile.Verify verify(int k, int v, int greedyRows, int rows) {
        SplittableRandom r = new SplittableRandom(2);
        try (CudaBackend b = new CudaBackend(new KvGeometry(16, 2, 16), 1)) {
            int[] draft = r.ints((long) greedyRows * k, 0, 8).toArray();
            int[] target = r.ints((long) greedyRows * (k + 1), 0, 8).toArray();
            CUdeviceptr d = CudaBackend.upload(draft);
            CUdeviceptr t = CudaBackend.upload(target);
            CUdeviceptr e = CudaBackend.zeros((long) greedyRows * Sizeof.INT);
            double greedyMs = timed(b.mainStream(), () -> {
                for (int i = 0; i < 10; i++) {
                    b.launch("verify_greedy", CudaBackend.blocks(greedyRows, 256), 1, 256, b.mainStream(), d, t, k, greedyRows, e);
                }
            }) / 10;
            for (CUdeviceptr x : new CUdeviceptr[] {d, t, e}) {
                cuMemFree(x);
            }
            GpuBench.VerifyInputs in = GpuBench.VerifyInputs.of(k, v, rows, r);
            CUdeviceptr dp = CudaBackend.upload(in.p());
            CUdeviceptr dq = CudaBackend.upload(in.q());
            CUdeviceptr dd = CudaBackend.upload(in.draft());
            CUdeviceptr dua = CudaBackend.upload(in.uAccept());
            CUdeviceptr dus = CudaBackend.upload(in.uSample());
            CUdeviceptr out = CudaBackend.zeros((long) rows * (k + 1) * Sizeof.INT);
            CUdeviceptr em = CudaBackend.zeros((long) rows * Sizeof.INT);
            double rejMs = timed(b.mainStream(), () -> {
                for (int i = 0; i < 3; i++) {
                    b.launch("verify_rejection", CudaBackend.blocks(rows, 128), 1, 128, b.mainStream(), dp, dq, dd, dua, dus, k, v, rows, out, em);
                }
            }) / 3;
            for (CUdeviceptr x : new CUdeviceptr[] {dp, dq, dd, dua, dus, out, em}) {
                cuMemFree(x);
            }
            return new GpuProfile.Verify(k, v, greedyRows / (greedyMs / 1e3), rows / (rejMs / 1e3));
        }
    }
}
