package lumen.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
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
                + " be reached."})
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
        out.println("== stage 1/1: model-check (spec/manifest.json, CI tier) ==");
        out.flush();
        List<ModelOutcome> outcomes = runs.run(runs.select(List.of(), false, true), workers,
                Duration.ofMinutes(30), false, Progress.forConsole(kit.quiet));
        ModelRuns.printTable(out, outcomes, false);
        boolean ok = outcomes.stream().allMatch(ModelOutcome::agrees);
        long passing = outcomes.stream().filter(o -> o.entry().expectsPass()).count();
        long mutants = outcomes.stream().filter(o -> o.entry().isMutant()).count();
        long witnesses = outcomes.stream().filter(o -> o.entry().isWitness()).count();
        out.println();
        out.printf("verify: model-check %s (%d models, %d mutants, %d witnesses) in %.0f s%n",
                ok ? "PASSED" : "FAILED", passing, mutants, witnesses, (System.nanoTime() - start) / 1e9);
        out.flush();
        return ok ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }
}
