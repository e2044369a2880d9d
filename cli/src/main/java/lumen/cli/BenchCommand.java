package lumen.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.concurrent.Callable;
import lumen.bench.DecisionBench;
import lumen.bench.ValidatorBench;
import lumen.bench.ValidatorHeap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lumen bench}: the reference implementation's benchmarks, with their figures printed. */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = {"Runs benchmarks and prints their figures.",
            "decisions: placement and routing decisions per second at 4, 64 and 1024 workers, the load"
                + " index against an O(W) scan in the same run (JMH).",
            "validator: validator events per second on one thread, traces in contract v1 and v2 from memory (JMH); then end to end"
                + " from a file at 8, 64 and 1,000 workers against a bare Jackson parse of the same file, and the most heap live"
                + " while it validates, in a JVM of its own with a 256 MB heap.",
            "heap: peak heap while validating a generated trace of --size-mb megabytes from disk.",
            "sim: simulated events per second (JMH), and the wall time and peak heap of the 64-worker Llama-3-70B-like preset"
                + " replaying the whole one-hour Azure conv trace with a quarter of the workers failing, under LUMEN, and the same preset"
                + " at Table 1's load (80%% of capacity, 180 s).",
            "tlc: trace validation time against trace length, TLC (lumen validate --tlc) and the Java mirror on the"
                + " same synthetic traces, each written in trace contract v1 and v2 (not part of all: TLC takes minutes on the longest).",
            "gpu: checkpoint-streaming bandwidth against the pinned copy ceiling by page size and geometry, the decode step's"
                + " slowdown while pages stream, restore against re-prefill time, verification throughput; on a GPU through JCuda,"
                + " else on the CPU backend, labelled as not GPU figures. Writes the figures as JSON (--json) for"
                + " lumen simulate --set gpu_profile=FILE (not part of all).",
            "partial: the mirror's events per second on partial traces against the full trace in the same run: loads never"
                + " cited, Decode per batch iteration and checkpoint sizes without content at 8, 64 and 1,000 workers, Place not"
                + " logged on the runtime's traces, and the candidate set's growth with the requests waiting to be placed (not part"
                + " of all).",
            "fuzz-reader: --count mutated inputs of each input kind in turn (--kind: atomic traces, begin-end traces, partial"
                + " traces, per-process logs, client histories; all by default), made from the reference scenarios, runtime traces"
                + " and their clients' histories, each labelled with the rule of docs/trace-format.md or docs/history-format.md it"
                + " breaks, or a variation the docs allow, through the kit's readers, each with a 10 s limit: counts per rule and"
                + " per kind of stack traces, hangs, malformed inputs accepted, tolerated inputs refused, errors off the mutated"
                + " line or file, over-long echoes, and the peak heap. Exit status 1 when any count is not 0 (not part of all)."})
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "WHAT", arity = "0..1", description = "decisions, validator, heap, sim, tlc, gpu, fuzz-reader, partial, wall-clock, live or all (default: all; live is not in all)")
    String what = "all";

    @Option(names = "--quick", description = "fewer and shorter JMH iterations (a smoke run, noisier figures)")
    boolean quick;

    @Option(names = "--size-mb", paramLabel = "MB", description = "trace size for the heap benchmark (default: ${DEFAULT-VALUE})")
    long sizeMb = 1024;

    @Option(names = "--json", paramLabel = "FILE", description = "where the gpu benchmark writes its figures (default: ${DEFAULT-VALUE})")
    Path json = Path.of("gpu-profile.json");

    @Option(names = "--dir", paramLabel = "DIR", description = "where the heap benchmark writes its trace (default: the system temp folder)")
    Path dir;

    @Option(names = "--count", paramLabel = "N", description = "mutated inputs for fuzz-reader, the kinds taking turns (default: ${DEFAULT-VALUE})")
    long count = 10_007;

    @Option(names = "--kind", paramLabel = "K", description = "the input kind fuzz-reader mutates: atomic, begin-end, partial, per-process,"
            + " history or all (default: ${DEFAULT-VALUE})")
    String kind = "all";

    @Option(names = "--seed", paramLabel = "S", description = "the seed of fuzz-reader's generator (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (!java.util.List.of("decisions", "validator", "heap", "sim", "tlc", "gpu", "fuzz-reader", "partial", "wall-clock", "live", "all")
                .contains(what)) {
            throw new UserError("unknown benchmark '" + what + "'; choose decisions, validator, heap, sim, tlc, gpu, fuzz-reader, partial,"
                    + " wall-clock, live or all");
        }
        if (what.equals("wall-clock")) {
            wallClock(out);
            return ExitCodes.OK;
        }
        if (what.equals("live")) {
            lumen.bench.LiveBench.run(out, quick, dir != null ? dir : Files.createTempDirectory("lumen-bench-live-"));
            return ExitCodes.OK;
        }
        if (what.equals("partial")) {
            partial(out);
            return ExitCodes.OK;
        }
        if (what.equals("fuzz-reader")) {
            return fuzzReader(out);
        }
        if (what.equals("gpu")) {
            lumen.sim.GpuProfile p = lumen.gpu.GpuBench.run(out, quick);
            lumen.spec.io.AtomicFiles.writeString(json, p.toJson());
            out.println("figures written to " + json + (p.backend().equals("jcuda") ? " (lumen simulate --set gpu_profile=" + json + " uses them)"
                    : " (CPU backend: the simulator will not take them)"));
            out.flush();
            return ExitCodes.OK;
        }
        if (what.equals("tlc")) {
            tlc(out);
            return ExitCodes.OK;
        }
        if (what.equals("decisions") || what.equals("all")) {
            decisions(out);
        }
        if (what.equals("validator") || what.equals("all")) {
            validator(out);
        }
        if (what.equals("heap") || what.equals("all")) {
            heap(out);
        }
        if (what.equals("sim") || what.equals("all")) {
            sim(out);
        }
        return ExitCodes.OK;
    }

    private ChainedOptionsBuilder jmh(Class<?> bench) {
        ChainedOptionsBuilder b = new OptionsBuilder().include(bench.getName() + ".*").shouldFailOnError(true);
        if (quick) {
            b = b.warmupIterations(1).warmupTime(TimeValue.milliseconds(500)).measurementIterations(2)
                    .measurementTime(TimeValue.milliseconds(500));
        }
        return b;
    }

    /** The score of {@code method} at {@code workers} and trace contract {@code version}. */
    private static double score(Collection<RunResult> rs, String method, String workers, String version) {
        for (RunResult r : rs) {
            if (r.getParams().getBenchmark().endsWith("." + method) && workers.equals(r.getParams().getParam("workers"))
                    && version.equals(r.getParams().getParam("version"))) {
                return r.getPrimaryResult().getScore();
            }
        }
        return Double.NaN;
    }

    private static double score(Collection<RunResult> rs, String method, String workers) {
        for (RunResult r : rs) {
            if (r.getParams().getBenchmark().endsWith("." + method) && workers.equals(r.getParams().getParam("workers"))) {
                return r.getPrimaryResult().getScore();
            }
        }
        return Double.NaN;
    }

    private void decisions(PrintWriter out) throws RunnerException {
        Collection<RunResult> rs = new Runner(jmh(DecisionBench.class).build()).run();
        out.println();
        out.println("Decisions per second (JMH throughput, one thread; index = LoadIndex, scan = O(W) argmin)");
        out.printf(Locale.ROOT, "%8s %16s %16s %8s %16s %16s %8s %16s%n", "workers", "place index", "place scan", "ratio",
                "reprefill index", "reprefill scan", "ratio", "Place step");
        for (String w : new String[] {"4", "64", "1024"}) {
            double pi = score(rs, "placementIndexed", w);
            double ps = score(rs, "placementScan", w);
            double ri = score(rs, "reprefillTargetIndexed", w);
            double rsn = score(rs, "reprefillTargetScan", w);
            out.printf(Locale.ROOT, "%8s %16.0f %16.0f %7.1fx %16.0f %16.0f %7.1fx %16.0f%n", w, pi, ps, pi / ps, ri, rsn, ri / rsn,
                    score(rs, "placeStep", w));
        }
        out.flush();
    }

    private void validator(PrintWriter out) throws RunnerException, IOException {
        Collection<RunResult> rs = new Runner(jmh(ValidatorBench.class).build()).run();
        out.println();
        out.println("Validator throughput (JMH, one thread, 1,000,000-event synthetic trace from memory; the same trace in"
                + " contract v1 and v2, whose KV content the validator follows copy by copy)");
        for (String w : new String[] {"8", "64"}) {
            double v1 = score(rs, "validate", w, "1");
            double v2 = score(rs, "validate", w, "2");
            double p2 = score(rs, "parse", w, "2");
            out.printf(Locale.ROOT, "  %3s workers: v1 %,.0f events/s, v2 %,.0f events/s (v2/v1 %.2fx); a bare Jackson parse of the v2"
                    + " trace %,.0f events/s (validation at %.2fx of that floor)%n", w, v1, v2, v2 / v1, p2, v2 / p2);
        }
        out.flush();
        fromFiles(out);
    }

    /** The heap the validator's own JVM gets in {@link #fromFiles}: its state must fit, whatever the trace's length. */
    static final String FILE_HEAP = "-Xmx256m";

    /**
     * The validator end to end from a file at 8, 64 and 1,000 workers, each against a bare Jackson
     * parse of the same file in the same JVM ({@link lumen.bench.ValidatorFromFile}, a JVM of its
     * own with a 256 MB heap), and the most heap live while it validates, for traces of about
     * 100,000 requests with 64 and with 8,000 of them in flight.
     */
    private void fromFiles(PrintWriter out) throws IOException {
        long big = quick ? 400_000 : 3_600_000;
        lumen.bench.ValidatorFromFile.Shape[] shapes = {
            new lumen.bench.ValidatorFromFile.Shape(8, 8, 256, quick ? 200_000 : 1_000_000),
            new lumen.bench.ValidatorFromFile.Shape(64, 8, 256, quick ? 200_000 : 1_000_000),
            new lumen.bench.ValidatorFromFile.Shape(8, 8, 32, big),
            new lumen.bench.ValidatorFromFile.Shape(1000, 8, 32, big)};
        int rounds = quick ? 3 : 5;
        out.printf(Locale.ROOT, "%nFrom a file, end to end (one thread's CPU time, median of %d rounds after a warm-up, the parse and the"
                + " validation alternated; a JVM of its own with %s):%n", rounds - 1, FILE_HEAP.substring(4));
        out.printf(Locale.ROOT, "  %7s %9s %10s %10s %14s %14s %7s %12s%n", "workers", "in flight", "requests", "events", "parse ev/s",
                "validate ev/s", "ratio", "live heap");
        Path d = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(d);
        String javaCmd = ProcessHandle.current().info().command().orElse("java");
        for (lumen.bench.ValidatorFromFile.Shape sh : shapes) {
            Path file = Files.createTempFile(d, "lumen-validator-", ".jsonl");
            try {
                long[] written = lumen.bench.ValidatorFromFile.write(file, sh);
                Process p = new ProcessBuilder(javaCmd, FILE_HEAP, "-cp", System.getProperty("java.class.path"),
                        lumen.bench.ValidatorFromFile.class.getName(), file.toString(), Integer.toString(rounds))
                        .redirectErrorStream(true).start();
                String line = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
                String[] f = line.split(" ");
                if (p.waitFor() != 0 || f.length != 5) {
                    throw new IOException("the validator's benchmark JVM failed: " + lumen.trace.Echo.cut(line));
                }
                double parse = Double.parseDouble(f[1]);
                double validate = Double.parseDouble(f[2]);
                out.printf(Locale.ROOT, "  %7d %9d %,10d %,10d %,14.0f %,14.0f %6.2fx %6.1f MB%s%n", sh.workers(), sh.workers() * sh.perWorker(),
                        written[1], Long.parseLong(f[0]), parse, validate, validate / parse, Double.parseDouble(f[4]),
                        f[3].equals("ACCEPTED") ? "" : " (" + f[3] + ")");
                out.flush();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", ex);
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }

    private static final java.util.regex.Pattern CANDIDATES = java.util.regex.Pattern.compile(
            "([0-9]+) candidate states at most between two events \\(mean ([0-9.]+)\\)");

    /**
     * The mirror on partial traces, each as a ratio to its full trace's rate in the same run (best
     * of three, after a warm-up): synthetic traces at 8, 64 and 1,000 workers without cited loads
     * and with batch lines; the runtime's scenario traces without Place lines (requests placed on
     * arrival, as a gateway does); and the candidate set's growth with the requests that wait to be
     * placed at once, on synthetic traces that admit them all before placing any.
     */
    private void partial(PrintWriter out) throws IOException {
        long events = quick ? 20_000 : 200_000;
        lumen.trace.Observation noPlace = lumen.trace.Observation.NO_PLACE;
        lumen.trace.Observation least = lumen.trace.Observation.LEAST;
        out.printf(Locale.ROOT, "Partial traces (one thread, from memory, best of 3 after a warm-up; each level as a ratio to its full trace"
                + " in the same run)%n");
        out.printf(Locale.ROOT, "  synthetic traces of %,d events:%n", events);
        for (int w : new int[] {8, 64, 1000}) {
            lumen.core.Config c = new lumen.core.Config("lumen", w, 1, 1, 64, 32, 1 << 20, 16, 4);
            byte[] full = lumen.trace.SyntheticTrace.toBytes(new lumen.trace.SyntheticTrace.Spec(c, events, 8, 64, 256, 50_000, 1), 2);
            rate(full, null);
            double base = rate(full, null);
            for (lumen.trace.Observation o : new lumen.trace.Observation[] {lumen.trace.Observation.NO_LOADS, lumen.trace.Observation.BATCH,
                lumen.trace.Observation.SIZES}) {
                String[] stats = new String[1];
                double r = rate(lumen.trace.Observe.at(full, o), stats);
                out.printf(Locale.ROOT, "    %4d workers: %-28s %,10.0f events/s against %,10.0f full (%.2fx)%s%n", w, o.describe(), r, base,
                        r / base, stats[0] == null ? "" : "; " + stats[0]);
                out.flush();
            }
        }
        out.println("  the runtime's scenario traces (4 workers, about 1,000 events each), Place not logged:");
        for (lumen.runtime.Scenario sc : lumen.runtime.Scenarios.all()) {
            if (!sc.expectsAcceptance()) {
                continue;
            }
            byte[] full = lumen.runtime.ScenarioRun.run(sc).trace();
            rate(full, null);
            double base = rate(full, null);
            for (lumen.trace.Observation o : new lumen.trace.Observation[] {noPlace, least}) {
                String[] stats = new String[1];
                double r = rate(lumen.trace.Observe.at(full, o), stats);
                out.printf(Locale.ROOT, "    %-24s %-62s %,9.0f events/s against %,9.0f full (%.3fx); %s%n", sc.name(), o.describe(), r, base,
                        r / base, stats[0]);
                out.flush();
            }
        }
        out.println("  candidate growth: 4 workers, N requests admitted before any is placed, Place not logged (bound 4,096 candidates):");
        for (int per = 1; per <= 3; per++) {
            lumen.core.Config c = new lumen.core.Config("lumen", 4, 1, 1, 64, 32, 1 << 20, 16, 4);
            byte[] full = lumen.trace.SyntheticTrace.toBytes(new lumen.trace.SyntheticTrace.Spec(c, quick ? 2_000 : 10_000, per, 64, 64, 50_000, 1), 2);
            long t0 = System.nanoTime();
            lumen.validate.ValidationResult r = lumen.validate.Validator.validate(lumen.trace.Observe.at(full, noPlace), "bench",
                    lumen.validate.Validator.Options.defaults());
            double secs = (System.nanoTime() - t0) / 1e9;
            String stats = "";
            for (String n : r.notes()) {
                java.util.regex.Matcher m = CANDIDATES.matcher(n);
                if (m.find()) {
                    stats = "peak " + m.group(1) + ", mean " + m.group(2);
                }
                if (n.contains("cut short")) {
                    stats += "; " + n.replaceFirst("^the search was cut short at line ([0-9]+).*$", "the bound was hit at line $1");
                }
            }
            out.printf(Locale.ROOT, "    N = %2d: %s, %s, %,.0f events/s%n", 4 * per, r.verdict(), stats, r.events() / secs);
            out.flush();
        }
    }

    /**
     * The wall-clock merge: a valid run split into per-process logs with wall-clock windows (one event
     * a millisecond, each process's clock off by up to the skew), merged by the search and validated,
     * against the whole trace validated in the same run. Prints the orders and states per event.
     */
    private void wallClock(PrintWriter out) throws IOException, lumen.trace.TraceFormatException {
        out.printf(Locale.ROOT, "Wall-clock per-process logs (one thread, from memory; one event a millisecond, each process's clock off by"
                + " up to skew_ms; the merge as a ratio to the whole trace validated in the same run, best of %d; orders: those followed to"
                + " their end or first rejection; states/ev: mirror steps per event)%n", quick ? 1 : 3);
        out.printf(Locale.ROOT, "  %-34s %8s %5s %-9s %9s %12s %8s %10s %9s %7s %6s%n", "run", "events", "skew", "verdict", "merge s",
                "events/s", "x whole", "orders", "states/ev", "peak", "cut");
        java.util.List<Object[]> runs = new java.util.ArrayList<>();
        for (lumen.runtime.Scenario sc : lumen.runtime.Scenarios.all()) {
            // two valid runs, and a zombie's page a holder took (every order rejected: the breadth-first search proves it)
            if (sc.name().equals("single-failure-restore") || sc.name().equals("failure-during-handover")
                    || sc.name().equals("corrupt-zombie-page-stored")) {
                runs.add(new Object[] {"scenario " + sc.name(), lumen.runtime.ScenarioRun.run(sc).trace()});
            }
        }
        for (long n : quick ? new long[] {5_000, 20_000} : new long[] {5_000, 100_000}) {
            lumen.core.Config c = new lumen.core.Config("lumen", 4, 1, 1, 64, 32, 1 << 20, 16, 4);
            byte[] run = lumen.trace.SyntheticTrace.toBytes(lumen.trace.SyntheticTrace.Spec.of(c, n), 2);
            runs.add(new Object[] {"synthetic, 4 workers", run});
            // the same run with one token wrong nine tenths of the way in: every order is rejected there, which the search must show
            String[] lines = new String(run, java.nio.charset.StandardCharsets.UTF_8).split("\n");
            int at = lines.length * 9 / 10;
            while (!lines[at].contains("\"type\":\"Decode\"")) {
                at++;
            }
            lines[at] = lines[at].replaceFirst("\"tokens\":\\[([0-9]+)", "\"tokens\":[1$1");
            runs.add(new Object[] {"  the same, a late token wrong", (String.join("\n", lines) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)});
        }
        for (Object[] run : runs) {
            byte[] whole = (byte[]) run[1];
            for (double skew : new double[] {0, 2, 5}) {
                java.util.Map<String, String> logs = lumen.validate.ProcessLogs.splitWallClock(whole, skew, 1, new java.util.Random(1));
                java.util.List<byte[]> files = new java.util.ArrayList<>();
                java.util.List<String> names = new java.util.ArrayList<>();
                logs.forEach((p, t) -> {
                    files.add(t.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    names.add(p + ".jsonl");
                });
                double merge = Double.MAX_VALUE;
                double base = Double.MAX_VALUE;
                lumen.validate.ProcessLogs.Result r = null;
                long events = 0;
                for (int i = 0; i < (quick ? 1 : 3); i++) {
                    long t0 = System.nanoTime();
                    lumen.validate.ValidationResult w = lumen.validate.Validator.validate(whole, "whole", lumen.validate.Validator.Options.defaults());
                    base = Math.min(base, (System.nanoTime() - t0) / 1e9);
                    events = w.events();
                    t0 = System.nanoTime();
                    r = lumen.validate.ProcessLogs.validate(files, names, lumen.validate.Validator.Options.defaults());
                    merge = Math.min(merge, (System.nanoTime() - t0) / 1e9);
                }
                lumen.validate.WallClockLogs.Search s = r.wall();
                out.printf(Locale.ROOT, "  %-34s %,8d %5s %-9s %9.2f %,12.0f %8.1f %,10d %9.2f %7d %6s%n", run[0], events,
                        lumen.validate.WallClockLogs.num(skew), r.result().verdict(), merge, events / merge, merge / base, s.orders(),
                        (double) s.states() / Math.max(1, s.events()), s.peak(), s.cut() ? "after " + s.cutAfter() : "no");
                out.flush();
            }
        }
    }

    /** Events per second of the mirror on one trace in memory, best of three; the search's candidate figures in {@code stats[0]}. */
    private static double rate(byte[] trace, String[] stats) throws IOException {
        double best = 0;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            lumen.validate.ValidationResult r = lumen.validate.Validator.validate(trace, "bench", lumen.validate.Validator.Options.defaults());
            double secs = (System.nanoTime() - t0) / 1e9;
            if (r.verdict() != lumen.validate.Verdict.ACCEPTED) {
                throw new IllegalStateException("the benchmark trace must be valid: " + r.verdict() + " " + r.divergence() + " " + r.notes());
            }
            best = Math.max(best, r.events() / secs);
            if (stats == null) {
                continue;
            }
            for (String n : r.notes()) {
                java.util.regex.Matcher m = CANDIDATES.matcher(n);
                if (m.find()) {
                    stats[0] = "candidates: peak " + m.group(1) + ", mean " + m.group(2);
                }
            }
        }
        return best;
    }

    private void sim(PrintWriter out) throws Exception {
        Collection<RunResult> rs = new Runner(jmh(lumen.bench.SimulatorBench.class).build()).run();
        out.println();
        out.println("Simulator throughput (JMH, one thread; 120 s of Poisson arrivals at 0.5 req/s per worker, a quarter failing at 40 s, LUMEN)");
        for (String w : new String[] {"8", "64"}) {
            lumen.bench.SimulatorBench b = new lumen.bench.SimulatorBench();
            b.workers = Integer.parseInt(w);
            b.setup();
            long events = b.eventsPerRun();
            double runs = score(rs, "run", w);
            out.printf(Locale.ROOT, "  %3s workers: %.2f runs/s x %,d events = %,.0f events/s%n", w, runs, events, runs * events);
        }
        lumen.sim.Preset p = lumen.sim.Preset.LLAMA3_70B;
        java.util.List<lumen.runtime.Arrival> arrivals = new lumen.sim.AzureReplay("conv", 1).arrivals(3_600_000, new java.util.SplittableRandom(1));
        int[] victims = new int[16];
        for (int i = 0; i < 16; i++) {
            victims[i] = i * 4;
        }
        lumen.core.Config c = new lumen.core.Config("lumen", 64, 1, 1000, 50_000, 256, p.budgetPositions(), 16, 4);
        lumen.sim.ProfiledCostModel cost = p.costModel();
        double[] idle = timed(() -> new lumen.sim.Simulator(new lumen.sim.Simulator.Options(c, cost, 1024, 64, 0.7, 1), null)
                .run(arrivals, java.util.List.of(new lumen.sim.SimResult.Failure(1_200_000, victims))));
        double idleLoad = arrivals.size() / 3600.0 / ReproduceCommand.rate(p, ReproduceCommand.presetHw(p), 64, 1.0);
        out.printf(Locale.ROOT, "64-worker Llama-3-70B-like preset, whole Azure conv trace (%,d requests, one hour: %.1f%% of the cluster's capacity"
                + " by the reproduction's load rule), 16 workers failing at 20 min, LUMEN:%n"
                + "  %.1f s wall on one thread (target: under 10 s), %,.0f events (%,.0f events/s), peak heap %.0f MB (of %.0f MB max)%n",
                arrivals.size(), 100 * idleLoad, idle[0], idle[1], idle[1] / idle[0], idle[2] / 1e6, Runtime.getRuntime().maxMemory() / 1e6);
        out.flush();
        // Table 1's load: the reproduction's 64-worker row (80% of capacity, Gamma arrivals with the trace's CV and lengths)
        java.util.List<String> o = new java.util.ArrayList<>(ReproduceCommand.workload(p, ReproduceCommand.presetHw(p), 64, 180, TABLE1_LOAD, ReproduceCommand.Draw.of(1, 40, 80)));
        o.addAll(java.util.List.of("full_load_s=8", "preset=" + p.key, "workers=64", "duration_s=180", "fail_at_s=60", "fail_fraction=0.25",
                "policies=lumen", "seed=1"));
        lumen.sim.SimConfig.Experiment e = lumen.sim.SimConfig.load(null, null, o).expand().get(0);
        java.util.List<lumen.runtime.Arrival> busy = e.arrivals();
        double[] full = timed(() -> new lumen.sim.Simulator(e.options("lumen"), null).run(busy, e.failures()));
        out.printf(Locale.ROOT, "the same preset at Table 1's load (%.0f%% of capacity: %,d requests in 180 s, %.1f req/s), 16 workers failing at"
                + " 60 s, LUMEN:%n  %.1f s wall on one thread, %,.0f events (%,.0f events/s), peak heap %.0f MB; %.1f times the events of the"
                + " hour above in %.1f times its wall time%n",
                100 * TABLE1_LOAD, busy.size(), busy.size() / 180.0, full[0], full[1], full[1] / full[0], full[2] / 1e6, full[1] / idle[1],
                full[0] / idle[0]);
        out.flush();
    }

    /** The load of Table 1 in docs/reproduction.md (the 4-worker prototype's calibrated load, held per worker up to 64). */
    static final double TABLE1_LOAD = 0.80;

    /** One simulation, after a GC: {wall seconds, events, peak heap bytes}. */
    private static double[] timed(java.util.concurrent.Callable<lumen.sim.SimResult> run) throws Exception {
        System.gc();
        for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            pool.resetPeakUsage();
        }
        long t0 = System.nanoTime();
        lumen.sim.SimResult r = run.call();
        double secs = (System.nanoTime() - t0) / 1e9;
        long peak = 0;
        for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return new double[] {secs, r.events, peak};
    }

    /**
     * TLC's trace-validation time against trace length, next to the Java mirror's on the same
     * traces, each written in trace contract v1 (claims only) and v2 (with the KV content), so
     * the cost of checking content is a ratio measured in the same run.
     */
    private void tlc(PrintWriter out) throws Exception {
        long[] lengths = quick ? new long[] {250, 1_000} : new long[] {250, 1_000, 4_000, 16_000};
        Path work = java.nio.file.Files.createTempDirectory("lumen-bench-tlc");
        lumen.tracecheck.TlcTraceCheck tlc = new lumen.tracecheck.TlcTraceCheck(KitPaths.specDir(null), work, java.time.Duration.ofMinutes(30));
        out.printf(java.util.Locale.ROOT, "%8s %9s %9s %9s %7s %11s %11s %7s  %s%n", "events", "requests", "TLC v1 s", "TLC v2 s", "v2/v1",
                "mirror v1", "mirror v2", "v2/v1", "verdicts (mirror / TLC, v1 then v2)");
        for (long n : lengths) {
            lumen.core.Config c = new lumen.core.Config("lumen", 4, 1, 1, 20, 16, 4_000, 4, 3);
            lumen.trace.SyntheticTrace.Spec sp = new lumen.trace.SyntheticTrace.Spec(c, n, 2, 16, 24, 400, 7);
            double[] tlcS = new double[2];
            double[] mirrorMs = new double[2];
            String verdicts = "";
            long events = 0;
            long requests = 0;
            for (int v = 1; v <= 2; v++) {
                byte[] trace = lumen.trace.SyntheticTrace.toBytes(sp, v);
                // the mirror's best of three (it is fast enough that one run is mostly JIT warm-up)
                lumen.validate.ValidationResult j = null;
                mirrorMs[v - 1] = Double.MAX_VALUE;
                for (int k = 0; k < 3; k++) {
                    long t0 = System.nanoTime();
                    j = lumen.validate.Validator.validate(new java.io.ByteArrayInputStream(trace), "synthetic");
                    mirrorMs[v - 1] = Math.min(mirrorMs[v - 1], (System.nanoTime() - t0) / 1e6);
                }
                lumen.tracecheck.TlcTraceCheck.Result r = tlc.check(new java.io.ByteArrayInputStream(trace), "synthetic", "bench" + n + "v" + v);
                tlcS[v - 1] = r.tlcTime().toMillis() / 1000.0;
                verdicts += (v == 1 ? "" : ", ") + j.verdict() + " / " + r.verdict();
                events = j.events();
                requests = j.done() + j.open();
            }
            out.printf(java.util.Locale.ROOT, "%8d %9d %9.1f %9.1f %6.2fx %9.1f ms %9.1f ms %6.2fx  %s%n", events, requests, tlcS[0], tlcS[1],
                    tlcS[1] / tlcS[0], mirrorMs[0], mirrorMs[1], mirrorMs[1] / mirrorMs[0], verdicts);
            out.flush();
        }
    }

    /** The kit's readers under mutated inputs of each kind: every count but the verdicts' must be 0. */
    private int fuzzReader(PrintWriter out) {
        if (count < 1) {
            throw new UserError("--count must be at least 1");
        }
        java.util.List<lumen.fuzz.InputKind> kinds;
        try {
            kinds = kind.equals("all") ? lumen.fuzz.InputKind.all() : java.util.List.of(lumen.fuzz.InputKind.of(kind));
        } catch (IllegalArgumentException ex) {
            throw new UserError("--kind: " + ex.getMessage() + " or all");
        }
        java.util.List<lumen.fuzz.Generator> gens = lumen.fuzz.FuzzBases.generators(kinds, 12, seed);
        out.printf(Locale.ROOT, "Reader fuzz: %,d mutated inputs (seed %d) of %s, from %d accepted base inputs, each through the kit's"
                + " readers on a worker thread with a 10 s limit%n", count, seed,
                String.join(", ", kinds.stream().map(k -> k.label()).toList()), gens.stream().mapToInt(lumen.fuzz.Generator::bases).sum());
        out.flush();
        lumen.fuzz.ReaderFuzz.Report r;
        try (me.tongfei.progressbar.ProgressBar bar = System.console() == null ? null
                : new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("fuzz-reader").setInitialMax(count).setUnit(" inputs", 1)
                        .setStyle(me.tongfei.progressbar.ProgressBarStyle.ASCII)
                        .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            r = lumen.fuzz.ReaderFuzz.run(gens, lumen.fuzz.ReaderFuzz.Options.of(count, seed), lumen.fuzz.ReaderFuzz.READERS, n -> {
                if (bar != null) {
                    bar.stepTo(n);
                }
            });
        }
        out.print(r.text());
        out.println(r.clean() ? "no stack trace, no hang, no malformed input accepted, no tolerated input refused"
                : "FAILED: some count above is not 0 (the first case of each rule is listed)");
        out.flush();
        return r.clean() ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }

    private void heap(PrintWriter out) throws IOException {
        if (sizeMb < 1) {
            throw new UserError("--size-mb must be at least 1");
        }
        Path d = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(d);
        Path file = Files.createTempFile(d, "lumen-heap-", ".jsonl");
        try {
            out.printf(Locale.ROOT, "%nWriting a %d MB synthetic trace to %s ...%n", sizeMb, file);
            out.flush();
            long events = ValidatorHeap.write(file, sizeMb << 20, 8);
            ValidatorHeap.Result r = ValidatorHeap.measure(file);
            out.printf(Locale.ROOT, "Validated %,d bytes (%,d events) in %.1f s (%,.0f events/s): %s%n", r.bytes(), r.events(),
                    r.seconds(), r.events() / r.seconds(), r.verdict());
            out.printf(Locale.ROOT, "Peak heap used while validating: %.1f MB (max heap %.0f MB; target < 256 MB for a 1 GB trace)%n",
                    r.peakHeapBytes() / 1048576.0, r.maxHeapBytes() / 1048576.0);
            if (events != r.events()) {
                out.println("note: the validator read " + r.events() + " events of " + events + " written");
            }
        } finally {
            Files.deleteIfExists(file);
        }
        out.flush();
    }
}
