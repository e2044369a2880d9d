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
    /** The default load: this share of the cluster's service capacity. */
    static final double DEFAULT_LOAD = 0.85;
    /** The loads of the load section. */
    static final String[] LOADS = {"0.6", "0.7", "0.8", "0.85", "0.9", "0.95"};

    @Option(names = "--load", paramLabel = "F", description = "share of the cluster's capacity the workload asks for (default: ${DEFAULT-VALUE});"
            + " with a quarter of the workers down, the survivors are asked for F / 0.75")
    double load = DEFAULT_LOAD;

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
        if (!(load > 0 && load < 2)) {
            throw new UserError("--load must be between 0 and 2, not " + load);
        }
        Path doc = out != null ? out : KitPaths.home().resolve("docs").resolve("reproduction.md");
        Path figs = doc.toAbsolutePath().getParent().resolve("reproduction");
        int nSeeds = quick ? 1 : Math.max(1, seeds);
        String dur = quick ? "300" : "600";
        String failAt = quick ? "100" : "200";
        pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        long t0 = System.nanoTime();
        List<String> main = List.of("stop-and-restart", "fixed-checkpointing", "lumen");
        // 1 and 2: the prototypes, one worker failing
        Map<String, List<Map<String, Future<SimResult>>>> proto = new LinkedHashMap<>();
        for (Object[] pr : new Object[][] {{Preset.QWEN3_32B_4W, "0.25"}, {Preset.QWEN3_14B_8W, "0.125"}}) {
            Preset p = (Preset) pr[0];
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                runs.add(submit(with(workload(p, p.defaultWorkers, Double.parseDouble(dur), load), "preset=" + p.key,
                        "duration_s=" + dur, "fail_at_s=" + failAt, "fail_fraction=" + pr[1], "policies=" + String.join(",", main), "seed=" + s)));
            }
            proto.put(p.key, runs);
        }
        // 3: Table 1, Stop-and-Restart at 25% from 4 to 64 workers, the same load per worker
        int[] sizes = quick ? new int[] {4, 16, 64} : new int[] {4, 8, 16, 32, 64};
        Map<Integer, List<Map<String, Future<SimResult>>>> table1 = new LinkedHashMap<>();
        for (int w : sizes) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                runs.add(submit(with(workload(Preset.LLAMA3_70B, w, 180, load), "preset=llama3-70b", "workers=" + w,
                        "duration_s=180", "fail_at_s=60", "fail_fraction=0.25", "policies=stop-and-restart", "seed=" + s)));
            }
            table1.put(w, runs);
        }
        // 4: ablations on the 4-worker prototype
        List<String> ablation = List.of("stop-and-restart", "fixed-checkpointing", "lumen-placement-only", "lumen-routing-only", "lumen-assist-only",
                "lumen-no-placement", "lumen-no-routing", "lumen-no-assist", "lumen", "lumen-dual");
        Preset p4 = Preset.QWEN3_32B_4W;
        List<Map<String, Future<SimResult>>> abl = new ArrayList<>();
        for (int s = 1; s <= nSeeds; s++) {
            abl.add(submit(with(workload(p4, 4, Double.parseDouble(dur), load), "preset=" + p4.key, "duration_s=" + dur,
                    "fail_at_s=" + failAt, "policies=" + String.join(",", ablation), "seed=" + s)));
        }
        // 5: theta x tau, LUMEN on the 4-worker prototype
        String[] thetas = {"0", "20000", "100000", "1000000"};
        String[] taus = {"16", "256", "2048", "16384"};
        Map<String, Map<String, Future<SimResult>>> sens = new LinkedHashMap<>();
        for (String th : thetas) {
            for (String ta : taus) {
                sens.put(th + "/" + ta, submit(with(workload(p4, 4, Double.parseDouble(dur), load), "preset=" + p4.key,
                        "duration_s=" + dur, "fail_at_s=" + failAt, "policies=lumen", "theta=" + th, "tau=" + ta, "seed=1")));
            }
        }
        // 6: load: the same comparison on the 4-worker prototype from a light to a heavy load
        Map<String, Map<String, Future<SimResult>>> loads = new LinkedHashMap<>();
        for (String l : LOADS) {
            loads.put(l, submit(with(workload(p4, 4, Double.parseDouble(dur), Double.parseDouble(l)), "preset=" + p4.key, "duration_s=" + dur,
                    "fail_at_s=" + failAt, "policies=" + String.join(",", main), "seed=1")));
        }
        // 7: the scenarios the paper leaves open, on the 8-worker prototype: a worker and its busiest holder, and one worker failing again mid-reload
        List<String> withDual = List.of("stop-and-restart", "fixed-checkpointing", "lumen", "lumen-dual");
        Preset p8 = Preset.QWEN3_14B_8W;
        Map<String, List<Map<String, Future<SimResult>>>> open = new LinkedHashMap<>();
        for (String[] sc : new String[][] {{"holder", "fail_holder=true"}, {"repeated", "fail_events=2", "fail_every_s=5", "fail_workers=same"}}) {
            List<Map<String, Future<SimResult>>> runs = new ArrayList<>();
            for (int s = 1; s <= nSeeds; s++) {
                List<String> o = with(workload(p8, 8, Double.parseDouble(dur), load), "preset=" + p8.key, "duration_s=" + dur, "fail_at_s=" + failAt,
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
        String md = ReproductionDoc.render(this, new ReproductionDoc.Runs(proto, table1, abl, ablation, sens, thetas, taus, loads, open, withDual),
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

    double load() {
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
