package lumen.conform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import lumen.conform.sut.Mutants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The conformance harness, through the process boundary: the reference adapter passes, every mutant and misbehaving system is caught. */
class ConformanceTest {
    static String java(String mainClass, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return "'" + java + "' -Xss4m -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path") + "' " + mainClass + " " + String.join(" ", args);
    }

    @Test
    void theReferenceAdapterPasses() {
        Conformance.Report r = new Conformance(Conformance.Options.defaults(java("lumen.conform.sut.Adapter"))
                .withPolicies(java.util.List.of("lumen", "lumen-dual")).withSchedules(1, 60)).run(x -> { });
        System.out.println(ConformReport.text(r));
        assertNull(r.failure, () -> ConformReport.text(r));
        assertEquals(60, r.schedules);
    }

    @ParameterizedTest
    @EnumSource(Mutants.class)
    void everyMutantIsCaughtWithItsProperty(Mutants m) {
        String main = m.mainClass();
        Conformance.Report r = new Conformance(Conformance.Options.defaults(java(main)).withSchedules(1, 200)).run(x -> { });
        System.out.println(ConformReport.text(r));
        assertNotNull(r.failure, m + " survived " + r.schedules + " schedules");
        assertEquals(Conformance.Kind.VIOLATION, r.failure.minimalRun().kind(), () -> ConformReport.text(r));
        assertEquals(m.expected(), String.valueOf(r.failure.minimalRun().property()), () -> ConformReport.text(r));
    }

    @ParameterizedTest
    @ValueSource(strings = {"hang", "crash", "garbage", "flood", "refuse"})
    void aMisbehavingSystemGetsAVerdictAndTheKitDoesNotHang(String how) {
        Conformance.Options o = Conformance.Options.defaults(java("lumen.conform.sut.Misbehaving", how))
                .withSchedules(1, 3).withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(20)).withShrinkRuns(3);
        long t0 = System.nanoTime();
        Conformance.Report r = new Conformance(o).run(x -> { });
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.println(ConformReport.text(r));
        assertNotNull(r.failure);
        Conformance.Kind want = switch (how) {
            case "hang" -> Conformance.Kind.TIMEOUT;
            case "crash" -> Conformance.Kind.CRASHED;
            case "garbage" -> Conformance.Kind.GARBAGE;
            case "flood" -> Conformance.Kind.FLOOD;
            default -> Conformance.Kind.PROTOCOL;
        };
        assertEquals(want, r.failure.run().kind(), () -> ConformReport.text(r));
        assertTrue(secs < 60, "the kit took " + secs + " s");
        if (how.equals("crash")) {
            assertTrue(r.failure.run().message().contains("exit status 3") && r.failure.run().message().contains("panic"), r.failure.run().message());
        }
    }
}
