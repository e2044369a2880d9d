package lumen.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import lumen.spec.check.ModelChecker;
import lumen.spec.check.ModelOutcome;
import lumen.spec.manifest.Manifest;
import lumen.spec.manifest.ManifestException;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcResult;
import lumen.spec.tlc.TlcRunner;
import lumen.spec.tlc.Timeline;

/** Selects manifest models, checks them one after another with progress, and renders the results. */
final class ModelRuns {

    private final Path specDir;
    private final Manifest manifest;

    ModelRuns(Path specDir) {
        this.specDir = specDir;
        try {
            this.manifest = Manifest.read(specDir.resolve("manifest.json"));
        } catch (ManifestException e) {
            throw new UserError(e.getMessage());
        }
    }

    Manifest manifest() {
        return manifest;
    }

    List<ModelEntry> select(List<String> names, boolean full, boolean large, boolean mutants) {
        if (names != null && !names.isEmpty()) {
            List<ModelEntry> picked = new ArrayList<>();
            for (String n : names) {
                String file = Path.of(n).getFileName().toString();
                String name = file.endsWith(".cfg") || file.endsWith(".tla") ? file.substring(0, file.length() - 4) : file;
                picked.add(manifest.model(name).orElseThrow(() -> new UserError("unknown model '" + n
                        + "'; known models: " + String.join(", ", manifest.models().stream().map(ModelEntry::name).toList()))));
            }
            return picked;
        }
        return manifest.models().stream()
                .filter(m -> m.selectedBy(full, large))
                .filter(m -> mutants || m.expectsPass())
                .toList();
    }

    List<ModelOutcome> run(List<ModelEntry> models, int workers, Duration timeout, boolean resume, Progress progress) {
        ModelChecker checker = new ModelChecker(TlcRunner.fromCurrentJvm(), specDir, KitPaths.workDir(), workers, timeout);
        List<ModelOutcome> outcomes = new ArrayList<>();
        int i = 0;
        for (ModelEntry m : models) {
            i++;
            var task = progress.start(m.name(), i, models.size());
            ModelOutcome o = checker.check(m, task::message, resume);
            task.done(o);
            outcomes.add(o);
        }
        return outcomes;
    }

    static void printTable(PrintWriter out, List<ModelOutcome> outcomes, boolean allTraces) {
        String fmt = "%-32s %-9s %-38s %12s %6s %9s %12s  %s%n";
        out.printf(fmt, "model", "expect", "result", "distinct", "depth", "time", "states/min", "verdict");
        for (ModelOutcome o : outcomes) {
            TlcResult r = o.result();
            String expect = o.entry().isMutant() ? "reject" : o.entry().isWitness() ? "reach" : "pass";
            out.printf(fmt, o.entry().name(), expect, resultText(r),
                    count(r.distinctStates()), r.depth() < 0 ? "-" : Integer.toString(r.depth()),
                    seconds(r.duration()), count(r.distinctStatesPerMinute()),
                    o.agrees() ? "ok" : "DISAGREES");
        }
        long agree = outcomes.stream().filter(ModelOutcome::agrees).count();
        out.printf("%d of %d models agree with spec/manifest.json%n", agree, outcomes.size());
        for (ModelOutcome o : outcomes) {
            if (!o.agrees() || allTraces) {
                out.printf("%n%s: %s%n", o.entry().name(), o.agrees() ? ModelRuns.resultText(o.result()) + ", as expected"
                        : o.disagreement());
                if (!o.result().counterexample().isEmpty()) {
                    out.printf("counterexample (%d states):%n%s", o.result().counterexample().size(),
                            Timeline.render(o.result().counterexample(), o.result().loopBackTo()));
                }
            }
        }
        out.flush();
    }

    static String resultText(TlcResult r) {
        return switch (r.status()) {
            case PASS -> "pass";
            case SAFETY_VIOLATION, LIVENESS_VIOLATION -> "violates " + r.violatedProperty();
            case DEADLOCK -> "deadlock";
            case ERROR -> "error";
            case TIMEOUT -> "timeout";
        };
    }

    private static String count(long n) {
        return n < 0 ? "-" : String.format(Locale.ROOT, "%,d", n);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
