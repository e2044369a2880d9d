package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import lumen.spec.manifest.Manifest;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.Timeline;
import lumen.spec.tlc.TlcRunner;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The build's model check: TLC checks every CI model and mutant of spec/manifest.json, and the build
 * fails when TLC disagrees with the manifest (a property fails, a state count or depth changes, a
 * mutant survives or is rejected with another property).
 *
 * <p>The mutants and witnesses stop at their first violation, so their time is mostly TLC's
 * start; they run side by side, one TLC worker each, one per core. The models that must pass run
 * after them, one at a time, with every core.
 */
class ManifestModelsTest {

    static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "."));
    static final Path WORK = Path.of(System.getProperty("lumen.workDir", "target/tlc"));

    @TestFactory
    Stream<DynamicTest> everyCiModelAgreesWithTheManifest() throws Exception {
        Manifest manifest = Manifest.read(SPEC.resolve("manifest.json"));
        int cores = Runtime.getRuntime().availableProcessors();
        ModelChecker full = new ModelChecker(TlcRunner.fromCurrentJvm(), SPEC, WORK, cores, Duration.ofMinutes(15));
        ModelChecker single = new ModelChecker(TlcRunner.fromCurrentJvm(), SPEC, WORK, 1, Duration.ofMinutes(15));
        List<ModelEntry> ci = manifest.models().stream().filter(ModelEntry::isCi).toList();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, cores));
        Map<ModelEntry, Future<ModelOutcome>> early = new LinkedHashMap<>();
        for (ModelEntry m : ci) {
            if (m.isMutant() || m.isWitness()) {
                early.put(m, pool.submit(() -> single.check(m, msg -> { })));
            }
        }
        pool.shutdown();
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<ModelEntry, Future<ModelOutcome>> e : early.entrySet()) {
            tests.add(DynamicTest.dynamicTest(label(e.getKey()), () -> report(e.getKey(), e.getValue().get())));
        }
        for (ModelEntry m : ci) {
            if (!early.containsKey(m)) {
                tests.add(DynamicTest.dynamicTest(label(m), () -> {
                    pool.awaitTermination(1, java.util.concurrent.TimeUnit.HOURS);   // all cores to this one
                    report(m, full.check(m, msg -> { }));
                }));
            }
        }
        return tests.stream();
    }

    private static void report(ModelEntry m, ModelOutcome o) {
        System.out.printf("%-32s %-40s %10d distinct  depth %3d  %6.1f s%n", m.name(),
                o.result().status() + (o.result().violatedProperty() == null ? "" : " " + o.result().violatedProperty()),
                o.result().distinctStates(), o.result().depth(), o.result().duration().toMillis() / 1000.0);
        assertThat(o.agrees()).as(() -> m.name() + ": " + o.disagreement() + "\n"
                + Timeline.render(o.result().counterexample(), o.result().loopBackTo())).isTrue();
    }

    private static String label(ModelEntry m) {
        return m.isMutant() ? m.name() + " is rejected with " + m.property() : m.name() + " passes";
    }
}
