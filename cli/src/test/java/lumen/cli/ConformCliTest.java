package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen conform} from the command line. */
class ConformCliTest {
    @TempDir
    Path tmp;

    @Test
    void theReferencePasses() {
        CliRun r = CliRun.of("conform", "--sut", "reference", "--schedules", "8", "-q");
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("verdict: PASS"), r.out());
        assertTrue(r.out().contains("holder failure"), r.out());
    }

    @Test
    void aMutantIsCaughtAndItsMinimalTraceIsWritten() throws Exception {
        Path report = tmp.resolve("r.json");
        CliRun r = CliRun.of("conform", "--sut", "mutant:leaks-checkpoint", "--schedules", "20", "--out", tmp.toString(),
                "--report", report.toString(), "-q");
        assertEquals(ExitCodes.DISAGREEMENT, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("verdict: FAIL: S8 NoCheckpointLeak"), r.out());
        JsonNode doc = new ObjectMapper().readTree(report.toFile());
        assertEquals("S8", doc.get("failure").get("property").asText());
        assertTrue(doc.get("failure").get("minimalSchedule").get("arrivals").size() >= 1);
        Path trace = tmp.resolve("minimal-trace.jsonl");
        CliRun v = CliRun.of("validate", trace.toString());
        assertEquals(ExitCodes.DISAGREEMENT, v.exit(), v.out());
        assertTrue(v.out().contains("S8"), v.out());
        assertTrue(Files.readString(trace).startsWith("{\"type\":\"header\""));
    }

    @Test
    void badInputIsAClearError() {
        CliRun m = CliRun.of("conform", "--sut", "mutant:nope");
        assertEquals(ExitCodes.BAD_INPUT, m.exit());
        assertTrue(m.err().contains("no shipped mutant 'nope'"), m.err());
        CliRun p = CliRun.of("conform", "--sut", "reference", "--policy", "magic");
        assertEquals(ExitCodes.BAD_INPUT, p.exit());
        assertTrue(p.err().contains("unknown policy 'magic'"), p.err());
        CliRun none = CliRun.of("conform");
        assertEquals(ExitCodes.BAD_INPUT, none.exit());
    }

    @Test
    void aCommandThatDoesNotExistIsACrashVerdict() {
        CliRun r = CliRun.of("conform", "--sut", "/no/such/program", "--schedules", "2", "--shrink-runs", "2", "-q");
        assertEquals(ExitCodes.DISAGREEMENT, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("verdict: FAIL: crashed"), r.out());
        assertTrue(r.out().contains("not found") || r.out().contains("No such file"), r.out());
    }
}
