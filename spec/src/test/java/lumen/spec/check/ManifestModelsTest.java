package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
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
 */
class ManifestModelsTest {

    static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "."));
    static final Path WORK = Path.of(System.getProperty("lumen.workDir", "target/tlc"));

    @TestFactory
    Stream<DynamicTest> everyCiModelAgreesWithTheManifest() throws Exception {
        Manifest manifest = Manifest.read(SPEC.resolve("manifest.json"));
        ModelChecker checker = new ModelChecker(TlcRunner.fromCurrentJvm(), SPEC, WORK,
                Runtime.getRuntime().availableProcessors(), Duration.ofMinutes(15));
        return manifest.models().stream()
                .filter(ModelEntry::isCi)
                .map(m -> DynamicTest.dynamicTest(label(m), () -> {
                    ModelOutcome o = checker.check(m, msg -> { });
                    System.out.printf("%-32s %-40s %10d distinct  depth %3d  %6.1f s%n", m.name(),
                            o.result().status() + (o.result().violatedProperty() == null ? "" : " " + o.result().violatedProperty()),
                            o.result().distinctStates(), o.result().depth(), o.result().duration().toMillis() / 1000.0);
                    assertThat(o.agrees()).as(() -> m.name() + ": " + o.disagreement() + "\n"
                            + Timeline.render(o.result().counterexample(), o.result().loopBackTo())).isTrue();
                }));
    }

    private static String label(ModelEntry m) {
        return m.isMutant() ? m.name() + " is rejected with " + m.property() : m.name() + " passes";
    }
}
