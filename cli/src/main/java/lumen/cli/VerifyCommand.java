package lumen.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import lumen.conform.sut.Mutants;
import lumen.core.Policies;
import lumen.props.Harness;
import lumen.props.ScheduleGenerator;
import lumen.runtime.Scenarios;
import lumen.spec.check.ModelOutcome;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * {@code lumen verify}: the kit's main job on its built-in defaults. Runs every verification stage
 * and prints one summary; exits non-zero when any stage disagrees with its expectation.
 */
@Command(name = "verify",
        mixinStandardHelpOptions = true,
        description = {"Runs the kit's verification stages on built-in defaults and prints a summary.",
            "Stage 1, model-check: every CI model of spec/manifest.json must pass with its recorded state"
                + " count, every mutant must be rejected with its property, and every witness scenario must"
                + " be reached.",
            "Stage 2, scenarios: every named reference scenario runs through the cluster runtime, its trace is"
                + " validated, and each comes out as expected (outputs equal to the failure-free reference,"
                + " bit-exact restores; the corrupted ones rejected by their property).",
            "Stage 3, properties: random failure schedules through the runtime under every reference policy, every"
                + " property checked after every step (a short lumen fuzz).",
            "Stage 4, conformance: the reference adapter must pass lumen conform, and each shipped mutant"
                + " implementation must be caught with its property.",
            "Stage 5, simulation: one failure of a quarter of the workers on the default preset and workload, every"
                + " policy against the no-failure baseline; prints the table and draws the timeline and TTFT CDFs into"
                + " target/verify-sim/ (every request must complete)."})
final class VerifyCommand implements Callable<Integer> {
    /** Stage 3's schedules: a few seconds on one core. */
    static final long PROPERTY_SCHEDULES = 2_000;

    @Spec
    CommandSpec spec;

    @Mixin
    KitOptions kit;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        int workers = kit.workers();
        ModelRuns runs = new ModelRuns(kit.specDir());
        out.println("== stage 1/5: model-check (spec/manifest.json, CI tier) ==");
        out.flush();
        List<ModelOutcome> outcomes = runs.run(runs.select(List.of(), false, false, true), workers,
                Duration.ofMinutes(30), false, Progress.forConsole(kit.quiet));
        ModelRuns.printTable(out, outcomes, false);
        boolean ok = outcomes.stream().allMatch(ModelOutcome::agrees);
        long passing = outcomes.stream().filter(o -> o.entry().expectsPass()).count();
        long mutants = outcomes.stream().filter(o -> o.entry().isMutant()).count();
        long witnesses = outcomes.stream().filter(o -> o.entry().isWitness()).count();
        double checkSeconds = (System.nanoTime() - start) / 1e9;
        out.println();
        out.println("== stage 2/5: scenarios (runtime traces through the validator) ==");
        long t2 = System.nanoTime();
        boolean scenariosOk;
        try {
            scenariosOk = ScenariosCommand.runAll(out, Scenarios.all(), null);
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
        double scenarioSeconds = (System.nanoTime() - t2) / 1e9;
        out.println();
        out.println("== stage 3/5: properties (random failure schedules through the runtime) ==");
        out.flush();
        long t3 = System.nanoTime();
        ScheduleGenerator gen = ScheduleGenerator.withDrawnReadings(Policies.keys()).withGrayFailures(true);
        Harness.Result props = Harness.run(gen, 1, PROPERTY_SCHEDULES);
        out.print(props.coverageTable());
        if (props.failure != null) {
            out.print(props.failure.report());
        }
        boolean propsOk = props.failure == null;
        double propSeconds = (System.nanoTime() - t3) / 1e9;
        out.println();
        out.println("== stage 4/5: conformance (lumen conform --mutants) ==");
        out.flush();
        long t4 = System.nanoTime();
        boolean conformOk;
        try {
            conformOk = new ConformCommand().killTable(out, kit.quiet) == ExitCodes.OK;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        double conformSeconds = (System.nanoTime() - t4) / 1e9;
        out.println();
        out.println("== stage 5/5: simulation (lumen simulate on its defaults, 240 s of the Azure conv trace at 3x, about 80% of the cluster's capacity) ==");
        out.flush();
        long t5 = System.nanoTime();
        SimulateCommand sim = new SimulateCommand();
        sim.spec = spec;
        sim.durationS = "240";
        sim.failAtS = "90";
        sim.rateScale = "3";
        sim.quiet = true;
        sim.out = KitPaths.home().resolve("target").resolve("verify-sim");
        boolean simOk;
        try {
            simOk = sim.call() == ExitCodes.OK;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        double simSeconds = (System.nanoTime() - t5) / 1e9;
        out.println();
        out.printf("verify: model-check %s (%d models, %d mutants, %d witnesses) in %.0f s%n",
                ok ? "PASSED" : "FAILED", passing, mutants, witnesses, checkSeconds);
        out.printf("verify: scenarios %s (%d scenarios) in %.1f s%n", scenariosOk ? "PASSED" : "FAILED",
                Scenarios.all().size(), scenarioSeconds);
        out.printf("verify: properties %s (%d schedules, %d events) in %.1f s%n", propsOk ? "PASSED" : "FAILED",
                props.schedules, props.events, propSeconds);
        out.printf("verify: conformance %s (the reference adapter and %d mutants) in %.1f s%n", conformOk ? "PASSED" : "FAILED",
                Mutants.values().length, conformSeconds);
        out.printf("verify: simulation %s in %.1f s (figures in %s)%n", simOk ? "PASSED" : "FAILED", simSeconds, sim.out);
        out.flush();
        return ok && scenariosOk && propsOk && conformOk && simOk ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }
}
