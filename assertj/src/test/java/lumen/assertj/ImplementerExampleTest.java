package lumen.assertj;

import static lumen.assertj.LumenAssertions.assertThat;
import static lumen.assertj.LumenAssertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lumen.conform.Conformance;
import lumen.core.KitTokens;
import lumen.core.PropertyId;
import lumen.props.Schedule;
import lumen.props.ScheduleGenerator;
import lumen.props.ScheduleTraces;
import lumen.runtime.Arrival;
import org.junit.jupiter.api.Test;

/**
 * What an implementer's JUnit 5 test looks like with the kit's assertions. Here the system under
 * test is the kit's own reference (a trace it wrote, and its adapter), and one of its mutants.
 */
class ImplementerExampleTest {
    static final Schedule SCHEDULE = new ScheduleGenerator(List.of("lumen")).generate(4);

    static Map<Integer, int[]> kitReference(Schedule sc) {
        Map<Integer, int[]> ref = new HashMap<>();
        for (Arrival a : sc.arrivals()) {
            ref.put(a.id(), KitTokens.reference(a.seed(), a.outLen(), KitTokens.VOCAB));
        }
        return ref;
    }

    static Trace trace(byte[] bytes) {
        return Trace.of(bytes, "run.jsonl").withReference(kitReference(SCHEDULE), "the kit's token model");
    }

    static String adapter(String mainClass) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return "'" + java + "' -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path") + "' " + mainClass;
    }

    @Test
    void aCorrectRunIsAFinishedBehaviourOfTheSpecJudgedAgainstTheKitsReference() {
        Trace run = trace(ScheduleTraces.record(SCHEDULE));
        assertThat(run).isBehaviourOfSpec().isComplete().satisfies(PropertyId.S7).satisfies(PropertyId.S12)
                .isJudgedAgainstTheKitsReference();
    }

    @Test
    void aChangedOutputTokenFailsWithTheLocatedReport() {
        String good = new String(ScheduleTraces.record(SCHEDULE), StandardCharsets.UTF_8);
        // change the first token of the first Decode, as a system that lost a token would report it
        String decode = good.lines().filter(l -> l.contains("\"type\":\"Decode\"")).findFirst().orElseThrow();
        String bad = good.replace(decode, decode.replaceFirst("\"tokens\":\\[(\\d+)", "\"tokens\":[7"));
        Trace run = trace(bad.getBytes(StandardCharsets.UTF_8));
        assertThat(run).isRejectedWith(PropertyId.S7);
        assertThatThrownBy(() -> assertThat(run).satisfies(PropertyId.S7))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("breaks it at line")
                .hasMessageContaining("REJECTED by S7 OutputIsReferencePrefix")
                .hasMessageContaining("expected:");
        assertThatThrownBy(() -> assertThat(run).isComplete()).hasMessageContaining("REJECTED");
    }

    @Test
    void aSelfReferencedTraceSaysWhoseReferenceJudgedIt() {
        Trace run = Trace.of(ScheduleTraces.record(SCHEDULE), "run.jsonl");
        assertThat(run).isBehaviourOfSpec();
        assertThatThrownBy(() -> assertThat(run).isJudgedAgainstTheKitsReference())
                .hasMessageContaining("self-reported");
    }

    @Test
    void conformanceOfTheReferencePassesAndAMutantFailsWithItsProperty() {
        Conformance.Report ok = new Conformance(Conformance.Options.defaults(adapter("lumen.conform.sut.Adapter"))
                .withSchedules(1, 10)).run(r -> { });
        assertThat(ok).passed();
        Conformance.Report bad = new Conformance(Conformance.Options.defaults(adapter("lumen.conform.sut.mutants.ResumesFromWrongPrefix"))
                .withSchedules(1, 50).withShrinkRuns(40)).run(r -> { });
        assertThat(bad).failedWith("S9");
        assertThatThrownBy(() -> assertThat(bad).passed())
                .hasMessageContaining("verdict: FAIL: S9 RestoreResumesAtSavedPrefix")
                .hasMessageContaining("seed");
    }
}
