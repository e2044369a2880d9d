package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen conform} from the command line. */
class ConformCliTest {
    @TempDir
    Path tmp;

    @Test
    void theReferencePasses() {
        CliRun r = CliRun.of("conform", "--sut", "reference", "--schedules", "8", "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("verdict: PASS");
        assertThat(r.out()).contains("holder failure");
    }

    @Test
    void aMutantIsCaughtConfirmedFreshAndItsMinimalTraceAndSessionAreWritten() throws Exception {
        Path report = tmp.resolve("r.json");
        CliRun r = CliRun.of("conform", "--sut", "mutant:leaks-checkpoint", "--schedules", "20", "--out", tmp.toString(),
                "--report", report.toString(), "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(r.out()).contains("verdict: FAIL: S8 NoCheckpointLeak\n").contains("confirmed in a fresh process");
        JsonNode fail = new ObjectMapper().readTree(report.toFile()).get("failure");
        assertThat(fail.get("property").asText()).isEqualTo("S8");
        assertThat(fail.get("reproducible").asBoolean()).isTrue();
        assertThat(fail.get("reproducer").asText()).isEqualTo("minimal");
        assertThat(fail.get("minimalSchedule").get("arrivals").size()).isPositive();
        assertThat(fail.get("freshReplay").get("minimal").get("sameFailure").asBoolean()).isTrue();
        Path trace = tmp.resolve("minimal-trace.jsonl");
        CliRun v = CliRun.of("validate", trace.toString());
        assertThat(v.exit()).as(v.out()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(v.out()).contains("S8");
        assertThat(Files.readString(trace)).startsWith("{\"type\":\"header\"");
        // the report's step and trace line are where the session file shows them
        int step = fail.get("step").asInt();
        long line = fail.get("line").asLong();
        String cmd = fail.get("command").asText();
        assertThat(r.out()).contains("at trace line " + line + ", in the reply to step " + step + " of the schedule: " + cmd + "\n");
        List<String> session = Files.readAllLines(tmp.resolve("minimal-session.txt"));
        assertThat(session).contains(String.format("step %-7d kit > %s", step, cmd));
        int at = session.indexOf(String.format("step %-7d kit > %s", step, cmd));
        String traceLine = Files.readAllLines(trace).get((int) line - 1);
        assertThat(session.subList(at, session.size())).contains(String.format("  line %-5d sut < %s", line, traceLine));
        assertThat(session).filteredOn(l -> l.startsWith("step 1 ")).singleElement().asString().contains("kit > {\"cmd\":\"init\"");
    }

    @Test
    void withJsonAndOutTheStandardOutputIsOneJsonDocument() throws Exception {
        CliRun r = CliRun.of("conform", "--sut", "mutant:holder-is-server", "--schedules", "2", "--shrink-runs", "3", "--json",
                "--out", tmp.toString(), "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        JsonNode doc = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(r.out());
        assertThat(doc.get("failure").get("reproducer").asText()).isEqualTo("minimal");
        assertThat(r.err()).contains("minimal-trace.jsonl").contains("minimal-session.txt");
        assertThat(tmp.resolve("minimal-session.txt")).exists();
    }

    @Test
    void badInputIsAClearError() {
        CliRun m = CliRun.of("conform", "--sut", "mutant:nope");
        assertThat(m.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(m.err()).contains("no shipped mutant 'nope'");
        CliRun p = CliRun.of("conform", "--sut", "reference", "--policy", "magic");
        assertThat(p.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(p.err()).contains("unknown policy 'magic'");
        CliRun none = CliRun.of("conform");
        assertThat(none.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        CliRun kv = CliRun.of("conform", "--sut", "reference", "--kv-equivalence");
        assertThat(kv.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(kv.err()).contains("--kv-equivalence goes with --reference equivalence");
    }

    @Test
    void aCommandThatDoesNotExistIsACrashVerdict() {
        CliRun r = CliRun.of("conform", "--sut", "/no/such/program", "--schedules", "2", "--shrink-runs", "2", "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(r.out()).contains("verdict: FAIL: crashed").contains("at step 1 of the schedule: {\"cmd\":\"init\"");
        assertThat(r.out().contains("not found") || r.out().contains("No such file")).as(r.out()).isTrue();
    }

    /** {@code --live} takes the endpoint's base URL: the completions path given too is a usage error, before any request. */
    @Test
    void aLiveUrlWithThePathIsAUsageError() {
        CliRun r = CliRun.of("conform", "--live", "http://127.0.0.1:9/v1/completions");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err() + r.out()).contains("without a path").contains("/v1/completions");
    }
}
