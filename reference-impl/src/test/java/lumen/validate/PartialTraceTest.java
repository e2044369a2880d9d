package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import lumen.core.PropertyId;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.trace.Observation;
import lumen.trace.Observe;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

class PartialTraceTest {
    static final Observation NO_PLACE = new Observation(true, false, false, Observation.DEFAULT_HIDDEN_STEPS, Observation.DEFAULT_CANDIDATES);
    static final Observation NO_LOADS = new Observation(false, true, false, Observation.DEFAULT_HIDDEN_STEPS, Observation.DEFAULT_CANDIDATES);
    static final Observation BATCH = new Observation(false, false, true, Observation.DEFAULT_HIDDEN_STEPS, Observation.DEFAULT_CANDIDATES);
    static final Observation LEAST = new Observation(true, true, true, Observation.DEFAULT_HIDDEN_STEPS, Observation.DEFAULT_CANDIDATES);
    /** The levels every scenario is judged at: Place not logged is in the least, the costliest to search. */
    static final List<Observation> LEVELS = List.of(NO_LOADS, BATCH, LEAST);

    static ValidationResult validate(byte[] trace) throws Exception {
        return Validator.validate(trace, "partial", Validator.Options.defaults());
    }

    static ValidationResult validate(String trace) throws Exception {
        return validate(trace.getBytes(StandardCharsets.UTF_8));
    }

    static Scenario stale(Scenario sc, String bound) {
        return new Scenario(sc.name() + "@" + bound, sc.description(), sc.config().withReadings(sc.config().readings().with("citedLoads", bound)),
                sc.cost(), sc.options(), sc.workload(), sc.faults(), sc.mustShow(), sc.corruption(), sc.expectedProperty());
    }

    @Test
    void everyScenarioAtEveryLevelIsJudgedAsItsFullTraceIs() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (Scenario sc : Scenarios.all()) {
            byte[] whole = ScenarioRun.run(sc).trace();
            ValidationResult w = validate(whole);
            for (Observation o : LEVELS) {
                ValidationResult r = validate(Observe.at(whole, o));
                String as = sc.name() + " at " + o.describe() + ": " + (r.divergence() == null ? r.verdict() : r.divergence().finding());
                if (sc.name().equals("corrupt-holder-is-server") && o.hiddenPlace()) {
                    // its defect is the Place line itself (a holder that is the server), which this level does not log,
                    // and no StreamPage follows it: nothing the level shows is wrong
                    soft.assertThat(r.verdict()).as(as).isEqualTo(Verdict.ACCEPTED);
                    continue;
                }
                soft.assertThat(r.verdict()).as(as).isEqualTo(w.verdict());
                if (w.verdict() == Verdict.REJECTED && r.verdict() == Verdict.REJECTED) {
                    soft.assertThat(r.divergence().finding().property()).as(as).isEqualTo(w.divergence().finding().property());
                }
                soft.assertThat(r.notes()).as(as).anyMatch(n -> n.startsWith("partial trace (" + o.describe() + ")")
                        || o.equals(BATCH) && n.startsWith("Decode per batch iteration"));
            }
        }
        soft.assertAll();
    }

    @Test
    void theStaleReadingsTracesWithoutTheirLoadsAreJudgedOnEveryReportTheMonitorCouldHaveHeld() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (String bound : new String[] {"stale:1", "stale:3"}) {
            for (String name : new String[] {"single-failure-restore", "failure-during-handover", "dual-holder-failure"}) {
                byte[] whole = ScenarioRun.run(stale(Scenarios.find(name), bound)).trace();
                assertThat(new String(whole, StandardCharsets.UTF_8)).contains("\"loads\":");
                ValidationResult w = validate(whole);
                soft.assertThat(w.verdict()).as(name + " " + bound + " full").isEqualTo(Verdict.ACCEPTED);
                ValidationResult r = validate(Observe.at(whole, NO_LOADS));
                soft.assertThat(r.verdict()).as(name + " " + bound + ": " + r.divergence()).isEqualTo(Verdict.ACCEPTED);
                soft.assertThat(r.notes()).anyMatch(n -> n.contains("decisions resting on the monitor were judged on every report"));
            }
        }
        soft.assertAll();
    }

    @Test
    void aHolderThePolicyCouldNotHaveChosenIsRejectedWhenOnlyItsStreamingShowsIt() throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), StandardCharsets.UTF_8);
        // request 0 is served by worker 0 and placed on worker 1: stream its pages to worker 0 itself instead
        assertThat(whole).contains("{\"type\":\"Place\",\"t\":0.0,\"req\":0,\"holder\":1}");
        String bad = whole.replace("\"req\":0,\"holder\":1,", "\"req\":0,\"holder\":0,");
        ValidationResult full = validate(bad.replace("{\"type\":\"Place\",\"t\":0.0,\"req\":0,\"holder\":1}",
                "{\"type\":\"Place\",\"t\":0.0,\"req\":0,\"holder\":0}"));
        ValidationResult r = validate(Observe.at(bad.getBytes(StandardCharsets.UTF_8), NO_PLACE));
        assertThat(full.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        // the first StreamPage is where the partial trace shows it (line 5 of the full trace is line 4 without the Place)
        assertThat(r.divergence().line()).isEqualTo(4);
        assertThat(r.divergence().event()).contains("StreamPage");
        assertThat(r.divergence().matched()).contains("the 2 events before this one").contains("candidate states before this event");
        assertThat(ValidationReport.text(r)).contains("matched:").contains("Place not logged");
    }

    @Test
    void aMutatedRunIsRejectedWithTheSamePropertyAtEveryLevel() throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), StandardCharsets.UTF_8);
        // a restore that claims one position more than its checkpoint saved
        String bad = whole.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1");
        assertThat(bad).isNotEqualTo(whole);
        PropertyId full = validate(bad).divergence().finding().property();
        for (Observation o : List.of(NO_PLACE, NO_LOADS, BATCH, LEAST)) {
            ValidationResult r = validate(Observe.at(bad.getBytes(StandardCharsets.UTF_8), o));
            assertThat(r.verdict()).as(o.describe()).isEqualTo(Verdict.REJECTED);
            assertThat(r.divergence().finding().property()).as(o.describe()).isEqualTo(full);
        }
    }

    @Test
    void aSearchCutShortByItsBoundIsUndecidedNotRejected() throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("holder-failure")).trace(), StandardCharsets.UTF_8);
        String bad = whole.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1");
        Observation tight = new Observation(true, false, false, 4, 2);
        ValidationResult r = validate(Observe.at(bad.getBytes(StandardCharsets.UTF_8), tight));
        assertThat(r.verdict()).isEqualTo(Verdict.UNDECIDED);
        assertThat(r.notes()).anyMatch(n -> n.contains("cut short") && n.contains("observes.candidates=2"));
        assertThat(ValidationReport.text(r)).contains("UNDECIDED").contains("on the candidates kept");
        // with room enough, the same trace is rejected, and the unmutated one accepted
        assertThat(validate(Observe.at(bad.getBytes(StandardCharsets.UTF_8), NO_PLACE)).verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(validate(Observe.at(whole.getBytes(StandardCharsets.UTF_8), NO_PLACE)).verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void aBatchLineIsItsDecodeStepsAndAWrongEntryIsNamedAtItsLine() throws Exception {
        String whole = new String(Observe.at(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), BATCH), StandardCharsets.UTF_8);
        String[] lines = whole.split("\n");
        int at = -1;
        for (int i = 0; i < lines.length && at < 0; i++) {
            at = lines[i].contains("\"batch\":[") ? i : -1;
        }
        assertThat(at).as("the runtime's trace has a batch iteration of two requests or more").isPositive();
        lines[at] = lines[at].replaceFirst("\"tokens\":\\[", "\"tokens\":[7,");
        ValidationResult r = validate(String.join("\n", lines) + "\n");
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().line()).isEqualTo(at + 1);
        lines[at] = lines[at].replaceFirst("\"req\":", "\"request\":");
        ValidationResult m = validate(String.join("\n", lines) + "\n");
        assertThat(m.verdict()).isEqualTo(Verdict.MALFORMED);
        assertThat(m.error().getMessage()).contains("partial:" + (at + 1) + ":").contains("unknown field 'request'");
    }

    @Test
    void aBadDeclarationIsALocatedError() throws Exception {
        String header = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"config\":{\"policy\":\"lumen\",\"workers\":3,"
                + "\"alpha\":1,\"beta\":1,\"theta\":1000,\"tau\":32,\"budget\":4096,\"pageTokens\":16,\"k\":4},\"observes\":";
        assertThat(validate(header + "{\"Place\":\"sometimes\"}}\n").error().getMessage())
                .contains("partial:1:").contains("observes.Place must be \"logged\" or \"hidden\"");
        assertThat(validate(header + "{\"StreamPage\":\"sizes\"}}\n").error().getMessage()).contains("unknown field 'observes.StreamPage'");
        assertThat(validate(header + "{\"candidates\":0}}\n").error().getMessage()).contains("observes.candidates must be an integer from 1");
        assertThat(validate(header + "{\"Place\":\"hidden\"}}\n").verdict()).isEqualTo(Verdict.ACCEPTED);
    }
}
