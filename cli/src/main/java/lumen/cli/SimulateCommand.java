package lumen.cli;

import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.plots.SimPlots;
import lumen.runtime.Arrival;
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

/** {@code lumen simulate}: recovery policies compared on a simulated cluster, with sweeps. */
@Command(name = "simulate",
        mixinStandardHelpOptions = true,
        description = {"Simulates a serving cluster on the decision core: a workload, a failure of a fraction of the workers,"
                + " each policy in turn and once without the failure (the baseline). Runs go in parallel on every core.",
            "Every knob is a key of a commented config (--print-config shows them, with units and defaults); --config FILE"
                + " and --set key=value change them. A key with a list of values (theta=0.5x,1x,2x) sweeps it.",
            "Prints TTFT and TPOT (mean / p50 / p99) over the requests whose first token falls in the failure-impact window"
                + " (one window for every policy: the longest recovery) for all requests, the interrupted ones (replay TTFT) and the"
                + " survivors'; the recovery time (to the first 30 s in a row at which neither TTFT nor the time per token of the decode"
                + " steps exceeds the same policy's run without the failure by more than 10%% plus three standard errors); and the excess"
                + " TTFT in request-seconds over every request, against that run. --out DIR writes per-request CSV, each verified draft (drafts-<policy>.csv:"
                + " the acceptance over time), the summary, the timeline around the failure and TTFT CDFs (PNG and SVG), and for"
                + " sweeps sweep.csv and heat-maps. --traces DIR writes each failure run's trace for lumen validate."})
final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "a config file (keys as in --print-config)")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override one key; a comma list sweeps it")
    List<String> sets = new ArrayList<>();

    @Option(names = "--print-config", description = "print the default config, every key with its unit, and exit")
    boolean printConfig;

    @Option(names = "--preset", paramLabel = "P", description = "shorthand for --set preset=P")
    String preset;

    @Option(names = "--workers", paramLabel = "N", description = "shorthand for --set workers=N")
    String workers;

    @Option(names = "--policy", paramLabel = "P,P", description = "shorthand for --set policies=P,P")
    String policy;

    @Option(names = "--workload", paramLabel = "W", description = "shorthand for --set workload=W")
    String workload;

    @Option(names = "--duration-s", paramLabel = "S", description = "shorthand for --set duration_s=S")
    String durationS;

    @Option(names = "--fail-at-s", paramLabel = "S", description = "shorthand for --set fail_at_s=S")
    String failAtS;

    @Option(names = "--rate-scale", paramLabel = "X", description = "shorthand for --set rate_scale=X")
    String rateScale;

    @Option(names = "--seed", paramLabel = "S", description = "shorthand for --set seed=S")
    String seed;

    @Option(names = "--out", paramLabel = "DIR", description = "write CSV, the summary and the figures there (atomically)")
    Path out;

    @Option(names = "--traces", paramLabel = "DIR", description = "write each policy's failure run as a trace (contract v2) that lumen validate"
            + " reads: DIR/<policy>.jsonl, or DIR/<experiment>-<policy>.jsonl for a sweep. Traces are large (about 100 bytes an event):"
            + " keep such runs short")
    Path traces;

    @Option(names = "--shard", paramLabel = "K/N", description = "run only the sweep's experiments K, K+N, K+2N, ... (1-based: shard K of N),"
            + " so that N machines share a sweep; each writes sweep.csv rows with the sweep's own experiment numbers, which concatenate")
    String shard;

    /** The sweep's experiment number of each experiment run here, and whether the whole config is a sweep. */
    private List<Integer> ids;
    private boolean sweep;

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    boolean quiet;

    private List<String> overrides() {
        List<String> o = new ArrayList<>();
        String[][] flags = {{"preset", preset}, {"workers", workers}, {"policies", policy}, {"workload", workload},
            {"duration_s", durationS}, {"fail_at_s", failAtS}, {"rate_scale", rateScale}, {"seed", seed}};
        for (String[] f : flags) {
            if (f[1] != null) {
                o.add(f[0] + "=" + f[1]);
            }
        }
        o.addAll(sets);
        return o;
    }

    /** The key of a policy's own failure-free run; the first policy's is "no failure". */
    static final String BASE = "no failure: ";

    /** One simulated run: an experiment, a policy (null: the baseline), and its future result. */
    private record Job(int experiment, String policy, Future<SimResult> result) {}

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        PrintWriter pw = spec.commandLine().getOut();
        if (printConfig) {
            pw.print(SimConfig.defaultsText());
            pw.flush();
            return ExitCodes.OK;
        }
        List<SimConfig.Experiment> exps;
        List<List<Arrival>> arrivals = new ArrayList<>();
        List<List<SimResult.Failure>> failures = new ArrayList<>();
        try {
            SimConfig cfg;
            if (config != null) {
                try (Reader r = Files.newBufferedReader(config)) {
                    cfg = SimConfig.load(r, config.toString(), overrides());
                } catch (NoSuchFileException ex) {
                    throw new UserError(config + ": no such file");
                }
            } else {
                cfg = SimConfig.load(null, null, overrides());
            }
            List<SimConfig.Experiment> all = cfg.expand();
            sweep = all.size() > 1;
            int[] kn = shard == null ? new int[] {1, 1} : shard(shard, all.size());
            exps = new ArrayList<>();
            ids = new ArrayList<>();
            for (int i = kn[0] - 1; i < all.size(); i += kn[1]) {
                exps.add(all.get(i));
                ids.add(i);
            }
            for (SimConfig.Experiment e : exps) {
                e.policies();
                e.options(e.policies().get(0));
                arrivals.add(e.arrivals());
                failures.add(e.failures());
            }
        } catch (SimConfig.BadValue ex) {
            throw new UserError(ex.getMessage());
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < exps.size(); i++) {
            SimConfig.Experiment e = exps.get(i);
            List<Arrival> a = arrivals.get(i);
            List<SimResult.Failure> f = failures.get(i);
            String first = e.policies().get(0);
            jobs.add(new Job(i, null, pool.submit(() -> new Simulator(e.options(first), null).run(a, List.of()))));
            for (String p : e.policies()) {
                Path trace = traces == null ? null : traces.resolve((sweep ? ids.get(i) + "-" : "") + p + ".jsonl");
                jobs.add(new Job(i, p, pool.submit(() -> traced(e.options(p), trace, a, f))));
                if (!p.equals(first)) {
                    jobs.add(new Job(i, BASE + p, pool.submit(() -> new Simulator(e.options(p), null).run(a, List.of()))));
                }
            }
        }
        pool.shutdown();
        Map<Integer, List<SimMetrics.Summary>> tables = new LinkedHashMap<>();
        Map<Integer, Map<String, SimResult>> results = new LinkedHashMap<>();
        double wall = 0;
        long events = 0;
        long unfinished = 0;
        try (ProgressBar bar = quiet || System.console() == null ? null
                : new ProgressBarBuilder().setTaskName("simulate").setInitialMax(jobs.size()).setUnit(" runs", 1)
                        .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            for (Job j : jobs) {
                SimResult r = j.result().get();
                if (bar != null) {
                    bar.step();
                }
                wall += r.wallSeconds;
                events += r.events;
                unfinished += r.requests.stream().filter(q -> Double.isNaN(q.doneMs)).count() + arrivals.get(j.experiment()).size() - r.requests.size();
                results.computeIfAbsent(j.experiment(), k -> new LinkedHashMap<>()).put(j.policy() == null ? "no failure" : j.policy(), r);
            }
        }
        for (Map.Entry<Integer, Map<String, SimResult>> e : results.entrySet()) {
            SimResult base = e.getValue().get("no failure");
            // each policy against its own failure-free run, all over one window; the baseline row over it too
            Map<String, SimResult[]> pairs = new LinkedHashMap<>();
            for (Map.Entry<String, SimResult> r : e.getValue().entrySet()) {
                if (!r.getKey().equals("no failure") && !r.getKey().startsWith(BASE)) {
                    SimResult own = e.getValue().get(BASE + r.getKey());
                    pairs.put(r.getKey(), new SimResult[] {r.getValue(), own == null ? base : own});
                }
            }
            tables.put(e.getKey(), SimMetrics.experiment(pairs, "no failure (same window)"));
        }
        StringBuilder text = new StringBuilder();
        for (Map.Entry<Integer, List<SimMetrics.Summary>> t : tables.entrySet()) {
            SimConfig.Experiment e = exps.get(t.getKey());
            text.append(String.format(Locale.ROOT, "%s%s, %d workers, %s: %d requests in %s s; %s%n",
                    sweep ? "[" + ids.get(t.getKey()) + ": " + e.label() + "] " : "", e.preset().key, e.workers(), e.workload().name(), arrivals.get(t.getKey()).size(),
                    e.values().get("duration_s"), describe(failures.get(t.getKey()))));
            text.append(SimMetrics.table(t.getValue())).append('\n');
        }
        pw.print(text);
        pw.printf(Locale.ROOT, "%d experiments, %d simulated runs, %,d spec events, %.1f s of simulation (%.0f events/s)%n",
                exps.size(), jobs.size(), events, wall, events / Math.max(1e-9, wall));
        if (out != null) {
            write(exps, results, tables, failures, text.toString());
            pw.println("written to " + out);
        }
        if (unfinished > 0) {
            pw.println("FAILED: " + unfinished + " requests did not complete");
            pw.flush();
            return ExitCodes.DISAGREEMENT;
        }
        pw.flush();
        return ExitCodes.OK;
    }

    /** K and N of "K/N", checked: 1 <= K <= N, and N no more than the sweep's experiments. */
    static int[] shard(String kn, int experiments) {
        String[] p = kn.split("/");
        try {
            int k = Integer.parseInt(p[0].trim());
            int n = Integer.parseInt(p[1].trim());
            if (p.length == 2 && k >= 1 && k <= n && n <= experiments) {
                return new int[] {k, n};
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException ex) {
            // reported below
        }
        throw new UserError("--shard " + kn + ": expected K/N with 1 <= K <= N <= " + experiments + " (the sweep's experiments)");
    }

    /** One run, its events written to {@code trace} (atomically: a temporary file, then a move) when it is not null. */
    static SimResult traced(Simulator.Options o, Path trace, List<Arrival> a, List<SimResult.Failure> f) throws java.io.IOException {
        if (trace == null) {
            return new Simulator(o, null).run(a, f);
        }
        Files.createDirectories(trace.toAbsolutePath().getParent());
        Path tmp = trace.resolveSibling(trace.getFileName() + ".tmp");
        SimResult r;
        try (java.io.OutputStream os = new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16);
             lumen.trace.TraceWriter w = new lumen.trace.TraceWriter(os, o.config())) {
            r = new Simulator(o, (ev, t) -> {
                try {
                    w.write(ev, Math.round(t * 1000) / 1000.0);
                } catch (java.io.IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }).run(a, f);
        }
        Files.move(tmp, trace, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return r;
    }

    /** The failure plan in words: "workers [1] fail at 100 s; [1] at 130 s (with their busiest holder)". */
    static String describe(List<SimResult.Failure> fs) {
        if (fs.isEmpty()) {
            return "no failure";
        }
        StringBuilder b = new StringBuilder("workers ");
        for (int i = 0; i < fs.size(); i++) {
            SimResult.Failure f = fs.get(i);
            b.append(i == 0 ? "" : "; ").append(Arrays.toString(f.workers())).append(i == 0 ? " fail at " : " at ")
                    .append(String.format(Locale.ROOT, "%.1f s", f.atMs() / 1000));
        }
        return b + (fs.get(0).holder() ? " (each time with the busiest holder of their checkpoints)" : "");
    }

    private void write(List<SimConfig.Experiment> exps, Map<Integer, Map<String, SimResult>> results,
                       Map<Integer, List<SimMetrics.Summary>> tables, List<List<SimResult.Failure>> failures, String text) throws Exception {
        Files.createDirectories(out);
        AtomicFiles.writeString(out.resolve("summary.txt"), text);
        StringBuilder csvRows = new StringBuilder("experiment," + String.join(",", exps.get(0).axes())
                + (exps.get(0).axes().isEmpty() ? "" : ",") + "policy,recovery_s,ttft_mean_ms,ttft_p99_ms,replay_ttft_mean_ms,"
                + "survivor_ttft_mean_ms,tpot_mean_ms,interrupted,draft_acceptance\n");
        for (Map.Entry<Integer, List<SimMetrics.Summary>> t : tables.entrySet()) {
            SimConfig.Experiment e = exps.get(t.getKey());
            for (SimMetrics.Summary s : t.getValue()) {
                StringBuilder row = new StringBuilder().append(ids.get(t.getKey()));
                for (String a : e.axes()) {
                    row.append(',').append(e.values().get(a));
                }
                row.append(String.format(Locale.ROOT, ",%s,%s,%.1f,%.1f,%s,%.1f,%.1f,%d,%s%n", s.policy().replace(',', ';'),
                        Double.isNaN(s.recoveryMs()) ? "" : String.format(Locale.ROOT, "%.1f", s.recoveryMs() / 1000), s.ttftAll().mean(),
                        s.ttftAll().p99(), s.ttftInterrupted().n() == 0 ? "" : String.format(Locale.ROOT, "%.1f", s.ttftInterrupted().mean()),
                        s.ttftSurvivors().mean(), s.tpotAll().mean(), s.interrupted(),
                        Double.isNaN(s.draftAcceptance()) ? "" : String.format(Locale.ROOT, "%.3f", s.draftAcceptance())));
                csvRows.append(row);
            }
        }
        AtomicFiles.writeString(out.resolve(sweep ? "sweep.csv" : "policies.csv"), csvRows.toString());
        if (!sweep) {
            Map<String, SimResult> runs = new LinkedHashMap<>(results.get(0));
            runs.keySet().removeIf(k -> k.startsWith(BASE));
            for (Map.Entry<String, SimResult> r : runs.entrySet()) {
                if (!r.getKey().equals("no failure")) {
                    StringWriter csv = new StringWriter();
                    SimMetrics.writeCsv(r.getValue(), r.getKey(), csv);
                    AtomicFiles.writeString(out.resolve("requests-" + r.getKey() + ".csv"), csv.toString());
                    if (!r.getValue().drafts.isEmpty()) {
                        StringBuilder d = new StringBuilder("at_ms,since_draft_ready_ms,proposed,accepted\n");
                        for (SimResult.Draft x : r.getValue().drafts) {
                            d.append(String.format(Locale.ROOT, "%.3f,%.3f,%d,%d%n", x.atMs(), x.sinceReadyMs(), x.proposed(), x.accepted()));
                        }
                        AtomicFiles.writeString(out.resolve("drafts-" + r.getKey() + ".csv"), d.toString());
                    }
                }
            }
            Map<String, List<SimResult.Req>> cdf = SimPlots.ordered();
            List<SimMetrics.Summary> rows = tables.get(0);
            for (int i = 1; i < rows.size(); i++) {
                cdf.put(rows.get(i).policy(), SimPlots.inWindow(runs.get(rows.get(i).policy()), rows.get(i)));
            }
            double[] marks = failures.get(0).stream().mapToDouble(SimResult.Failure::atMs).toArray();
            double end = Double.parseDouble(exps.get(0).values().get("duration_s")) * 1000;
            double from = marks.length == 0 ? 0 : Math.max(0, marks[0] - 30_000);
            double to = marks.length == 0 ? end : Math.min(end, marks[marks.length - 1] + 120_000);
            SimPlots.timeline(runs, marks, from, to, out, "timeline");
            SimPlots.ttftCdf(cdf, out, "ttft-cdf");
        } else if (exps.get(0).axes().size() == 2 && shard == null) {
            SimPlots.heatmaps(exps, tables, out);
        }
    }
}
