package lumen.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.core.Config;
import lumen.core.Policies;
import lumen.runtime.Arrival;
import lumen.sim.AzureReplay;
import lumen.sim.Preset;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;
import lumen.sim.Simulator;
import lumen.sim.SyntheticWorkload;
import lumen.sim.Workload;
import lumen.spec.io.AtomicFiles;
import lumen.workload.Lengths;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lumen simulate}: recovery policies compared on a simulated cluster. */
@Command(name = "simulate",
        mixinStandardHelpOptions = true,
        description = {"Simulates a serving cluster on the decision core: a workload, a failure of a fraction of the workers,"
                + " each policy in turn (and once without the failure, the baseline), in parallel.",
            "Prints TTFT and TPOT (mean / p50 / p99) in the failure-impact window, for all requests, the interrupted ones and"
                + " the survivors', and the recovery time (until TTFT and TPOT are back within 10% of the baseline)."})
final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--preset", paramLabel = "P", description = "qwen3-32b-4w, qwen3-14b-8w or llama3-70b (default: ${DEFAULT-VALUE})")
    String preset = "qwen3-32b-4w";

    @Option(names = "--workers", paramLabel = "N", description = "cluster size (default: the preset's)")
    Integer workers;

    @Option(names = "--policy", paramLabel = "P", split = ",", description = "policies to compare (default: stop-and-restart,fixed-checkpointing,lumen)")
    List<String> policies = new ArrayList<>(List.of("stop-and-restart", "fixed-checkpointing", "lumen"));

    @Option(names = "--workload", paramLabel = "W", description = "azure-conv, azure-code, poisson or gamma (default: ${DEFAULT-VALUE})")
    String workload = "azure-conv";

    @Option(names = "--rate", paramLabel = "RPS", description = "poisson/gamma: requests per second (default: ${DEFAULT-VALUE})")
    double rate = 4;

    @Option(names = "--cv", paramLabel = "CV", description = "gamma: coefficient of variation of inter-arrivals (default: ${DEFAULT-VALUE})")
    double cv = 2;

    @Option(names = "--lengths", paramLabel = "L", description = "poisson/gamma lengths: sharegpt, arxiv, azure_conv, azure_code (default: ${DEFAULT-VALUE})")
    String lengths = "sharegpt";

    @Option(names = "--rate-scale", paramLabel = "X", description = "azure: time compression, >1 is more requests per second (default: ${DEFAULT-VALUE})")
    double rateScale = 1;

    @Option(names = "--duration-s", paramLabel = "S", description = "arrivals for this long (default: ${DEFAULT-VALUE})")
    double durationS = 300;

    @Option(names = "--fail-at-s", paramLabel = "S", description = "when the workers fail (default: ${DEFAULT-VALUE})")
    double failAtS = 100;

    @Option(names = "--fail-fraction", paramLabel = "F", description = "fraction of the workers that fail together, at least one (default: ${DEFAULT-VALUE})")
    double failFraction = 0.25;

    @Option(names = "--alpha", description = "Eq. 4 weight of checkpointed positions (default: ${DEFAULT-VALUE})")
    double alpha = 1;

    @Option(names = "--beta", description = "Eq. 4 weight of queue depth (default: ${DEFAULT-VALUE})")
    double beta = 1000;

    @Option(names = "--theta", description = "Eq. 6 load threshold (default: ${DEFAULT-VALUE})")
    double theta = 50_000;

    @Option(names = "--tau", description = "Eq. 6 prefix threshold, positions (default: ${DEFAULT-VALUE})")
    int tau = 256;

    @Option(names = "--k", description = "draft length (default: ${DEFAULT-VALUE})")
    int k = 4;

    @Option(names = "--draft-acceptance", paramLabel = "A", description = "probability a draft token agrees (default: ${DEFAULT-VALUE})")
    double draftAcceptance = 0.7;

    @Option(names = "--chunk", paramLabel = "T", description = "chunked-prefill tokens per iteration (default: ${DEFAULT-VALUE})")
    int chunk = 1024;

    @Option(names = "--max-batch", paramLabel = "B", description = "requests decoded per iteration (default: ${DEFAULT-VALUE})")
    int maxBatch = 64;

    @Option(names = "--seed", description = "seed (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--out", paramLabel = "DIR", description = "write the summary and per-request CSV there (atomically)")
    Path out;

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        PrintWriter pw = spec.commandLine().getOut();
        Preset p;
        try {
            p = Preset.of(preset);
        } catch (IllegalArgumentException ex) {
            throw new UserError(ex.getMessage());
        }
        for (String pol : policies) {
            if (Policies.find(pol) == null) {
                throw new UserError("unknown policy '" + pol + "'; known: " + String.join(", ", Policies.keys()));
            }
        }
        int w = workers == null ? p.defaultWorkers : workers;
        if (w < 2 || durationS <= 0 || failFraction <= 0 || failFraction >= 1) {
            throw new UserError("--workers at least 2, --duration-s positive, --fail-fraction strictly between 0 and 1");
        }
        Workload wl = workload();
        List<Arrival> arrivals = wl.arrivals(durationS * 1000, new SplittableRandom(seed));
        int nFail = Math.max(1, (int) Math.round(failFraction * w));
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < w; i++) {
            ids.add(i);
        }
        java.util.Collections.shuffle(ids, new java.util.Random(seed));
        int[] victims = ids.subList(0, nFail).stream().mapToInt(Integer::intValue).sorted().toArray();
        SimResult.Failure failure = new SimResult.Failure(failAtS * 1000, victims);
        pw.printf(Locale.ROOT, "%s, %d workers, %s: %d requests in %.0f s; workers %s fail at %.0f s%n", p.key, w, wl.name(), arrivals.size(),
                durationS, Arrays.toString(victims), failAtS);
        pw.flush();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        try {
            List<Future<SimResult>> runs = new ArrayList<>();
            runs.add(pool.submit(() -> simulate(p, w, policies.get(0), arrivals, List.of())));
            for (String pol : policies) {
                runs.add(pool.submit(() -> simulate(p, w, pol, arrivals, List.of(failure))));
            }
            SimResult baseline = runs.get(0).get();
            List<SimMetrics.Summary> rows = new ArrayList<>();
            rows.add(SimMetrics.summarize("baseline (no failure)", baseline, baseline));
            double wall = baseline.wallSeconds;
            long events = baseline.events;
            for (int i = 0; i < policies.size(); i++) {
                SimResult r = runs.get(i + 1).get();
                wall += r.wallSeconds;
                events += r.events;
                rows.add(SimMetrics.summarize(policies.get(i), r, baseline));
                if (out != null) {
                    StringWriter csv = new StringWriter();
                    SimMetrics.writeCsv(r, policies.get(i), csv);
                    Files.createDirectories(out);
                    AtomicFiles.writeString(out.resolve("requests-" + policies.get(i) + ".csv"), csv.toString());
                }
            }
            pw.print(SimMetrics.table(rows));
            if (out != null) {
                java.util.Map<String, SimResult> timeline = lumen.plots.SimPlots.ordered();
                java.util.Map<String, List<SimResult.Req>> cdf = lumen.plots.SimPlots.ordered();
                timeline.put("no failure", baseline);
                for (int i = 0; i < policies.size(); i++) {
                    SimResult r = runs.get(i + 1).get();
                    timeline.put(policies.get(i), r);
                    cdf.put(policies.get(i), lumen.plots.SimPlots.inWindow(r, rows.get(i + 1)));
                }
                double from = Math.max(0, failure.atMs() - 30_000);
                double to = Math.min(durationS * 1000, failure.atMs() + 120_000);
                lumen.plots.SimPlots.timeline(timeline, failure.atMs(), from, to, out, "timeline");
                lumen.plots.SimPlots.ttftCdf(cdf, out, "ttft-cdf");
            }
            pw.printf(Locale.ROOT, "%d simulated runs, %,d spec events, %.1f s of simulation (%.0f events/s)%n", rows.size(), events, wall, events / wall);
            long unfinished = 0;
            for (Future<SimResult> f : runs) {
                unfinished += f.get().requests.stream().filter(q -> Double.isNaN(q.doneMs)).count() + arrivals.size() - f.get().requests.size();
            }
            if (unfinished > 0) {
                pw.println("FAILED: " + unfinished + " requests did not complete");
                pw.flush();
                return ExitCodes.DISAGREEMENT;
            }
            if (out != null) {
                AtomicFiles.writeString(out.resolve("summary.txt"), SimMetrics.table(rows));
                pw.println("written to " + out);
            }
        } finally {
            pool.shutdown();
        }
        pw.flush();
        return ExitCodes.OK;
    }

    private SimResult simulate(Preset p, int w, String policy, List<Arrival> arrivals, List<SimResult.Failure> failures) {
        Config c = new Config(policy, w, alpha, beta, theta, tau, p.budgetPositions(), 16, k);
        return new Simulator(new Simulator.Options(c, p.costModel(), chunk, maxBatch, draftAcceptance, seed), null).run(arrivals, failures);
    }

    private Workload workload() {
        try {
            return switch (workload) {
                case "azure-conv" -> new AzureReplay("conv", rateScale);
                case "azure-code" -> new AzureReplay("code", rateScale);
                case "poisson" -> new SyntheticWorkload(rate, 1, Lengths.Source.valueOf(lengths.toUpperCase(Locale.ROOT)));
                case "gamma" -> new SyntheticWorkload(rate, cv, Lengths.Source.valueOf(lengths.toUpperCase(Locale.ROOT)));
                default -> throw new UserError("unknown workload '" + workload + "'; choose azure-conv, azure-code, poisson or gamma");
            };
        } catch (IllegalArgumentException ex) {
            throw new UserError(ex.getMessage());
        }
    }
}
