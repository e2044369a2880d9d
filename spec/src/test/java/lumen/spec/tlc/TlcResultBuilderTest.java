package lumen.spec.tlc;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(r.status()).isEqualTo(TlcResult.Status.SAFETY_VIOLATION);
        assertThat(r.violatedProperty()).isEqualTo("A2_RoutingFollowsRuleProp");
        assertThat(r.violatedPropertyId().orElseThrow()).isEqualTo("A2");
        assertThat(r.counterexample()).hasSize(8);
        assertThat(r.counterexample().get(0).action()).isEqualTo("Init");
        assertThat(r.counterexample().get(1).action()).isEqualTo("Arrive");
        assertThat(r.counterexample().get(2).action()).isEqualTo("Place");
        assertThat(r.counterexample().get(1).variables().get("phase"))
                .isEqualTo("(r1 :> \"QUEUED\" @@ r2 :> \"NEW\" @@ r3 :> \"NEW\")");
        assertThat(r.counterexample().get(0).variables()).hasSize(11);
        assertThat(r.statesGenerated()).isEqualTo(1355);
        assertThat(r.distinctStates()).isEqualTo(396);
        assertThat(r.depth()).isEqualTo(8);
    }

    @Test
    void parseErrorIsAnErrorWithTheSanyLocation() throws IOException {
        TlcResult r = parse("parse-error.out");
        assertThat(r.status()).isEqualTo(TlcResult.Status.ERROR);
        assertThat(r.errorText()).contains("line 5, col 18 to line 5, col 31 of module Bad");
        assertThat(r.errorText()).contains("Unknown operator: `undefinedThing'.");
        assertThat(r.errorText()).contains("Parsing or semantic analysis failed.");
    }

    @Test
    void successNeedsTheSuccessMessageAndExitZero() {
        TlcResultBuilder b = new TlcResultBuilder();
        b.accept(new TlcMessage(TlcMessage.SUCCESS, 0, "Model checking completed. No error has been found."));
        b.accept(new TlcMessage(TlcMessage.STATS, 0, "3,551,822 states generated, 641,898 distinct states found, 0 states left on queue."));
        b.accept(new TlcMessage(TlcMessage.SEARCH_DEPTH, 0, "The depth of the complete state graph search is 45."));
        TlcResult ok = b.build(0, Duration.ofSeconds(60), List.of(), null);
        assertThat(ok.status()).isEqualTo(TlcResult.Status.PASS);
        assertThat(ok.distinctStates()).isEqualTo(641_898);
        assertThat(ok.depth()).isEqualTo(45);
        assertThat(ok.distinctStatesPerMinute()).isEqualTo(641_898);

        TlcResult crashed = new TlcResultBuilder().build(137, Duration.ofSeconds(1), List.of(), null);
        assertThat(crashed.status()).isEqualTo(TlcResult.Status.ERROR);
        assertThat(crashed.errorText()).contains("137");
    }

    @Test
    void temporalViolationNamesTheSingleCheckedProperty() {
        TlcResultBuilder b = new TlcResultBuilder();
        b.accept(new TlcMessage(TlcMessage.TEMPORAL_PROPERTY_VIOLATED, 1, "Temporal properties were violated."));
        b.accept(new TlcMessage(TlcMessage.STATE, 4, "1: <Initial predicate>\n/\\ x = 0"));
        b.accept(new TlcMessage(TlcMessage.STATE, 4, "2: <Next line 6, col 12 to line 6, col 46 of module T>\n/\\ x = 1"));
        b.accept(new TlcMessage(TlcMessage.BACK_TO_STATE, 1, "2: Back to state: <Next line 6, col 12 to line 6, col 46 of module T>"));
        TlcResult r = b.build(13, Duration.ofSeconds(1), List.of(), "L1_EveryRequestCompletes");
        assertThat(r.status()).isEqualTo(TlcResult.Status.LIVENESS_VIOLATION);
        assertThat(r.violatedPropertyId().orElseThrow()).isEqualTo("L1");
        assertThat(r.counterexample()).hasSize(2);
        assertThat(r.loopBackTo()).isEqualTo(2);
    }

    @Test
    void anActionPropertyNamedByItsLocationIsTheSingleCheckedProperty() {
        // TLC names a refinement's box-action conjunct by where it is written, not by an operator
        TlcResultBuilder b = new TlcResultBuilder();
        b.accept(new TlcMessage(TlcMessage.ACTION_PROPERTY_VIOLATED, 1,
                "Action property line 53, col 21 to line 53, col 35 of module Service is violated."));
        TlcResult r = b.build(12, Duration.ofSeconds(1), List.of(), "R1_RefinesService");
        assertThat(r.status()).isEqualTo(TlcResult.Status.SAFETY_VIOLATION);
        assertThat(r.violatedProperty()).isEqualTo("R1_RefinesService");

        // a named one keeps its name, whatever the config checks
        TlcResultBuilder named = new TlcResultBuilder();
        named.accept(new TlcMessage(TlcMessage.ACTION_PROPERTY_VIOLATED, 1, "Action property S16_DeliveredOnceProp is violated."));
        assertThat(named.build(12, Duration.ofSeconds(1), List.of(), "R1_RefinesService").violatedProperty())
                .isEqualTo("S16_DeliveredOnceProp");

        // with several properties checked, the location is all there is to say
        TlcResultBuilder several = new TlcResultBuilder();
        several.accept(new TlcMessage(TlcMessage.ACTION_PROPERTY_VIOLATED, 1,
                "Action property line 53, col 21 to line 53, col 35 of module Service is violated."));
        assertThat(several.build(12, Duration.ofSeconds(1), List.of(), null).violatedProperty()).contains("module Service");
    }

    @Test
    void warningsAreNotErrors() {
        assertThat(new TlcMessage(2401, 1, "x").isError()).isTrue();
        assertThat(new TlcMessage(2401, 3, "use ParallelGC").isError()).isFalse();
    }
}
