package lumen.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.spec.io.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lumen scenarios}: runs the named reference scenarios through the runtime and validates their traces. */
@Command(name = "scenarios",
        mixinStandardHelpOptions = true,
        description = {"Runs the named reference scenarios through the cluster runtime (real paged KV, fault injection,"
                + " draft assist), validates each trace, and checks it against the scenario's expected verdict.",
            "With no NAME, runs them all; --list shows them."})
final class ScenariosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", arity = "0..*", description = "scenarios to run (default: all)")
    List<String> names = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", description = "write each scenario's trace to DIR/NAME.jsonl and what its clients saw to DIR/NAME.history.jsonl (docs/history-format.md)")
    Path outDir;

    @Option(names = "--per-process", description = "with --out, also write each scenario's trace as per-process logs with vector"
            + " clocks, DIR/NAME/gateway.jsonl and DIR/NAME/worker-N.jsonl (lumen validate --processes reads them)")
    boolean perProcess;

    @Option(names = "--wall-clock", paramLabel = "SKEW_MS", description = "with --per-process, the logs carry wall-clock time only, as"
            + " processes whose clocks are up to SKEW_MS apart would write them (one event a millisecond, each process's clock off"
            + " by its own offset, windows around each moment; the header declares skew_ms: SKEW_MS)")
    Double wallSkew;

    @Option(names = "--list", description = "list the scenarios and exit")
    boolean list;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            for (Scenario s : Scenarios.all()) {
                out.printf(Locale.ROOT, "%-32s expect %-8s %s%n", s.name(), s.expectsAcceptance() ? "ACCEPTED" : "REJECTED " + s.expectedProperty().name(), s.description());
            }
            out.flush();
            return ExitCodes.OK;
        }
        List<Scenario> chosen = new ArrayList<>();
        for (String n : names) {
            Scenario s = Scenarios.find(n);
            if (s == null) {
                throw new UserError("unknown scenario '" + n + "'; lumen scenarios --list shows them");
            }
            chosen.add(s);
        }
        if (chosen.isEmpty()) {
            chosen.addAll(Scenarios.all());
        }
        if (wallSkew != null && (!perProcess || !(wallSkew >= 0) || wallSkew.isInfinite())) {
            throw new UserError(perProcess ? "--wall-clock: a skew in ms, 0 or more, not " + wallSkew : "--wall-clock is for --per-process logs");
        }
        return runAll(out, chosen, outDir, perProcess, wallSkew) ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }

    /** Runs the scenarios, prints one row each; true when every one came out as expected. */
    static boolean runAll(PrintWriter out, List<Scenario> scenarios, Path outDir) throws IOException {
        return runAll(out, scenarios, outDir, false, null);
    }

    /** As {@link #runAll(PrintWriter, List, Path)}, with each trace also as per-process logs under {@code outDir}. */
    static boolean runAll(PrintWriter out, List<Scenario> scenarios, Path outDir, boolean perProcess, Double wallSkew) throws IOException {
        boolean ok = true;
        out.printf(Locale.ROOT, "%-32s %-9s %-24s %7s %8s %8s %7s %7s  %s%n", "scenario", "verdict", "expected",
                "events", "restores", "reprefil", "drafts", "ms", "result");
        for (Scenario s : scenarios) {
            long t0 = System.nanoTime();
            ScenarioRun run = ScenarioRun.run(s);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (outDir != null) {
                Files.createDirectories(outDir);
                AtomicFiles.writeString(outDir.resolve(s.name() + ".jsonl"), new String(run.trace(), java.nio.charset.StandardCharsets.UTF_8));
                AtomicFiles.writeString(outDir.resolve(s.name() + ".history.jsonl"), new String(run.history(), java.nio.charset.StandardCharsets.UTF_8));
                if (perProcess) {
                    Files.createDirectories(outDir.resolve(s.name()));
                    var logs = wallSkew == null ? lumen.validate.ProcessLogs.split(run.trace())
                            : lumen.validate.ProcessLogs.splitWallClock(run.trace(), wallSkew, 1, new java.util.Random(1));
                    for (var log : logs.entrySet()) {
                        AtomicFiles.writeString(outDir.resolve(s.name()).resolve(log.getKey() + ".jsonl"), log.getValue());
                    }
                }
            }
            String got = run.result().verdict().name();
            String at = "";
            if (run.result().divergence() != null) {
                got += " " + (run.result().divergence().finding().property() == null ? "-" : run.result().divergence().finding().property().name());
                at = " (rejected at line " + run.result().divergence().line() + ")";
            }
            // the events the runtime wrote (the whole trace), not the ones validated before a rejection
            out.printf(Locale.ROOT, "%-32s %-9s %-24s %7d %8d %8d %7d %7.0f  %s%n", s.name(), got,
                    s.expectsAcceptance() ? "ACCEPTED" : "REJECTED " + s.expectedProperty().name(),
                    traceEvents(run.trace()), run.stats().restores, run.stats().reprefills, run.stats().draftsDelivered, ms,
                    (run.passed() ? "ok" : "FAILED: " + String.join("; ", run.problems())) + at);
            ok &= run.passed();
        }
        out.flush();
        return ok;
    }

    /** The events of a trace: its lines after the header. */
    static long traceEvents(byte[] trace) {
        long lines = 0;
        for (byte b : trace) {
            if (b == '\n') {
                lines++;
            }
        }
        if (trace.length > 0 && trace[trace.length - 1] != '\n') {
            lines++;
        }
        return Math.max(0, lines - 1);
    }
}
