package lumen.gpu;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import lumen.runtime.KvGeometry;
import lumen.sim.GpuProfile;
import lumen.sim.Preset;
import lumen.sim.ProfiledCostModel;

/**
 * {@code lumen bench gpu}: checkpoint-streaming bandwidth against the pinned copy ceiling, the
 * decode step's slowdown while pages stream, restore time against re-prefill time, and
 * verification throughput. On a GPU (the JCuda backend) every figure is timed with CUDA events.
 * Without one, the same measurements run on the CPU backend, are labelled as such, and are not
 * GPU figures; the simulator refuses a CPU profile.
 */
public final class GpuBench {
    private GpuBench() {}

    /** Model geometries per GPU: name, layers, bytes per token per layer (K and V, BF16, the GPU's share of KV heads). */
    record Geometry(String name, int layers, int bytesPerTokenLayer) {
        KvGeometry pages(int tokens) {
            return new KvGeometry(tokens, layers, bytesPerTokenLayer);
        }
    }

    static final List<Geometry> GEOMETRIES = List.of(
            new Geometry("llama3-70b-tp8", 80, 2 * 1 * 128 * 2),
            new Geometry("qwen3-32b-tp4", 64, 2 * 2 * 128 * 2),
            new Geometry("qwen3-14b-tp2", 40, 2 * 4 * 128 * 2));
    static final int[] PAGE_TOKENS = {16, 32, 64, 128, 256};

    static double median(double[] x) {
        double[] s = x.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }

    /** The median of {@code reps} measurements taken after one warm-up measurement, which is dropped. */
    static double medianAfterWarmUp(int reps, java.util.function.DoubleSupplier measure) {
        measure.getAsDouble();
        double[] x = new double[reps];
        for (int i = 0; i < reps; i++) {
            x[i] = measure.getAsDouble();
        }
        return median(x);
    }

    static double gbps(long bytes, double ms) {
        return bytes / (ms / 1e3) / 1e9;
    }

    /** Runs on the GPU where the JCuda backend is available, else on the CPU backend (labelled so). */
    public static GpuProfile run(PrintWriter out, boolean quick) {
        java.util.Optional<String> why = CudaBackend.probe();
        if (why.isPresent()) {
            out.println("JCuda backend unavailable: " + why.get());
            out.println("Measuring the CPU backend instead. THESE ARE NOT GPU FIGURES: they show what the CPU backend does, and the"
                    + " simulator's cost model refuses them.");
            out.flush();
            return cpu(out, quick);
        }
        return gpu(out, quick);
    }

    static GpuProfile gpu(PrintWriter out, boolean quick) {
        return kernels(out, quick ? KernelBench.Sizes.QUICK : KernelBench.Sizes.FULL, CudaBackend::new);
    }

    /** The measurements on the kernel backends {@code open} gives (on a GPU, {@link CudaBackend}). */
    static GpuProfile kernels(PrintWriter out, KernelBench.Sizes sizes, KernelBench.Open open) {
        long big = sizes.copyBytes();
        String backend;
        String device;
        double ceiling;
        try (KernelBackend b = open.apply(new KvGeometry(16, 2, 16), 1)) {
            backend = b.name();
            device = b.dev.model();
            ceiling = KernelBench.d2hCeiling(b, big);
        }
        out.printf(Locale.ROOT, "device: %s (%s backend)%ndevice-to-host copy ceiling: %.1f GB/s (%s copies, median of 5)%n%n",
                device, backend, ceiling, mib(big));
        List<GpuProfile.Stream> streams = new ArrayList<>();
        out.println("checkpoint streaming (gather of pages scattered over the pool, then device-to-host to pinned memory, on a side stream):");
        out.printf(Locale.ROOT, "  %-16s %6s %10s %10s%n", "geometry", "page", "GB/s", "of ceiling");
        for (Geometry geo : GEOMETRIES) {
            for (int t : PAGE_TOKENS) {
                double gbps = KernelBench.streaming(open, geo.pages(t), big / 2);
                streams.add(new GpuProfile.Stream(geo.name(), t, gbps, gbps / ceiling));
                out.printf(Locale.ROOT, "  %-16s %6d %10.1f %9.0f%%%n", geo.name(), t, gbps, 100 * gbps / ceiling);
                out.flush();
            }
        }
        Geometry llama = GEOMETRIES.get(0);
        KernelBench.Interference in = KernelBench.interference(open, llama.pages(16), sizes);
        double slowdown = in.streamingMs() / in.aloneMs() - 1;
        out.printf(Locale.ROOT, "%ndecode-like step (%d requests x %d positions of %s, every KV byte read through the page table;"
                + " alone and while streaming alternately, medians of %d rounds):%n"
                + "  alone %.3f ms, while pages stream %.3f ms: slowdown %+.2f%% (streaming meanwhile at %.1f GB/s)%n",
                sizes.batch(), sizes.ctx(), llama.name(), sizes.rounds(), in.aloneMs(), in.streamingMs(), 100 * slowdown, in.streamedGBps());
        List<GpuProfile.Restore> restores = new ArrayList<>();
        ProfiledCostModel cost = Preset.LLAMA3_70B.costModel();
        out.printf(Locale.ROOT, "%nrestore (pinned host to device, scattered into the pool) against re-prefill (the llama3-70b cost model's prefill):%n");
        out.printf(Locale.ROOT, "  %8s %12s %14s%n", "prefix", "restore ms", "re-prefill ms");
        double restoreGBps = 0;
        Integer breakEven = null;
        for (int n : sizes.prefixes()) {
            double ms = KernelBench.restoreMs(open, llama.pages(16), n);
            double pre = cost.prefillMs(n);
            restores.add(new GpuProfile.Restore(n, ms, pre));
            restoreGBps = (double) llama.pages(16).pagesFor(n) * llama.pages(16).pageBytes() / (ms / 1e3) / 1e9;
            if (breakEven == null && ms < pre) {
                breakEven = n;
            }
            out.printf(Locale.ROOT, "  %8d %12.3f %14.1f%n", n, ms, pre);
        }
        GpuProfile.Verify v = KernelBench.verify(open, sizes);
        out.printf(Locale.ROOT, "%nverification (k = %d): greedy %.3g rows/s; rejection sampling over %d tokens %.3g rows/s%n",
                v.k(), v.greedyRowsPerS(), v.vocab(), v.rejectionRowsPerS());
        report(out, "jcuda".equals(backend), streams, slowdown, breakEven);
        return new GpuProfile(backend, device, Instant.now().toString(), ceiling, streams, in.aloneMs(), in.streamingMs(), slowdown,
                restoreGBps, restores, breakEven, v);
    }

    private static String mib(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    private static void report(PrintWriter out, boolean gpu, List<GpuProfile.Stream> streams, double slowdown, Integer breakEven) {
        double worst = streams.stream().mapToDouble(GpuProfile.Stream::shareOfCeiling).min().orElse(Double.NaN);
        if (gpu) {
            out.printf(Locale.ROOT, "%ntargets: streaming at least 80%% of the copy ceiling: %s (lowest %.0f%%); decode slowdown under 3%%: %s (%+.2f%%)%n",
                    worst >= 0.8 ? "met" : "NOT met", 100 * worst, slowdown < 0.03 ? "met" : "NOT met", 100 * slowdown);
        } else {
            out.printf(Locale.ROOT, "%nthe targets (streaming at 80%% of the copy ceiling, decode slowdown under 3%%) are for the GPU;"
                    + " these CPU figures neither meet nor miss them%n");
        }
        out.println(breakEven == null ? "restore was slower than re-prefill at every prefix tested"
                : "restore is faster than re-prefill from a prefix of " + breakEven + " tokens (the smallest tested where it is)");
        out.flush();
    }

    /** For a machine with only a JVM: {@code java -cp ... lumen.gpu.GpuBench FILE [--quick]} writes the figures to FILE. */
    public static void main(String[] args) throws java.io.IOException {
        if (args.length < 1) {
            System.err.println("usage: GpuBench PROFILE.json [--quick]");
            System.exit(2);
        }
        PrintWriter out = new PrintWriter(System.out, true);
        GpuProfile p = run(out, args.length > 1 && args[1].equals("--quick"));
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), p.toJson());
        out.println("figures written to " + args[0]);
    }

    /** The same measurements on the CPU backend, with System.arraycopy of one large array as its "copy ceiling". */
    static GpuProfile cpu(PrintWriter out, boolean quick) {
        long big = quick ? 64L << 20 : 256L << 20;
        byte[] src = new byte[(int) big];
        byte[] dst = new byte[(int) big];
        new SplittableRandom(1).nextBytes(src);
        double ceiling = medianAfterWarmUp(5, () -> {
            long t0 = System.nanoTime();
            System.arraycopy(src, 0, dst, 0, src.length);
            return gbps(big, (System.nanoTime() - t0) / 1e6);
        });
        out.printf(Locale.ROOT, "%nCPU copy ceiling (System.arraycopy, %d MiB): %.1f GB/s%n", big >> 20, ceiling);
        List<GpuProfile.Stream> streams = new ArrayList<>();
        out.printf(Locale.ROOT, "CPU backend streaming (pages gathered to fresh arrays):%n  %-16s %6s %10s %10s%n", "geometry", "page", "GB/s", "of ceiling");
        for (Geometry geo : GEOMETRIES) {
            for (int t : PAGE_TOKENS) {
                KvGeometry g = geo.pages(t);
                int n = (int) Math.max(1, (big / 2) / g.pageBytes());
                try (CpuBackend b = new CpuBackend(g, n)) {
                    b.compute(0, 1, 1, n * t);
                    long bytes = (long) n * g.pageBytes();
                    double gbps = medianAfterWarmUp(3, () -> {
                        long t0 = System.nanoTime();
                        b.stream(0, 0, n - 1);
                        return gbps(bytes, (System.nanoTime() - t0) / 1e6);
                    });
                    streams.add(new GpuProfile.Stream(geo.name(), t, gbps, gbps / ceiling));
                    out.printf(Locale.ROOT, "  %-16s %6d %10.1f %9.0f%%%n", geo.name(), t, gbps, 100 * gbps / ceiling);
                    out.flush();
                }
            }
        }
        KvGeometry g = GEOMETRIES.get(0).pages(16);
        int batch = 8;
        int ctx = quick ? 256 : 1024;
        double alone;
        double together;
        try (CpuBackend b = new CpuBackend(g, batch * g.pagesFor(ctx) + 256)) {
            int[] reqs = new int[batch];
            for (int j = 0; j < batch; j++) {
                reqs[j] = j;
                b.compute(j, j, 1, ctx);
            }
            b.compute(-1, 9, 1, 256 * 16);
            alone = timeDecode(b, reqs, 3);
            Thread streamer = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    b.stream(-1, 0, 255);
                }
            });
            streamer.setDaemon(true);
            streamer.start();
            together = timeDecode(b, reqs, 3);
            streamer.interrupt();
        }
        double slowdown = together / alone - 1;
        out.printf(Locale.ROOT, "CPU backend decode reads (%d x %d positions): alone %.1f ms, while another thread streams %.1f ms: %+.1f%%%n",
                batch, ctx, alone, together, 100 * slowdown);
        List<GpuProfile.Restore> restores = new ArrayList<>();
        ProfiledCostModel cost = Preset.LLAMA3_70B.costModel();
        double restoreGBps = 0;
        Integer breakEven = null;
        out.printf(Locale.ROOT, "CPU backend restore (copy into the pool, checksum check) against re-prefill (cost model):%n  %8s %12s %14s%n",
                "prefix", "restore ms", "re-prefill ms");
        for (int n : quick ? new int[] {16, 256, 4096} : KernelBench.Sizes.PREFIXES) {
            try (CpuBackend b = new CpuBackend(g, g.pagesFor(n))) {
                b.compute(0, 3, 1, n);
                List<byte[]> pages = b.stream(0, 0, g.pagesFor(n) - 1);
                long t0 = System.nanoTime();
                b.restore(0, pages, n);
                double ms = (System.nanoTime() - t0) / 1e6;
                restores.add(new GpuProfile.Restore(n, ms, cost.prefillMs(n)));
                restoreGBps = (double) pages.size() * g.pageBytes() / (ms / 1e3) / 1e9;
                breakEven = breakEven == null && ms < cost.prefillMs(n) ? Integer.valueOf(n) : breakEven;
                out.printf(Locale.ROOT, "  %8d %12.3f %14.1f%n", n, ms, cost.prefillMs(n));
            }
        }
        GpuProfile.Verify v = cpuVerify(4, 32_000, quick ? 1 << 16 : 1 << 20, quick ? 16 : 64);
        out.printf(Locale.ROOT, "CPU backend verification (k = %d): greedy %.3g rows/s; rejection sampling over %d tokens %.3g rows/s%n",
                v.k(), v.greedyRowsPerS(), v.vocab(), v.rejectionRowsPerS());
        report(out, false, streams, slowdown, breakEven);
        return new GpuProfile("cpu", System.getProperty("os.arch") + " CPU, " + Runtime.getRuntime().availableProcessors() + " cores",
                Instant.now().toString(), ceiling, streams, alone, together, slowdown, restoreGBps, restores, breakEven, v);
    }

    private static double timeDecode(CpuBackend b, int[] reqs, int reps) {
        b.decode(reqs);
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            b.decode(reqs);
        }
        return (System.nanoTime() - t0) / 1e6 / reps;
    }

    /**
     * The rejection-sampling benchmark's inputs: a uniform target over v tokens, a draft that puts all
     * its mass on the first half (so about half of the draft tokens are kept), drafts drawn from it, and uniforms.
     */
    record VerifyInputs(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample) {
        static VerifyInputs of(int k, int v, int rows, SplittableRandom r) {
            float[] p = new float[rows * (k + 1) * v];
            float[] q = new float[rows * k * v];
            java.util.Arrays.fill(p, 1f / v);
            for (int i = 0; i < q.length; i++) {
                q[i] = (i % v) < v / 2 ? 2f / v : 0f;
            }
            int[] d = r.ints((long) rows * k, 0, v / 2).toArray();
            float[] ua = new float[rows * k];
            float[] us = new float[rows * (k + 1)];
            for (int i = 0; i < ua.length; i++) {
                ua[i] = (float) r.nextDouble();
            }
            for (int i = 0; i < us.length; i++) {
                us[i] = (float) r.nextDouble();
            }
            return new VerifyInputs(p, q, d, ua, us);
        }
    }

    static GpuProfile.Verify cpuVerify(int k, int v, int greedyRows, int rows) {
        SplittableRandom r = new SplittableRandom(2);
        int[] draft = r.ints((long) greedyRows * k, 0, 8).toArray();
        int[] target = r.ints((long) greedyRows * (k + 1), 0, 8).toArray();
        Kernels.greedy(draft, target, k);
        long t0 = System.nanoTime();
        Kernels.greedy(draft, target, k);
        double greedy = greedyRows / ((System.nanoTime() - t0) / 1e9);
        VerifyInputs in = VerifyInputs.of(k, v, rows, r);
        long t1 = System.nanoTime();
        Kernels.rejection(in.p(), in.q(), in.draft(), in.uAccept(), in.uSample(), k, v);
        double rej = rows / ((System.nanoTime() - t1) / 1e9);
        return new GpuProfile.Verify(k, v, greedy, rej);
    }
}
