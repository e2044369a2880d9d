package lumen.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
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
                + " bit-exact restores; the corrupted ones rejected by their property)."})
final class VerifyCommand implements Callable<Integer> {

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
        out.println("== stage 1/2: model-check (spec/manifest.json, CI tier) ==");
        out.flush();
        List<ModelOutcome> outcomes = runs.run(runs.select(List.of(), false, true), workers,
                Duration.ofMinutes(30), false, Progress.forConsole(kit.quiet));
        ModelRuns.printTable(out, outcomes, false);
        boolean ok = outcomes.stream().allMatch(ModelOutcome::agrees);
        long passing = outcomes.stream().filter(o -> o.entry().expectsPass()).count();
        long mutants = outcomes.stream().filter(o -> o.entry().isMutant()).count();
        long witnesses = outcomes.stream().filter(o -> o.entry().isWitness()).count();
        double checkSeconds = (System.nanoTime() - start) / 1e9;
        out.println();
        out.println("== stage 2/2: scenarios (runtime traces through the validator) ==");
        long t2 = System.nanoTime();
        boolean scenariosOk;
        try {
            scenariosOk = ScenariosCommand.runAll(out, Scenarios.all(), null);
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
        double scenarioSeconds = (System.nanoTime() - t2) / 1e9;
        out.println();
        out.printf("verify: model-check %s (%d models, %d mutants, %d witnesses) in %.0f s%n",
                ok ? "PASSED" : "FAILED", passing, mutants, witnesses, checkSeconds);
        out.printf("verify: scenarios %s (%d scenarios) in %.1f s%n", scenariosOk ? "PASSED" : "FAILED",
                Scenarios.all().size(), scenarioSeconds);
        out.flush();
        return ok && scenariosOk ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }
}
