package lumen.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import lumen.conform.ConformReport;
import lumen.conform.Conformance;
import lumen.conform.sut.Mutants;
import lumen.core.Policies;
import lumen.core.Readings;
import lumen.spec.io.AtomicFiles;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lumen conform}: conformance testing of a LUMEN implementation through the adapter protocol. */
@Command(name = "conform",
        mixinStandardHelpOptions = true,
        description = {"Drives a system under test with generated failure schedules through the adapter protocol"
                + " (JSON Lines on its standard input and output; docs/conformance.md), validates its trace against the"
                + " spec (every property, KV content, bounded fairness), judges every output against the kit's own reference,"
                + " requires a finished run (else INCOMPLETE), and shrinks the first"
                + " failure to a minimal schedule, which is then replayed in a fresh process of the system (as is the"
                + " first failing schedule) and reported as a reproducer only if it fails the same way there.",
            "--sut reference runs the kit's own adapter around the reference implementation; --mutants runs it and"
                + " every shipped mutant implementation and prints the kill table.",
            "Exit status: 0 pass, 1 a property failed or the system misbehaved (timeout, crash, garbage, flood),"
                + " 2 bad input."})
final class ConformCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    static final class Target {
        @Option(names = "--sut", paramLabel = "COMMAND", description = "the system's command line, run with /bin/sh -c;"
                + " 'reference' for the reference adapter, 'mutant:NAME' for a shipped mutant")
        String sut;

        @Option(names = "--mutants", description = "check the reference adapter and every shipped mutant; print the kill table")
        boolean mutants;

        @Option(names = "--live", paramLabel = "URL", description = "a live system: drive the OpenAI-compatible endpoint at URL"
                + " (http://host:port) with a workload and faults, and judge what its clients saw (docs/serve.md)")
        String live;

        @Option(names = "--live-mutants", description = "run lumen serve and each of its seeded distributed bugs on loopback, each"
                + " with the same workload and kill -9; print which check caught each")
        boolean liveMutants;
    }

    @picocli.CommandLine.Mixin
    LiveOptions liveOptions = new LiveOptions();

    @ArgGroup(multiplicity = "1")
    Target target;

    @Option(names = "--schedules", paramLabel = "N", description = "schedules to run (default: 50; with --mutants, 200 for each"
            + " implementation, which the rarest of the shipped bugs needs)")
    Integer schedules;

    @Option(names = "--seed", paramLabel = "S", description = "first seed (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--policy", paramLabel = "P", split = ",", description = "the policies the system implements, as in the"
            + " trace header (default: lumen)")
    List<String> policies = new ArrayList<>(List.of("lumen"));

    @Option(names = "--reading", paramLabel = "NAME=VALUE", description = {"a reading of the paper the system implements"
            + " where the paper can be read two ways (docs/readings.md); repeat for several. Readings: ${lumen.readings}."
            + " Default: the first value of each"})
    private List<String> readingArgs = new ArrayList<>();

    @Option(names = "--step-timeout-ms", paramLabel = "MS", description = "time for the system to answer one command (default: ${DEFAULT-VALUE})")
    long stepTimeoutMs = 10_000;

    @Option(names = "--run-timeout-s", paramLabel = "S", description = "time for one whole schedule (default: ${DEFAULT-VALUE})")
    long runTimeoutS = 60;

    @Option(names = "--shrink-runs", paramLabel = "N", description = "runs of the system spent shrinking a failure (default: ${DEFAULT-VALUE})")
    int shrinkRuns = 300;

    @Option(names = "--fresh-process", description = "start a new process of the system for every run, shrinking included,"
            + " not only for the final replays (slower; for a system whose outcome depends on its earlier runs)")
    boolean freshProcess;

    @Option(names = "--reference", paramLabel = "R", description = {"whose output every request is judged against, never the"
            + " system's own: token-model (the kit's token model, for a synthetic model) or equivalence (the same system's"
            + " failure-free run of each schedule, for a real model) (default: ${DEFAULT-VALUE})"})
    String referenceMode = "token-model";

    @Option(names = "--kv-equivalence", description = "with --reference equivalence: hold every page digest to the digest the same"
            + " system reported for the same positions in its failure-free run (a deterministic model writes the same KV whatever"
            + " the failures); a model whose kernels depend on the batch is not deterministic in this sense")
    boolean kvEquivalence;

    @Option(names = "--require-coverage", description = "a feature no schedule exercised (a holder failure, a restore, a"
            + " re-prefill, ...) fails the run; with --live, a drill whose faults interrupted no request fails")
    boolean requireCoverage;

    @Option(names = "--gray-failures", description = "one failure in two is gray: a pause (the worker declared failed and woken"
            + " later with its old state) or a partition from the gateway (declared failed, it works on, its writes to the gateway"
            + " delayed to the heal or lost), a zombie whose every late write the system must refuse (S18, S19);"
            + " the adapter must implement pause and partition (docs/conformance.md)")
    boolean grayFailures;

    @Option(names = "--fairness-steps", paramLabel = "N", description = "the bound of the finite-trace fairness checks L3 and L4,"
            + " in a request's decode steps (default: ${DEFAULT-VALUE})")
    int fairnessSteps = lumen.validate.Mirror.DEFAULT_FAIRNESS_STEPS;

    @Option(names = "--json", description = "print a machine-readable report instead of text")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the JSON report to FILE (atomically)")
    Path report;

    @Option(names = "--out", paramLabel = "DIR", description = "on failure, write the reported run's trace and its session,"
            + " by step of the schedule, there (atomically); on a pass nothing is written, and the report says so")
    Path out;

    @Option(names = {"-q", "--quiet"}, description = "no progress bar")
    boolean quiet;

    /** The command that runs a program of the kit in a fresh JVM, with this JVM's class path. */
    static String kitProgram(String mainClass) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return quote(java) + " -XX:TieredStopAtLevel=1 -cp " + quote(System.getProperty("java.class.path")) + " " + mainClass;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    static String resolve(String sut) {
        if (sut.equals("reference")) {
            return kitProgram("lumen.conform.sut.Adapter");
        }
        if (sut.startsWith("mutant:")) {
            String name = sut.substring("mutant:".length());
            for (Mutants m : Mutants.values()) {
                if (m.programName().equals(name)) {
                    return kitProgram(m.mainClass());
                }
            }
            throw new UserError("no shipped mutant '" + name + "'; they are: "
                    + String.join(", ", java.util.Arrays.stream(Mutants.values()).map(Mutants::programName).toList()));
        }
        return sut;
    }

    private Conformance.Options options(String sut) {
        int schedules = this.schedules != null ? this.schedules : target == null || target.mutants ? 200 : 50;
        if (schedules < 1 || stepTimeoutMs < 1 || runTimeoutS < 1 || shrinkRuns < 0) {
            throw new UserError("--schedules, --step-timeout-ms and --run-timeout-s must be positive, --shrink-runs not negative");
        }
        for (String p : policies) {
            if (Policies.find(p) == null) {
                throw new UserError("unknown policy '" + p + "'; known: " + String.join(", ", Policies.keys()));
            }
        }
        Conformance.Reference ref = switch (referenceMode) {
            case "token-model" -> Conformance.Reference.TOKEN_MODEL;
            case "equivalence" -> Conformance.Reference.EQUIVALENCE;
            default -> throw new UserError("--reference must be token-model or equivalence, found '" + referenceMode + "'");
        };
        if (kvEquivalence && ref != Conformance.Reference.EQUIVALENCE) {
            throw new UserError("--kv-equivalence goes with --reference equivalence: under the token model the kit predicts every"
                    + " digest from its KV content model already");
        }
        if (fairnessSteps < 0) {
            throw new UserError("--fairness-steps must be 0 or more");
        }
        Readings readings = Readings.DEFAULT;
        for (String arg : readingArgs) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new UserError("--reading takes NAME=VALUE, found '" + arg + "'");
            }
            try {
                readings = readings.with(arg.substring(0, eq).trim(), arg.substring(eq + 1).trim());
            } catch (IllegalArgumentException ex) {
                throw new UserError("--reading: " + ex.getMessage());
            }
        }
        return Conformance.Options.defaults(sut).withPolicies(policies).withReadings(readings).withSchedules(seed, schedules)
                .withTimeouts(Duration.ofMillis(stepTimeoutMs), Duration.ofSeconds(runTimeoutS)).withShrinkRuns(shrinkRuns).withFreshProcess(freshProcess)
                .withReference(ref).withRequireCoverage(requireCoverage).withFairnessSteps(fairnessSteps).withKvEquivalence(kvEquivalence)
                .withGrayFailures(grayFailures);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter pw = spec.commandLine().getOut();
        if (target.live != null || target.liveMutants) {
            liveOptions.quiet = quiet;
            liveOptions.requireCoverage = requireCoverage;
            if (!referenceMode.equals("token-model") && !referenceMode.equals("equivalence")) {
                throw new UserError("--reference must be token-model or equivalence, found '" + referenceMode + "'");
            }
            if (kvEquivalence) {
                throw new UserError("--kv-equivalence holds a --sut run's page digests to its failure-free run's; a live drill judges"
                        + " the clients' outputs (and, with --logs, the logs against the spec)");
            }
            if (referenceMode.equals("equivalence") && target.liveMutants) {
                throw new UserError("--reference equivalence goes with --live URL: --live-mutants runs lumen serve, whose outputs the"
                        + " kit's token model predicts");
            }
            liveOptions.equivalence = referenceMode.equals("equivalence");
            return liveOptions.run(target.live, pw);
        }
        if (target.mutants) {
            return killTable(pw, quiet);
        }
        Conformance.Report r = runWithBar(options(resolve(target.sut)), "conform");
        Map<String, Object> doc = ConformReport.json(r);
        if (json) {
            pw.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
        } else {
            pw.print(ConformReport.text(r));
        }
        if (report != null) {
            AtomicFiles.writeString(report, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc) + "\n");
        }
        if (!r.passed() && out != null) {
            writeOut(json ? spec.commandLine().getErr() : pw, r.failure);   // standard output stays one JSON document
        } else if (out != null) {
            (json ? spec.commandLine().getErr() : pw).println("--out " + out + ": nothing written, no run failed"
                    + " (--out keeps the failing run's trace and session only)");
        }
        pw.flush();
        return r.passedWithCoverage() ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }

    /**
     * The reported run's trace and session: minimal-* when the minimal schedule failed again in a
     * fresh process, unshrunk-* when only the unshrunk one did, first-seen-* when neither did.
     */
    private void writeOut(PrintWriter pw, Conformance.Failure f) throws java.io.IOException {
        Files.createDirectories(out);
        String name = switch (f.reproducer()) {
            case MINIMAL -> "minimal";
            case UNSHRUNK -> "unshrunk";
            case NONE -> "first-seen";
        };
        Path t = out.resolve(name + "-trace.jsonl");
        Path s = out.resolve(name + "-session.txt");
        AtomicFiles.writeString(t, new String(f.reported().trace(), java.nio.charset.StandardCharsets.UTF_8));
        AtomicFiles.writeString(s, ConformReport.transcript(f.reported()));
        pw.println((f.reproducible() ? "the " + (name.equals("minimal") ? "minimal" : "unshrunk") + " failing trace, from its fresh replay: "
                : "the failing trace as first seen (not reproducible in a fresh process): ") + t);
        pw.println("its session, by step of the schedule: " + s);
        pw.flush();
    }

    private Conformance.Report runWithBar(Conformance.Options o, String task) {
        return runWithBar(o, task, quiet);
    }

    private static Conformance.Report runWithBar(Conformance.Options o, String task, boolean quiet) {
        try (ProgressBar bar = quiet || System.console() == null ? null
                : new ProgressBarBuilder().setTaskName(task).setInitialMax(o.schedules()).setUnit(" schedules", 1)
                        .setStyle(ProgressBarStyle.ASCII).setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            return new Conformance(o).run(x -> {
                if (bar != null) {
                    bar.step();
                }
            });
        }
    }

    /** The reference adapter must pass; every mutant must be caught with its own property. */
    int killTable(PrintWriter pw, boolean quietBar) throws Exception {
        List<Object> rows = new ArrayList<>();
        boolean ok = true;
        // the reference passes with gray failures too: the schedules the fence mutants are caught on
        Conformance.Report ref = runWithBar(options(resolve("reference")).withGrayFailures(true), "reference", quietBar);
        ok &= ref.passed();
        pw.printf(Locale.ROOT, "%-30s %-10s %-34s %s%n", "implementation", "expected", "verdict", "shrunk schedule");
        pw.printf(Locale.ROOT, "%-30s %-10s %-34s %s%n", "reference", "pass", ref.passed() ? "pass (" + ref.schedules + " schedules)"
                : "FAIL: " + ref.failure.reported().verdictText(), "");
        rows.add(Map.of("implementation", "reference", "expected", "PASS", "verdict", ConformReport.json(ref)));
        for (Mutants m : Mutants.values()) {
            Conformance.Report r = runWithBar(options(kitProgram(m.mainClass())).withPolicies(m.policies()).withReadings(m.claims()).withGrayFailures(m.gray()), m.programName(), quietBar);
            Conformance.Failure f = r.failure;
            boolean right = !r.passed() && f.reported().caughtAs().equals(m.expected());
            boolean caught = right && f.reproducible();
            ok &= caught;
            String shrunk = r.passed() ? "" : String.format(Locale.ROOT, "%s, %s (seed %d, %d shrink runs; %s)",
                    ConformReport.count(f.reportedSchedule().arrivals().size(), "request"),
                    ConformReport.count(f.reportedSchedule().faults().size(), "failure"), f.seed(), f.shrinkRuns(),
                    switch (f.reproducer()) {
                        case MINIMAL -> "confirmed fresh";
                        case UNSHRUNK -> "UNSHRUNK: the shrunk schedule passed fresh";
                        case NONE -> "NOT REPRODUCIBLE in a fresh process";
                    });
            pw.printf(Locale.ROOT, "%-30s %-10s %-34s %s%n", m.programName(), m.expected(),
                    r.passed() ? "SURVIVED " + r.schedules + " schedules" : f.reported().verdictText() + (right ? "" : "  (WRONG PROPERTY)"), shrunk);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("implementation", m.programName());
            row.put("expected", m.expected());
            row.put("caught", caught);
            row.put("report", ConformReport.json(r));
            rows.add(row);
            pw.flush();
        }
        pw.println(ok ? "every mutant caught with its property; the reference passes" : "CHECK FAILED: see the table");
        if (report != null) {
            AtomicFiles.writeString(report, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(Map.of("rows", rows)) + "\n");
        }
        pw.flush();
        return ok ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }
}
