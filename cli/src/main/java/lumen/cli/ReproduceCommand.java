package lumen.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;
import lumen.runtime.Arrival;
import lumen.sim.Preset;
import lumen.sim.ProfiledCostModel;
import lumen.sim.SimConfig;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;
import lumen.sim.Simulator;
import lumen.spec.io.AtomicFiles;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lumen reproduce}: regenerates docs/reproduction.md, the paper's numbers next to the simulator's. */
@Command(name = "reproduce",
        mixinStandardHelpOptions = true,
        description = {"Runs the simulations behind docs/reproduction.md and regenerates it with its figures: the 4-worker and"
                + " 8-worker prototype tables, Table 1 (Stop-and-Restart at a 25%% failure rate, 4 to 64 workers), the ablations,"
                + " the theta/tau sensitivity and the draft's cold-start acceptance curve."})
final class ReproduceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "FILE", description = "the document (default: docs/reproduction.md of the kit)")
    Path out;

    @Option(names = "--seeds", paramLabel = "N", description = "seeds per table cell: each draws the failure moment, the failed workers, the"
            + " stretch of the trace replayed (or the arrivals) and the drafts (default: ${DEFAULT-VALUE})")
    int seeds = 10;

    @Option(names = "--quick", description = "shorter runs and one seed (a smoke run; the document says so)")
    boolean quick;

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    boolean quiet;

    /** The Azure conv trace: 19,366 requests in 3,501.7 s, mean prompt 1,155 and output 211.1 tokens, inter-arrival CV 1.09. */
    static final double CONV_RPS = 19_366 / 3_501.7;
    static final double CONV_SECONDS = 3_501.7;
    /** The loads of the load section. */
    static final String[] LOADS = {"0.6", "0.7", "0.8", "0.85", "0.9", "0.95"};
    /** The reload times of the reload section, s: from seconds to the paper's 10 to 12 minutes. */
    static final String[] RELOADS_S = {"4", "8", "16", "32", "64", "120", "300", "600", "720"};
    /** Seeds per reload of the reload section, and its runs' length (long enough for a 12-minute reload and a recovery after it), s. */
    static final int RELOAD_SEEDS = 3;
    static final String RELOAD_DURATION_S = "1500";

    @Option(names = "--load", paramLabel = "F", description = "share of the cluster's capacity the workload asks for, instead of the"
            + " calibrated one; with a quarter of the workers down, the survivors are asked for F / 0.75")
    Double load;

    /**
     * The paper's figures a prototype's calibration fits: the failure-free run's mean TTFT (s) and TPOT
     * (ms), Stop-and-Restart's (the same), and Stop-and-Restart's recovery (s); NaN where the paper
     * gives none. The 4-worker prototype: 1.16 s and 138.9 ms, 4.69 s and 224.6 ms, ~20 s. The
     * 8-worker one: no failure-free figures; ~3.9 s and ~210 ms, ~25 s.
     */
    record Target(double baseTtftS, double baseTpotMs, double srTtftS, double srTpotMs, double recoveryS) {}

    static final Target TARGET_4W = new Target(1.16, 138.9, 4.69, 224.6, 20);
    static final Target TARGET_8W = new Target(Double.NaN, Double.NaN, 3.9, 210, 25);
    /** The paper's Stop-and-Restart against no failure, 4-worker prototype: TTFT 4.69 / 1.16 s, TPOT 224.6 / 138.9 ms. */
    static final double TARGET_TTFT = 4.69 / 1.16;
    static final double TARGET_TPOT = 224.6 / 138.9;
    /** The paper's Stop-and-Restart recovery: ~20 s (4 workers), ~25 s (8 workers). */
    static final double TARGET_RECOVERY_4W_S = TARGET_4W.recoveryS();
    static final double TARGET_RECOVERY_8W_S = TARGET_8W.recoveryS();
    /** The calibration grid: loads, and full-model reload times (s). */
    static final double[] CAL_LOADS = {0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95};
    static final double[] CAL_RELOADS_S = {4, 8, 16, 32, 64};
    static final int CAL_SEEDS = 2;
    /** The presets' process restart after a failure, s (ProfiledCostModel.Params#restartDelayMs). */
    static final double RESTART_S = 3;

    /**
     * What the paper leaves open about a worker, and the calibration's first stage chooses: its GPUs
     * (the kit has Splitwise's end-to-end profiles of A100 and H100), its tensor parallelism, and its
     * cap on running requests ({@code maxBatch}; 0: none, the KV pool alone limits the batch, as in
     * SGLang by default).
     */
    record Hw(String gpu, int tp, int maxBatch) {
        List<String> keys() {
            return List.of("hardware=" + gpu, "tensor_parallel=" + tp, "max_batch=" + maxBatch);
        }

        String label() {
            return tp + " x " + gpu.replace("-80gb", "") + ", " + (maxBatch > 0 ? "at most " + maxBatch + " running" : "KV pool only");
        }
    }

    /** The first stage's grid: both GPUs, TP 2 and 4, a cap of 64 running requests or none. */
    static final List<Hw> HW_GRID = List.of(new Hw("a100-80gb", 2, 64), new Hw("a100-80gb", 2, 0), new Hw("a100-80gb", 4, 64),
            new Hw("a100-80gb", 4, 0), new Hw("h100-80gb", 2, 64), new Hw("h100-80gb", 2, 0), new Hw("h100-80gb", 4, 64), new Hw("h100-80gb", 4, 0));

    /**
     * One cell of the calibration: the failure-free run and Stop-and-Restart on one worker hardware, at
     * a load and a full-model reload time, averaged over the seeds run. Times in s, TPOT in ms.
     */
    record Cell(Hw hw, double load, double reloadS, double baseTtftS, double baseTpotMs, double srTtftS, double srTpotMs, double recoveryS,
                double error) {
        double ttftRatio() {
            return srTtftS / baseTtftS;
        }

        double tpotRatio() {
            return srTpotMs / baseTpotMs;
        }
    }

    /**
     * A prototype's operating point: the hardware, load and reload the calibration chose (or the
     * preset's, at the --load given), and the two stages' grids.
     */
    record Point(Hw hw, double load, double reloadS, List<Cell> hwGrid, List<Cell> grid) {
        String reload() {
            return "full_load_s=" + fmt(reloadS);
        }
    }

    /** The preset's own worker: its GPUs and TP, at most 64 running requests. */
    static Hw presetHw(Preset p) {
        return new Hw(p.hardware, p.tensorParallel, 64);
    }

    /**
     * Requests per second that put {@code w} workers of {@code p} on {@code hw} at the load in use of
     * their capacity: one request costs its prefill (mean prompt) plus its share of full-batch decode
     * iterations (mean output), both from the cost model; a full batch is the cap, or what the KV pool
     * holds of requests of the trace's mean size (prompt and output, 1,366 positions).
     */
    static double rate(Preset p, Hw hw, int w, double load) {
        ProfiledCostModel c = p.costModel(hw.gpu(), hw.tp());
        int batch = fullBatch(c, hw);
        double demandMs = c.prefillMs(1_155) + 211.1 * c.decodeMs(batch, 1_260) / batch;
        return load * w * 1000 / demandMs;
    }

    /** A full batch on {@code hw}: its cap, or the requests of mean size the KV pool holds (at least 1). */
    static int fullBatch(ProfiledCostModel c, Hw hw) {
        int pool = (int) Math.max(1, c.kvCapacityPositions() / 1_366);
        return hw.maxBatch() > 0 ? Math.min(hw.maxBatch(), pool) : pool;
    }

    /**
     * The workload at that rate: the Azure conv trace time-compressed when it lasts the run, replayed
     * from the seed's start ({@link Draw#traceFrac} of the stretch the run leaves), else Gamma
     * arrivals (drawn by the seed) with the trace's inter-arrival CV (1.09) and its request lengths.
     */
    static List<String> workload(Preset p, Hw hw, int w, double durationS, double load, Draw d) {
        double r = rate(p, hw, w, load);
        double scale = r / CONV_RPS;
        if (CONV_SECONDS / scale >= durationS) {
            double start = Math.floor(d.traceFrac() * (CONV_SECONDS / scale - durationS));
            return List.of("workload=azure-conv", "rate_scale=" + fmt(scale), "trace_start_s=" + fmt(start));
        }
        return List.of("workload=gamma", "cv=1.09", "lengths=azure_conv", "rate=" + fmt(r), "trace_start_s=0");
    }

    /**
     * What a seed draws beyond the simulator's own use of it: the failure moment (uniform over the
     * steady part of the run) and where in the trace the replay starts (a fraction of the stretch
     * the run leaves).
     */
    record Draw(int seed, double failAtS, double traceFrac) {
        /** The seed's draw over a run whose steady part is [{@code from}, {@code to}] s. */
        static Draw of(int seed, double from, double to) {
            java.util.SplittableRandom r = new java.util.SplittableRandom(0x5EED_0000L + seed);
            double at = from + Math.floor(r.nextDouble() * (to - from) * 10) / 10;
            return new Draw(seed, at, r.nextDouble());
        }

        List<String> keys() {
            return List.of("fail_at_s=" + fmt(failAtS), "seed=" + seed);
        }
    }

    /** The prototypes' draws: the failure over [100, duration - 200] s, after a warm-up and leaving room to recover. */
    static Draw protoDraw(int seed, double durationS) {
        return Draw.of(seed, 100, durationS - 200);
    }

    static List<String> with(List<String> a, List<String> more) {
        List<String> out = new ArrayList<>(a);
        out.addAll(more);
        return out;
    }

    static List<String> with(List<String> a, String... more) {
        List<String> out = new ArrayList<>(a);
        out.addAll(List.of(more));
        return out;
    }

    private ExecutorService pool;
    /** The calibration's runs, which {@link #all} does not hold (their results are read as they come). */
    private int calibrationRuns;
    private final List<Future<?>> all = new ArrayList<>();

    /** One experiment's runs: "no failure" and each policy. */
    private Map<String, Future<SimResult>> submit(List<String> overrides) throws Exception {
        SimConfig.Experiment e = SimConfig.load(null, null, overrides).expand().get(0);
        List<Arrival> a = e.arrivals();
        List<SimResult.Failure> f = e.failures();
        Map<String, Future<SimResult>> m = new LinkedHashMap<>();
        String first = e.policies().get(0);
        m.put("no failure", pool.submit(() -> new Simulator(e.options(first), null).run(a, List.of())));
        for (String p : e.policies()) {
            m.put(p, pool.submit(() -> new Simulator(e.options(p), null).run(a, f)));
            if (!p.equals(first)) {
                m.put(BASE + p, pool.submit(() -> new Simulator(e.options(p), null).run(a, List.of())));
            }
        }
        all.addAll(m.values());
        return m;
    }

    /** The key of a policy's own failure-free run (the first policy's is "no failure"). */
    static final String BASE = "no failure: ";

    /**
     * Each policy's run against its own failure-free run (recovery means back to what that policy does
     * without failures), all over one window (the longest recovery), and "no failure": the failure-free
     * run over that window.
     */
    static Map<String, SimMetrics.Summary> summaries(Map<String, Future<SimResult>> runs) throws Exception {
        SimResult first = runs.get("no failure").get();
        Map<String, SimResult[]> pairs = new LinkedHashMap<>();
        for (Map.Entry<String, Future<SimResult>> r : runs.entrySet()) {
            if (r.getKey().startsWith(BASE) || r.getKey().equals("no failure")) {
                continue;
            }
            Future<SimResult> own = runs.get(BASE + r.getKey());
            pairs.put(r.getKey(), new SimResult[] {r.getValue().get(), own == null ? first : own.get()});
        }
        // one window for all, the longest recovery; the baseline over it: the same arrivals
        Map<String, SimMetrics.Summary> out = new LinkedHashMap<>();
        for (SimMetrics.Summary s : SimMetrics.experiment(pairs, "no failure")) {
            out.put(s.policy(), s);
        }
        return out;
    }

    /** Mean ± the half-width of its 95% confidence interval over seeds of one figure, in the given unit. */
    static String cell(List<Map<String, SimMetrics.Summary>> seedsRuns, String policy, ToDoubleFunction<SimMetrics.Summary> f, double unit,
                               String fmt) {
        double[] v = seedsRuns.stream().mapToDouble(m -> f.applyAsDouble(m.get(policy)) / unit).filter(x -> !Double.isNaN(x)).toArray();
        if (v.length == 0) {
            return "n/a";
        }
        double[] ci = meanAndHalfWidth(v);
        String never = v.length < seedsRuns.size() ? " (" + (seedsRuns.size() - v.length) + " never)" : "";
        return String.format(Locale.ROOT, fmt, ci[0]) + (v.length > 1 ? " ± " + String.format(Locale.ROOT, fmt, ci[1]) : "") + never;
    }

    /** Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom. */
    private static final double[] T95 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

    /** {mean, half-width of the 95% confidence interval of the mean (Student's t; 0 for one value)}. */
    static double[] meanAndHalfWidth(double[] v) {
        double mean = java.util.Arrays.stream(v).average().orElse(Double.NaN);
        if (v.length < 2) {
            return new double[] {mean, 0};
        }
        double sd = Math.sqrt(java.util.Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum() / (v.length - 1));
        double t = v.length - 1 <= T95.length ? T95[v.length - 2] : 1.96;
        return new double[] {mean, t * sd / Math.sqrt(v.length)};
    }

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        PrintWriter pw = spec.commandLine().getOut();
        if (load != null && !(load > 0 && load < 2)) {
            throw new UserError("--load must be between 0 and 2, not " + load);
        }
        Path doc = out != null ? out : KitPaths.home().resolve("docs").resolve("reproduction.md");
        Path figs = doc.toAbsolutePath().getParent().resolve("reproduction");
        int nSeeds = quick ? 2 : Math.max(1, seeds);
        String dur = quick ? "400" : "600";
        double durS = Double.parseDouble(dur);
        pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        long t0 = System.nanoTime();
        // 0: the operating points, by the stated procedure (or --load)
        Point p4 = point(Preset.QWEN3_32B_4W, "0.25", TARGET_4W, dur);
        Point p8 = point(Preset.QWEN3_14B_8W, "0.125", TARGET_8W, dur);
        List<String> main = List.of("stop-and-restart", "fixed-checkpointing", "lumen");
        List<Draw> draws = new ArrayList<>();
        for (int s = 1; s <= nSeeds; s++) {
            draws.add(protoDraw(s, durS));
        }
        // 1 and 2: the prototypes, one worker failing at each seed's moment
        Map<String, List<Map<String, Future<SimResult>>>> proto = new LinkedHashMap<>();
        for (Object[] pr : new Object[][] {{Preset.QWEN3_32B_4W, "0.25", p4}, {Preset.QWEN3_14B_8W, "0.125", p8}}) {
            Preset p = (Preset) pr[0];
            Point pt = (Point) pr[2];
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (Draw d : draws) {
                runs.add(submit(with(operating(p, pt, durS, d), "preset=" + p.key, "duration_s=" + dur, "fail_fraction=" + pr[1],
                        "policies=" + String.join(",", main))));
            }
            proto.put(p.key, runs);
        }
        // 3: Table 1, Stop-and-Restart at 25% from 4 to 64 workers, the same load per worker, failing at a moment drawn in [40, 80] s
        int[] sizes = quick ? new int[] {4, 16, 64} : new int[] {4, 8, 16, 32, 64};
        Hw t1 = table1Hw(p4);
        Map<Integer, List<Map<String, Future<SimResult>>>> table1 = new LinkedHashMap<>();
        Map<Integer, List<Map<String, Future<SimResult>>>> table1Back = new LinkedHashMap<>();
        for (int w : sizes) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            List<Map<String, Future<SimResult>>> back = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                Draw d = Draw.of(s, 40, 80);
                List<String> o = with(with(with(workload(Preset.LLAMA3_70B, t1, w, 180, p4.load(), d), p4.reload()), t1.keys()), d.keys());
                runs.add(submit(with(o, "preset=llama3-70b", "workers=" + w, "duration_s=180", "fail_fraction=0.25", "policies=stop-and-restart")));
                // the same, with the interrupted requests routed only once the failed workers are back (restart, reload, then 1 s)
                back.add(submit(with(o, "preset=llama3-70b", "workers=" + w, "duration_s=180", "fail_fraction=0.25", "policies=stop-and-restart",
                        "detect_s=" + fmt(RESTART_S + p4.reloadS() + 1))));
            }
            table1.put(w, runs);
            table1Back.put(w, back);
        }
        // 4: ablations on the 4-worker prototype
        List<String> ablation = List.of("stop-and-restart", "fixed-checkpointing", "lumen-placement-only", "lumen-routing-only", "lumen-assist-only",
                "lumen-no-placement", "lumen-no-routing", "lumen-no-assist", "lumen", "lumen-dual");
        Preset q4 = Preset.QWEN3_32B_4W;
        List<Map<String, Future<SimResult>>> abl = new ArrayList<>();
        for (Draw d : draws) {
            abl.add(submit(with(operating(q4, p4, durS, d), "preset=" + q4.key, "duration_s=" + dur, "policies=" + String.join(",", ablation))));
        }
        // 5: theta x tau, LUMEN on the 4-worker prototype, seed 1's draw
        String[] thetas = {"0.5x", "1x", "2x", "4x"};
        String[] taus = {"1", "16", "128", "1024"};
        Map<String, Map<String, Future<SimResult>>> sens = new LinkedHashMap<>();
        for (String th : thetas) {
            for (String ta : taus) {
                sens.put(th + "/" + ta, submit(with(operating(q4, p4, durS, draws.get(0)), "preset=" + q4.key,
                        "duration_s=" + dur, "policies=lumen", "theta=" + th, "tau=" + ta)));
            }
        }
        // 6: load: the same comparison on the 4-worker prototype from a light to a heavy load, seed 1's draw
        Map<String, Map<String, Future<SimResult>>> loads = new LinkedHashMap<>();
        for (String l : LOADS) {
            loads.put(l, submit(with(with(with(with(workload(q4, p4.hw(), 4, durS, Double.parseDouble(l), draws.get(0)), p4.reload()), p4.hw().keys()),
                    draws.get(0).keys()), "preset=" + q4.key, "duration_s=" + dur, "policies=" + String.join(",", main))));
        }
        // 6b: reload: the same comparison at the calibrated load, from a few seconds to the paper's 12 minutes, in longer runs
        Map<String, List<Map<String, Future<SimResult>>>> reloads = new LinkedHashMap<>();
        double rd = Double.parseDouble(RELOAD_DURATION_S);
        for (String r : quick ? new String[] {"8", "120", "600"} : RELOADS_S) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= (quick ? 1 : RELOAD_SEEDS); s++) {
                Draw d = Draw.of(s, 100, 400);
                runs.add(submit(with(with(with(workload(q4, p4.hw(), 4, rd, p4.load(), d), p4.hw().keys()), d.keys()), "full_load_s=" + r,
                        "preset=" + q4.key, "duration_s=" + RELOAD_DURATION_S, "policies=" + String.join(",", main))));
            }
            reloads.put(r, runs);
        }
        // 7: the scenarios the paper leaves open, on the 8-worker prototype: a worker and its busiest holder, and one worker failing again mid-reload
        List<String> withDual = List.of("stop-and-restart", "fixed-checkpointing", "lumen", "lumen-dual");
        Preset q8 = Preset.QWEN3_14B_8W;
        Map<String, List<Map<String, Future<SimResult>>>> open = new LinkedHashMap<>();
        for (String[] sc : new String[][] {{"holder", "fail_holder=true"}, {"repeated", "fail_events=2", "fail_every_s=5", "fail_workers=same"}}) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (Draw d : draws) {
                List<String> o = with(operating(q8, p8, durS, d), "preset=" + q8.key, "duration_s=" + dur,
                        "fail_fraction=0.125", "policies=" + String.join(",", withDual));
                o.addAll(List.of(sc).subList(1, sc.length));
                runs.add(submit(o));
            }
            open.put(sc[0], runs);
        }
        pool.shutdown();
        try (ProgressBar bar = quiet || System.console() == null ? null
                : new ProgressBarBuilder().setTaskName("reproduce").setInitialMax(all.size()).setUnit(" runs", 1)
                        .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            for (Future<?> f : all) {
                f.get();
                if (bar != null) {
                    bar.step();
                }
            }
        }
        double minutes = (System.nanoTime() - t0) / 60e9;
        String md = ReproductionDoc.render(this, new ReproductionDoc.Runs(p4, p8, draws, proto, table1, table1Back, abl, ablation, sens, thetas, taus, loads,
                        reloads, open, withDual), figs, doc, nSeeds, dur, sizes, minutes, all.size() + calibrationRuns);
        AtomicFiles.writeString(doc, md);
        pw.printf(Locale.ROOT, "%d simulated runs in %.1f min; written %s and its figures in %s%n", all.size() + calibrationRuns, minutes, doc, figs);
        pw.flush();
        return ExitCodes.OK;
    }

    static String fmt(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }

    boolean quick() {
        return quick;
    }

    /** The workload, hardware, reload and draw of an operating point. */
    static List<String> operating(Preset p, Point pt, double durationS, Draw d) {
        return with(with(with(workload(p, pt.hw(), p.defaultWorkers, durationS, pt.load(), d), pt.reload()), pt.hw().keys()), d.keys());
    }

    /** Table 1's worker (Llama-3-70B-like): the 4-worker prototype's GPU and batch limit, at the preset's TP 8. */
    static Hw table1Hw(Point p4) {
        return new Hw(p4.hw().gpu(), Preset.LLAMA3_70B.tensorParallel, p4.hw().maxBatch());
    }

    /**
     * The operating point of a prototype. With --load, that load on the preset's worker and its stated
     * reload. Otherwise the stated procedure, in two stages, from Stop-and-Restart and failure-free
     * runs only. First the worker: for each hardware of {@link #HW_GRID} and each load, seed 1's draw
     * at the preset's stated reload; the hardware is the one of the cell nearest the paper's absolute
     * figures (TTFT and TPOT, failure-free and under S&R, where the paper gives them). Then, on that
     * hardware, every load and reload of the grid over {@link #CAL_SEEDS} seeds' draws, and the cell
     * nearest the same figures and the paper's S&R recovery.
     */
    private Point point(Preset p, String fraction, Target target, String dur) throws Exception {
        if (load != null) {
            return new Point(presetHw(p), load, p.fullLoadMs / 1000, List.of(), List.of());
        }
        double[] loads = quick ? new double[] {0.7, 0.85} : CAL_LOADS;
        double[] reloads = quick ? new double[] {8, 32} : CAL_RELOADS_S;
        int seeds = quick ? 1 : CAL_SEEDS;
        double durS = Double.parseDouble(dur);
        List<Hw> hws = quick ? List.of(HW_GRID.get(1), HW_GRID.get(6)) : HW_GRID;
        List<Cell> hwGrid = new ArrayList<>();
        Map<String, Future<SimResult>[]> first = new LinkedHashMap<>();
        for (Hw hw : hws) {
            for (double l : loads) {
                first.put(hw + "/" + l, calRuns(p, hw, l, p.fullLoadMs / 1000, fraction, dur, protoDraw(1, durS)));
            }
        }
        for (Hw hw : hws) {
            for (double l : loads) {
                hwGrid.add(cell(hw, l, p.fullLoadMs / 1000, java.util.Collections.singletonList(first.get(hw + "/" + l)), target, false));
            }
        }
        Cell chosen = best(hwGrid);
        if (chosen == null) {
            throw new UserError("no cell of the calibration's first stage for " + p.key + " has figures to compare; give --load");
        }
        Hw hw = chosen.hw();
        Map<String, Future<SimResult>[]> second = new LinkedHashMap<>();
        for (double l : loads) {
            for (double r : reloads) {
                for (int s = 1; s <= seeds; s++) {
                    second.put(l + "/" + r + "/" + s, calRuns(p, hw, l, r, fraction, dur, protoDraw(s, durS)));
                }
            }
        }
        List<Cell> grid = new ArrayList<>();
        for (double l : loads) {
            for (double r : reloads) {
                List<Future<SimResult>[]> rs = new ArrayList<>();
                for (int s = 1; s <= seeds; s++) {
                    rs.add(second.get(l + "/" + r + "/" + s));
                }
                grid.add(cell(hw, l, r, rs, target, true));
            }
        }
        Cell best = best(grid);
        if (best == null) {
            throw new UserError("no cell of the calibration grid for " + p.key + " recovers under Stop-and-Restart; give --load");
        }
        return new Point(hw, best.load(), best.reloadS(), hwGrid, grid);
    }

    /** A failure-free run and a Stop-and-Restart run of the prototype on {@code hw} at one load, reload and draw. */
    @SuppressWarnings("unchecked")
    private Future<SimResult>[] calRuns(Preset p, Hw hw, double l, double reloadS, String fraction, String dur, Draw d) throws Exception {
        calibrationRuns += 2;
        SimConfig.Experiment e = SimConfig.load(null, null, with(with(with(workload(p, hw, p.defaultWorkers, Double.parseDouble(dur), l, d), hw.keys()),
                d.keys()), "preset=" + p.key, "duration_s=" + dur, "fail_fraction=" + fraction, "policies=stop-and-restart",
                "full_load_s=" + fmt(reloadS))).expand().get(0);
        return new Future[] {pool.submit(() -> new Simulator(e.options("stop-and-restart"), null).run(e.arrivals(), List.of())),
            pool.submit(() -> new Simulator(e.options("stop-and-restart"), null).run(e.arrivals(), e.failures()))};
    }

    /** The calibration cell of these runs ({failure-free, S&R} per seed), averaged over the seeds. */
    private static Cell cell(Hw hw, double l, double reloadS, List<Future<SimResult>[]> runs, Target target, boolean withRecovery) throws Exception {
        double[] v = new double[5];
        for (Future<SimResult>[] r : runs) {
            Map<String, SimResult[]> pairs = new LinkedHashMap<>();
            pairs.put("stop-and-restart", new SimResult[] {r[1].get(), r[0].get()});
            Map<String, SimMetrics.Summary> m = new LinkedHashMap<>();
            for (SimMetrics.Summary x : SimMetrics.experiment(pairs, "no failure")) {
                m.put(x.policy(), x);
            }
            v[0] += m.get("no failure").ttftAll().mean() / 1000;
            v[1] += m.get("no failure").tpotAll().mean();
            v[2] += m.get("stop-and-restart").ttftAll().mean() / 1000;
            v[3] += m.get("stop-and-restart").tpotAll().mean();
            v[4] += m.get("stop-and-restart").recoveryMs() / 1000;
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= runs.size();
        }
        return new Cell(hw, l, reloadS, v[0], v[1], v[2], v[3], v[4], error(v[0], v[1], v[2], v[3], v[4], withRecovery, target));
    }

    /**
     * How far a cell lies from the paper's figures: the sum of the squared logarithms of ours over the
     * paper's (twice and half as far count alike), over the figures the paper gives; recovery counts
     * when {@code withRecovery}, and a cell that never recovers (NaN) is then infinitely far; a cell
     * with no figure to compare is too.
     */
    static double error(double baseTtftS, double baseTpotMs, double srTtftS, double srTpotMs, double recoveryS, boolean withRecovery,
                        Target target) {
        double e = 0;
        int n = 0;
        double[] ours = {baseTtftS, baseTpotMs, srTtftS, srTpotMs};
        double[] paper = {target.baseTtftS(), target.baseTpotMs(), target.srTtftS(), target.srTpotMs()};
        for (int i = 0; i < ours.length; i++) {
            if (!Double.isNaN(paper[i])) {
                if (Double.isNaN(ours[i])) {
                    return Double.POSITIVE_INFINITY;
                }
                e += sq(Math.log(ours[i] / paper[i]));
                n++;
            }
        }
        if (withRecovery) {
            if (Double.isNaN(recoveryS)) {
                return Double.POSITIVE_INFINITY;
            }
            e += sq(Math.log(recoveryS / target.recoveryS()));
            n++;
        }
        return n == 0 ? Double.POSITIVE_INFINITY : e;
    }

    /** The cell of least error, the first of equals; null when none recovers. */
    static Cell best(List<Cell> grid) {
        Cell best = null;
        for (Cell c : grid) {
            if (!Double.isInfinite(c.error()) && (best == null || c.error() < best.error())) {
                best = c;
            }
        }
        return best;
    }

    static double sq(double x) {
        return x * x;
    }

    Double loadOverride() {
        return load;
    }

    static List<Map<String, SimMetrics.Summary>> summarizeAll(List<Map<String, Future<SimResult>>> runs) throws Exception {
        List<Map<String, SimMetrics.Summary>> out = new ArrayList<>();
        for (Map<String, Future<SimResult>> r : runs) {
            out.add(summaries(r));
        }
        return out;
    }
}
