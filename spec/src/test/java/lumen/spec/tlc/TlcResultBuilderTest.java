package lumen.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlcResultBuilderTest {

    private static TlcResult parse(String resource) throws IOException {
        List<String> lines;
        try (InputStream in = TlcResultBuilderTest.class.getResourceAsStream("/tlc/" + resource)) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        TlcResultBuilder b = new TlcResultBuilder();
        TlcToolParser p = new TlcToolParser(b::accept);
        lines.forEach(p::feed);
        return b.build(12, Duration.ofSeconds(2), p.freeText(), null);
    }

    @Test
    void actionPropertyViolationIsTypedWithItsTrace() throws IOException {
        TlcResult r = parse("action-property-violation.out");
        assertEquals(TlcResult.Status.SAFETY_VIOLATION, r.status());
        assertEquals("A2_RoutingFollowsRuleProp", r.violatedProperty());
        assertEquals("A2", r.violatedPropertyId().orElseThrow());
        assertEquals(8, r.counterexample().size());
        assertEquals("Init", r.counterexample().get(0).action());
        assertEquals("Arrive", r.counterexample().get(1).action());
        assertEquals("Place", r.counterexample().get(2).action());
        assertEquals("(r1 :> \"QUEUED\" @@ r2 :> \"NEW\" @@ r3 :> \"NEW\")",
                r.counterexample().get(1).variables().get("phase"));
        assertEquals(11, r.counterexample().get(0).variables().size());
        assertEquals(1355, r.statesGenerated());
        assertEquals(396, r.distinctStates());
        assertEquals(8, r.depth());
    }

    @Test
    void parseErrorIsAnErrorWithTheSanyLocation() throws IOException {
        TlcResult r = parse("parse-error.out");
        assertEquals(TlcResult.Status.ERROR, r.status());
        assertTrue(r.errorText().contains("line 5, col 18 to line 5, col 31 of module Bad"), r.errorText());
        assertTrue(r.errorText().contains("Unknown operator: `undefinedThing'."), r.errorText());
        assertTrue(r.errorText().contains("Parsing or semantic analysis failed."), r.errorText());
    }

    @Test
    void successNeedsTheSuccessMessageAndExitZero() {
        TlcResultBuilder b = new TlcResultBuilder();
        b.accept(new TlcMessage(TlcMessage.SUCCESS, 0, "Model checking completed. No error has been found."));
        b.accept(new TlcMessage(TlcMessage.STATS, 0, "3,551,822 states generated, 641,898 distinct states found, 0 states left on queue."));
        b.accept(new TlcMessage(TlcMessage.SEARCH_DEPTH, 0, "The depth of the complete state graph search is 45."));
        TlcResult ok = b.build(0, Duration.ofSeconds(60), List.of(), null);
        assertEquals(TlcResult.Status.PASS, ok.status());
        assertEquals(641_898, ok.distinctStates());
        assertEquals(45, ok.depth());
        assertEquals(641_898, ok.distinctStatesPerMinute());

        TlcResult crashed = new TlcResultBuilder().build(137, Duration.ofSeconds(1), List.of(), null);
        assertEquals(TlcResult.Status.ERROR, crashed.status());
        assertTrue(crashed.errorText().contains("137"));
    }

    @Test
    void temporalViolationNamesTheSingleCheckedProperty() {
        TlcResultBuilder b = new TlcResultBuilder();
        b.accept(new TlcMessage(TlcMessage.TEMPORAL_PROPERTY_VIOLATED, 1, "Temporal properties were violated."));
        b.accept(new TlcMessage(TlcMessage.STATE, 4, "1: <Initial predicate>\n/\\ x = 0"));
        b.accept(new TlcMessage(TlcMessage.STATE, 4, "2: <Next line 6, col 12 to line 6, col 46 of module T>\n/\\ x = 1"));
        b.accept(new TlcMessage(TlcMessage.BACK_TO_STATE, 1, "2: Back to state: <Next line 6, col 12 to line 6, col 46 of module T>"));
        TlcResult r = b.build(13, Duration.ofSeconds(1), List.of(), "L1_EveryRequestCompletes");
        assertEquals(TlcResult.Status.LIVENESS_VIOLATION, r.status());
        assertEquals("L1", r.violatedPropertyId().orElseThrow());
        assertEquals(2, r.counterexample().size());
        assertEquals(2, r.loopBackTo());
    }

    @Test
    void warningsAreNotErrors() {
        assertTrue(new TlcMessage(2401, 1, "x").isError());
        assertTrue(!new TlcMessage(2401, 3, "use ParallelGC").isError());
    }
}
