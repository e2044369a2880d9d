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

    @Option(names = "--seeds", paramLabel = "N", description = "seeds (failed workers, drafts) per table cell (default: ${DEFAULT-VALUE})")
    int seeds = 5;

    @Option(names = "--quick", description = "shorter runs and one seed (a smoke run; the document says so)")
    boolean quick;

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    boolean quiet;

    /** The Azure conv trace: 19,366 requests in 3,501.7 s, mean prompt 1,155 and output 211.1 tokens, inter-arrival CV 1.09. */
    static final double CONV_RPS = 19_366 / 3_501.7;
    static final double CONV_SECONDS = 3_501.7;
    /** The loads of the load section. */
    static final String[] LOADS = {"0.6", "0.7", "0.8", "0.85", "0.9", "0.95"};
    /** The reload times of the reload section, s. */
    static final String[] RELOADS_S = {"8", "16", "32", "64", "128"};

    @Option(names = "--load", paramLabel = "F", description = "share of the cluster's capacity the workload asks for, instead of the"
            + " calibrated one; with a quarter of the workers down, the survivors are asked for F / 0.75")
    Double load;

    /** The paper's Stop-and-Restart against no failure, 4-worker prototype: TTFT 4.69 / 1.16 s, TPOT 224.6 / 138.9 ms. */
    static final double TARGET_TTFT = 4.69 / 1.16;
    static final double TARGET_TPOT = 224.6 / 138.9;
    /** The paper's Stop-and-Restart recovery: ~20 s (4 workers), ~25 s (8 workers). */
    static final double TARGET_RECOVERY_4W_S = 20;
    static final double TARGET_RECOVERY_8W_S = 25;
    /** The calibration grid: loads, and full-model reload times (s). */
    static final double[] CAL_LOADS = {0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95};
    static final double[] CAL_RELOADS_S = {4, 8, 16, 32, 64};
    static final int CAL_SEEDS = 2;
    /** The presets' process restart after a failure, s (ProfiledCostModel.Params#restartDelayMs). */
    static final double RESTART_S = 3;

    /**
     * One cell of the calibration: Stop-and-Restart at a load and a full-model reload time, against the
     * same seeds' failure-free runs, averaged over {@link #CAL_SEEDS} seeds. Its error is the sum of the
     * squared logarithms of the three ratios to the paper's (a never-recovering cell is infinitely far).
     */
    record Cell(double load, double reloadS, double ttftRatio, double tpotRatio, double recoveryS, double error) {}

    /** A prototype's operating point: the calibration's best cell, or the --load given with the preset's reload. */
    record Point(double load, double reloadS, List<Cell> grid) {
        String reload() {
            return "full_load_s=" + fmt(reloadS);
        }
    }

    /**
     * Requests per second that put {@code w} workers of {@code p} at the load in use of their capacity:
     * one request costs its prefill (mean prompt) plus its share of full-batch decode iterations
     * (mean output), both from the cost model.
     */
    static double rate(Preset p, int w, int maxBatch, double load) {
        ProfiledCostModel c = p.costModel();
        double demandMs = c.prefillMs(1_155) + 211.1 * c.decodeMs(maxBatch, 1_260) / maxBatch;
        return load * w * 1000 / demandMs;
    }

    /**
     * The workload at that rate: the Azure conv trace time-compressed when it lasts the run, else
     * Gamma arrivals with the trace's inter-arrival CV (1.09) and its request lengths.
     */
    static List<String> workload(Preset p, int w, double durationS, double load) {
        double r = rate(p, w, 64, load);
        double scale = r / CONV_RPS;
        if (CONV_SECONDS / scale >= durationS) {
            return List.of("workload=azure-conv", "rate_scale=" + fmt(scale));
        }
        return List.of("workload=gamma", "cv=1.09", "lengths=azure_conv", "rate=" + fmt(r));
    }

    static List<String> with(List<String> a, String... more) {
        List<String> out = new ArrayList<>(a);
        out.addAll(List.of(more));
        return out;
    }

    private ExecutorService pool;
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
        int nSeeds = quick ? 1 : Math.max(1, seeds);
        String dur = quick ? "300" : "600";
        String failAt = quick ? "100" : "200";
        pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        long t0 = System.nanoTime();
        // 0: the operating points, by the stated procedure (or --load)
        Point p4 = point(Preset.QWEN3_32B_4W, "0.25", TARGET_RECOVERY_4W_S, dur, failAt);
        Point p8 = point(Preset.QWEN3_14B_8W, "0.125", TARGET_RECOVERY_8W_S, dur, failAt);
        List<String> main = List.of("stop-and-restart", "fixed-checkpointing", "lumen");
        // 1 and 2: the prototypes, one worker failing
        Map<String, List<Map<String, Future<SimResult>>>> proto = new LinkedHashMap<>();
        for (Object[] pr : new Object[][] {{Preset.QWEN3_32B_4W, "0.25", p4}, {Preset.QWEN3_14B_8W, "0.125", p8}}) {
            Preset p = (Preset) pr[0];
            Point pt = (Point) pr[2];
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                runs.add(submit(with(operating(p, pt, dur), "preset=" + p.key,
                        "duration_s=" + dur, "fail_at_s=" + failAt, "fail_fraction=" + pr[1], "policies=" + String.join(",", main), "seed=" + s)));
            }
            proto.put(p.key, runs);
        }
        // 3: Table 1, Stop-and-Restart at 25% from 4 to 64 workers, the same load per worker
        int[] sizes = quick ? new int[] {4, 16, 64} : new int[] {4, 8, 16, 32, 64};
        Map<Integer, List<Map<String, Future<SimResult>>>> table1 = new LinkedHashMap<>();
        Map<Integer, List<Map<String, Future<SimResult>>>> table1Back = new LinkedHashMap<>();
        for (int w : sizes) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                runs.add(submit(with(with(workload(Preset.LLAMA3_70B, w, 180, p4.load()), p4.reload()), "preset=llama3-70b", "workers=" + w,
                        "duration_s=180", "fail_at_s=60", "fail_fraction=0.25", "policies=stop-and-restart", "seed=" + s)));
            }
            table1.put(w, runs);
            // the same, with the interrupted requests routed only once the failed workers are back (restart, reload, then 1 s)
            List<Map<String, Future<SimResult>>> back = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                back.add(submit(with(with(workload(Preset.LLAMA3_70B, w, 180, p4.load()), p4.reload()), "preset=llama3-70b", "workers=" + w,
                        "duration_s=180", "fail_at_s=60", "fail_fraction=0.25", "policies=stop-and-restart", "seed=" + s,
                        "detect_s=" + fmt(RESTART_S + p4.reloadS() + 1))));
            }
            table1Back.put(w, back);
        }
        // 4: ablations on the 4-worker prototype
        List<String> ablation = List.of("stop-and-restart", "fixed-checkpointing", "lumen-placement-only", "lumen-routing-only", "lumen-assist-only",
                "lumen-no-placement", "lumen-no-routing", "lumen-no-assist", "lumen", "lumen-dual");
        Preset q4 = Preset.QWEN3_32B_4W;
        List<Map<String, Future<SimResult>>> abl = new ArrayList<>();
        for (int s = 1; s <= nSeeds; s++) {
            abl.add(submit(with(operating(q4, p4, dur), "preset=" + q4.key, "duration_s=" + dur,
                    "fail_at_s=" + failAt, "policies=" + String.join(",", ablation), "seed=" + s)));
        }
        // 5: theta x tau, LUMEN on the 4-worker prototype
        String[] thetas = {"0.5x", "1x", "2x", "4x"};
        String[] taus = {"1", "16", "128", "1024"};
        Map<String, Map<String, Future<SimResult>>> sens = new LinkedHashMap<>();
        for (String th : thetas) {
            for (String ta : taus) {
                sens.put(th + "/" + ta, submit(with(operating(q4, p4, dur), "preset=" + q4.key,
                        "duration_s=" + dur, "fail_at_s=" + failAt, "policies=lumen", "theta=" + th, "tau=" + ta, "seed=1")));
            }
        }
        // 6: load: the same comparison on the 4-worker prototype from a light to a heavy load
        Map<String, Map<String, Future<SimResult>>> loads = new LinkedHashMap<>();
        for (String l : LOADS) {
            loads.put(l, submit(with(with(workload(q4, 4, Double.parseDouble(dur), Double.parseDouble(l)), p4.reload()), "preset=" + q4.key, "duration_s=" + dur,
                    "fail_at_s=" + failAt, "policies=" + String.join(",", main), "seed=1")));
        }
        // 6b: reload: the same comparison at the calibrated load, with a shorter to a longer full-model reload (the assist's window)
        Map<String, Map<String, Future<SimResult>>> reloads = new LinkedHashMap<>();
        for (String r : RELOADS_S) {
            reloads.put(r, submit(with(workload(q4, 4, Double.parseDouble(dur), p4.load()), "full_load_s=" + r, "preset=" + q4.key, "duration_s=" + dur,
                    "fail_at_s=" + failAt, "policies=" + String.join(",", main), "seed=1")));
        }
        // 7: the scenarios the paper leaves open, on the 8-worker prototype: a worker and its busiest holder, and one worker failing again mid-reload
        List<String> withDual = List.of("stop-and-restart", "fixed-checkpointing", "lumen", "lumen-dual");
        Preset q8 = Preset.QWEN3_14B_8W;
        Map<String, List<Map<String, Future<SimResult>>>> open = new LinkedHashMap<>();
        for (String[] sc : new String[][] {{"holder", "fail_holder=true"}, {"repeated", "fail_events=2", "fail_every_s=5", "fail_workers=same"}}) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                List<String> o = with(operating(q8, p8, dur), "preset=" + q8.key, "duration_s=" + dur, "fail_at_s=" + failAt,
                        "fail_fraction=0.125", "policies=" + String.join(",", withDual), "seed=" + s);
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
        String md = ReproductionDoc.render(this, new ReproductionDoc.Runs(p4, p8, proto, table1, table1Back, abl, ablation, sens, thetas, taus, loads, reloads, open, withDual),
                figs, doc, nSeeds, dur, failAt, sizes, minutes);
        AtomicFiles.writeString(doc, md);
        pw.printf(Locale.ROOT, "%d simulated runs in %.1f min; written %s and its figures in %s%n", all.size(), minutes, doc, figs);
        pw.flush();
        return ExitCodes.OK;
    }

    static String fmt(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }

    boolean quick() {
        return quick;
    }

    /** The workload and reload of an operating point. */
    static List<String> operating(Preset p, Point pt, String dur) {
        return with(workload(p, p.defaultWorkers, Double.parseDouble(dur), pt.load()), pt.reload());
    }

    /**
     * The operating point of a prototype. With --load, that load and the preset's stated reload.
     * Otherwise the stated procedure: run Stop-and-Restart and the failure-free run over the grid of
     * loads and reload times, and take the cell nearest the paper's Stop-and-Restart (TTFT and TPOT
     * against no failure, and recovery time).
     */
    private Point point(Preset p, String fraction, double targetRecoveryS, String dur, String failAt) throws Exception {
        if (load != null) {
            return new Point(load, p.fullLoadMs / 1000, List.of());
        }
        double[] loads = quick ? new double[] {0.7, 0.85} : CAL_LOADS;
        double[] reloads = quick ? new double[] {8, 32} : CAL_RELOADS_S;
        int seeds = quick ? 1 : CAL_SEEDS;
        // per load and seed the failure-free run; per reload too the failing one
        Map<String, Future<SimResult>> runs = new LinkedHashMap<>();
        Map<String, SimConfig.Experiment> exps = new LinkedHashMap<>();
        for (double l : loads) {
            for (int s = 1; s <= seeds; s++) {
                for (double r : reloads) {
                    SimConfig.Experiment e = SimConfig.load(null, null, with(workload(p, p.defaultWorkers, Double.parseDouble(dur), l), "preset=" + p.key,
                            "duration_s=" + dur, "fail_at_s=" + failAt, "fail_fraction=" + fraction, "policies=stop-and-restart",
                            "full_load_s=" + fmt(r), "seed=" + s)).expand().get(0);
                    String key = l + "/" + s;
                    if (!runs.containsKey(key)) {
                        runs.put(key, pool.submit(() -> new Simulator(e.options("stop-and-restart"), null).run(e.arrivals(), List.of())));
                    }
                    runs.put(key + "/" + r, pool.submit(() -> new Simulator(e.options("stop-and-restart"), null).run(e.arrivals(), e.failures())));
                }
            }
        }
        List<Cell> grid = new ArrayList<>();
        for (double l : loads) {
            for (double r : reloads) {
                double[] ttft = new double[seeds];
                double[] tpot = new double[seeds];
                double[] rec = new double[seeds];
                for (int s = 1; s <= seeds; s++) {
                    Map<String, SimResult[]> pairs = new LinkedHashMap<>();
                    pairs.put("stop-and-restart", new SimResult[] {runs.get(l + "/" + s + "/" + r).get(), runs.get(l + "/" + s).get()});
                    Map<String, SimMetrics.Summary> m = new LinkedHashMap<>();
                    for (SimMetrics.Summary x : SimMetrics.experiment(pairs, "no failure")) {
                        m.put(x.policy(), x);
                    }
                    ttft[s - 1] = m.get("stop-and-restart").ttftAll().mean() / m.get("no failure").ttftAll().mean();
                    tpot[s - 1] = m.get("stop-and-restart").tpotAll().mean() / m.get("no failure").tpotAll().mean();
                    rec[s - 1] = m.get("stop-and-restart").recoveryMs() / 1000;
                }
                double tt = java.util.Arrays.stream(ttft).average().orElse(Double.NaN);
                double tp = java.util.Arrays.stream(tpot).average().orElse(Double.NaN);
                double rc = java.util.Arrays.stream(rec).average().orElse(Double.NaN);
                grid.add(new Cell(l, r, tt, tp, rc, error(tt, tp, rc, targetRecoveryS)));
            }
        }
        Cell best = best(grid);
        if (best == null) {
            throw new UserError("no cell of the calibration grid for " + p.key + " recovers under Stop-and-Restart; give --load");
        }
        return new Point(best.load(), best.reloadS(), grid);
    }

    /**
     * How far Stop-and-Restart's ratios lie from the paper's: the sum of the squared logarithms of
     * TTFT ratio, TPOT ratio and recovery time over the paper's (twice and half as far count alike);
     * infinite when it never recovers.
     */
    static double error(double ttftRatio, double tpotRatio, double recoveryS, double targetRecoveryS) {
        if (Double.isNaN(recoveryS) || Double.isNaN(ttftRatio) || Double.isNaN(tpotRatio)) {
            return Double.POSITIVE_INFINITY;
        }
        return sq(Math.log(ttftRatio / TARGET_TTFT)) + sq(Math.log(tpotRatio / TARGET_TPOT)) + sq(Math.log(recoveryS / targetRecoveryS));
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

    private static double sq(double x) {
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
