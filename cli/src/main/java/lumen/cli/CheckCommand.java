package lumen.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import lumen.spec.check.ModelOutcome;
import lumen.spec.io.AtomicFiles;
import lumen.spec.manifest.Manifest;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code lumen check}: model-check manifest models with TLC and compare with the manifest. */
@Command(name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Model-checks the TLA+ models of spec/manifest.json with TLC and compares each result with the"
                + " manifest: a model must pass with the recorded distinct states and depth, a mutant must be"
                + " rejected with its property.",
            "Without MODEL it checks every CI model, mutant and witness; --full adds the full-size models,"
                + " --large the full-size and the large ones."})
final class CheckCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "MODEL", description = "models to check, by manifest name (e.g. MCLumen)")
    List<String> models;

    @Option(names = "--full", description = "also check the full-size models (before a release; about 25 minutes more on 2 cores)")
    boolean full;

    @Option(names = "--large", description = "also check the full-size and the large models (on demand; about 2 hours more on 2 cores)")
    boolean large;

    @Option(names = "--no-mutants", description = "check only the models that must pass (no mutants, no witnesses)")
    boolean noMutants;

    @Mixin
    KitOptions kit;

    @Option(names = "--timeout-minutes", paramLabel = "M", description = "stop a model after M minutes (default: ${DEFAULT-VALUE})")
    long timeoutMinutes = 600;

    @Option(names = "--json", description = "print a machine-readable report instead of the table")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the JSON report to FILE (atomically: never half-written)")
    Path report;

    @Option(names = "--traces", description = "print the counterexample of every violation, expected ones too")
    boolean traces;

    @Option(names = "--update-manifest", description = "record the measured distinct states and depth of passing models in the manifest")
    boolean updateManifest;

    @Option(names = "--resume", description = "continue each model from the last checkpoint TLC wrote (every 30 minutes) instead of starting afresh")
    boolean resume;

    @Override
    public Integer call() throws IOException {
        int workers = kit.workers();
        Path dir = kit.specDir();
        ModelRuns runs = new ModelRuns(dir);
        List<ModelEntry> selected = runs.select(models, full, large, !noMutants);
        List<ModelOutcome> outcomes = runs.run(selected, workers, Duration.ofMinutes(timeoutMinutes), resume,
                Progress.forConsole(kit.quiet || json));
        PrintWriter out = spec.commandLine().getOut();
        if (report != null) {
            AtomicFiles.writeString(report, toJson(outcomes) + "\n");
        }
        if (json) {
            out.println(toJson(outcomes));
            out.flush();
        } else {
            ModelRuns.printTable(out, outcomes, traces);
        }
        if (updateManifest) {
            Manifest m = runs.manifest();
            for (ModelOutcome o : outcomes) {
                double secs = o.result().duration().toMillis() / 1000.0;
                if (o.entry().expectsPass() && o.result().status() == TlcResult.Status.PASS) {
                    m = m.withModel(o.entry().withCounts(o.result().distinctStates(), o.result().depth())
                            .withRun(o.result().statesGenerated(), secs));
                } else if (o.agrees()) {
                    m = m.withModel(o.entry().withRun(null, secs));
                }
            }
            m.write(dir.resolve("manifest.json"));
            spec.commandLine().getErr().println("updated " + dir.resolve("manifest.json"));
            return outcomes.stream().allMatch(o -> o.entry().expectsPass()
                    ? o.result().status() == TlcResult.Status.PASS : o.agrees()) ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
        }
        return outcomes.stream().allMatch(ModelOutcome::agrees) ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }

    static String toJson(List<ModelOutcome> outcomes) throws IOException {
        List<Map<String, Object>> rows = outcomes.stream().map(CheckCommand::row).toList();
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("agree", outcomes.stream().filter(ModelOutcome::agrees).count());
        report.put("total", outcomes.size());
        report.put("models", rows);
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report);
    }

    private static Map<String, Object> row(ModelOutcome o) {
        TlcResult r = o.result();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", o.entry().name());
        m.put("expect", o.entry().expect());
        m.put("expectedProperty", o.entry().property());
        m.put("status", r.status().name());
        m.put("violatedProperty", r.violatedProperty());
        m.put("propertyId", r.violatedPropertyId().orElse(null));
        m.put("statesGenerated", r.statesGenerated());
        m.put("distinctStates", r.distinctStates());
        m.put("depth", r.depth());
        m.put("seconds", r.duration().toMillis() / 1000.0);
        m.put("agrees", o.agrees());
        m.put("disagreement", o.disagreement().isEmpty() ? null : o.disagreement());
        m.put("error", r.errorText().isEmpty() ? null : r.errorText());
        m.put("counterexample", r.counterexample().stream().map(s -> Map.of(
                "index", s.index(), "action", s.action(), "variables", s.variables())).toList());
        return m;
    }
}
