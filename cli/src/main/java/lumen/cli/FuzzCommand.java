package lumen.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import lumen.core.Policies;
import lumen.props.CoreRunner;
import lumen.props.Harness;
import lumen.props.PropertyCheck;
import lumen.props.ScheduleGenerator;
import lumen.spec.io.AtomicFiles;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lumen fuzz}: the property harness for as long as asked, in parallel. */
@Command(name = "fuzz",
        mixinStandardHelpOptions = true,
        description = {"Runs random failure schedules through the cluster runtime for --minutes, checking every"
                + " property after every step, on --workers threads (seeds are sharded between them).",
            "On the first failure: shrinks it, prints the seed and the minimal schedule, writes them to --out"
                + " (atomically) and exits 1."})
final class FuzzCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--minutes", paramLabel = "N", description = "how long to run (default: ${DEFAULT-VALUE})")
    double minutes = 1;

    @Option(names = "--workers", paramLabel = "N", description = "parallel threads (default: the cores, ${DEFAULT-VALUE})")
    int workers = Math.max(1, Runtime.getRuntime().availableProcessors());

    @Option(names = "--seed", paramLabel = "S", description = "first seed (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--out", paramLabel = "FILE", description = "where a failure is written (default: ${DEFAULT-VALUE})")
    Path out = Path.of("lumen-fuzz-failure.txt");

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    boolean quiet;

    @Option(names = "--core", description = "run each schedule on the decision core alone (random interleavings, no"
            + " runtime timing or data plane) instead of the cluster runtime")
    boolean core;

    @Override
    public Integer call() throws Exception {
        if (minutes <= 0 || workers < 1) {
            throw new UserError("--minutes must be positive and --workers at least 1");
        }
        PrintWriter pw = spec.commandLine().getOut();
        ScheduleGenerator gen = new ScheduleGenerator(Policies.keys()).withGrayFailures(true);
        long deadline = System.nanoTime() + (long) (minutes * 60e9);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<Harness.Result>> parts = new ArrayList<>();
        long t0 = System.nanoTime();
        try (ProgressBar bar = quiet || System.console() == null ? null
                : new ProgressBarBuilder().setTaskName("fuzz").setInitialMax((long) (minutes * 60)).setUnit(" s", 1)
                        .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            for (int i = 0; i < workers; i++) {
                long first = seed + i;
                parts.add(pool.submit(() -> {
                    Harness.Result r = Harness.run(gen, first, workers, Long.MAX_VALUE, deadline, stop::get,
                            core ? CoreRunner::run : PropertyCheck::run);
                    if (r.failure != null) {
                        stop.set(true);
                    }
                    return r;
                }));
            }
            while (parts.stream().anyMatch(f -> !f.isDone())) {
                Thread.sleep(500);
                if (bar != null) {
                    bar.stepTo(Math.min(bar.getMax(), (System.nanoTime() - t0) / 1_000_000_000L));
                }
            }
        } finally {
            pool.shutdown();
        }
        Harness.Result total = new Harness.Result();
        Harness.Failure failure = null;
        for (Future<Harness.Result> f : parts) {
            Harness.Result r = f.get();
            total.schedules += r.schedules;
            total.events += r.events;
            r.coverage.forEach((k, v) -> total.coverage.merge(k, v, Long::sum));
            if (r.failure != null && (failure == null || r.failure.seed() < failure.seed())) {
                failure = r.failure;
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        pw.print(total.coverageTable());
        pw.printf(Locale.ROOT, "%s, %.1f s on %d threads: %.0f schedules/s, %.0f events/s%n", core ? "core alone" : "runtime", secs, workers,
                total.schedules / secs, total.events / secs);
        if (failure != null) {
            pw.print(failure.report());
            AtomicFiles.writeString(out, failure.report());
            pw.println("written to " + out);
            pw.flush();
            return ExitCodes.DISAGREEMENT;
        }
        pw.println("no property failed");
        pw.flush();
        return ExitCodes.OK;
    }
}
