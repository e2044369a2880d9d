package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen validate}, {@code lumen scenarios} and {@code lumen bench} from the command line. */
class ValidateCliTest {
    static final Path SCENARIOS = Path.of(System.getProperty("lumen.home", ".."), "reference-impl/src/test/resources/scenarios");

    @TempDir
    Path tmp;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void aFolderIsItsTracesAndABatchSaysHowFastItWent() {
        CliRun r = run("validate", "--jobs", "2", SCENARIOS.toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.DISAGREEMENT);   // the corrupt scenarios are rejected
        assertThat(r.out()).contains("holder-failure.jsonl: ACCEPTED").contains("corrupt-holder-is-server.jsonl:3: REJECTED by S4")
                .containsPattern("[0-9]+ traces, [0-9]+ accepted, in [0-9.]+ s: [0-9.]+ traces/s, [0-9]+ events/s \\(2 at a time\\)");
        // the reports come in the order of the files, whatever order the jobs finish in
        assertThat(r.out().indexOf("budget-exhaustion.jsonl")).isLessThan(r.out().indexOf("single-failure-restore.jsonl"));
        CliRun bad = run("validate", "--jobs", "0", SCENARIOS.toString());
        assertThat(bad.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(bad.err()).contains("--jobs must be at least 1");
    }

    @Test
    void anAcceptedAndARejectedTrace() {
        CliRun ok = run("validate", SCENARIOS.resolve("holder-failure.jsonl").toString());
        assertThat(ok.exit()).as(ok.out() + ok.err()).isEqualTo(ExitCodes.OK);
        assertThat(ok.out()).contains("ACCEPTED");
        CliRun bad = run("validate", SCENARIOS.resolve("holder-failure.jsonl").toString(),
                SCENARIOS.resolve("corrupt-holder-is-server.jsonl").toString());
        assertThat(bad.exit()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(bad.out()).contains("corrupt-holder-is-server.jsonl:3: REJECTED by S4 HolderIsNotServer");
        assertThat(bad.out()).contains("spec state before this event");
    }

    @Test
    void tlcDecidesTheSameWayAndSaysWhereItStopped() throws Exception {
        CliRun r = run("validate", "--tlc", SCENARIOS.resolve("holder-failure.jsonl").toString(),
                SCENARIOS.resolve("corrupt-resume-past-checkpoint.jsonl").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        // the first RESTORE (line 149) claims 16 positions its checkpoint never saved
        assertThat(r.out()).contains("holder-failure.jsonl: ACCEPTED by TLC: every event is a step of the spec and every property holds,"
                        + " at the trace's own constants (1034 events")
                .contains("corrupt-resume-past-checkpoint.jsonl:149: REJECTED by TLC: S9 RestoreResumesAtSavedPrefix, after 147 events")
                .contains("[type |-> \"Route\"");
        Path reals = tmp.resolve("reals.jsonl");
        Files.writeString(reals, Files.readString(SCENARIOS.resolve("holder-failure.jsonl")).replaceFirst("\"alpha\":1.0", "\"alpha\":1.5"));
        Path report = tmp.resolve("tlc.json");
        CliRun u = run("validate", "--tlc", "--report", report.toString(), reals.toString(), tmp.resolve("nope.jsonl").toString());
        assertThat(u.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(u.out()).contains("reals.jsonl: UNSUPPORTED by TLC: TLC has no reals");
        assertThat(u.err()).contains("lumen: UNREADABLE: ").contains("nope.jsonl: no such file").doesNotContain("Exception");
        JsonNode rows = new ObjectMapper().readTree(report.toFile()).get("traces");
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).get("verdict").asText()).isEqualTo("UNSUPPORTED");
        assertThat(rows.get(0).get("reason").asText()).contains("no reals");
        assertThat(rows.get(1).get("verdict").asText()).isEqualTo("UNREADABLE");
    }

    @Test
    void aBatchGoesOnPastWhatItCannotJudgeAndTheReportHasEveryRow() throws Exception {
        Path big = tmp.resolve("big-int.jsonl");
        Files.writeString(big, Files.readString(SCENARIOS.resolve("holder-failure.jsonl")).replaceFirst("\"req\":0", "\"req\":99999999999999999999999"));
        Path huge = tmp.resolve("huge-header.jsonl");
        Files.writeString(huge, Files.readString(SCENARIOS.resolve("holder-failure.jsonl")).replaceFirst("\"workers\":4", "\"workers\":10000000"));
        Path report = tmp.resolve("r.json");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        CliRun r = run("validate", "--report", report.toString(), big.toString(), tmp.resolve("nope.jsonl").toString(), empty.toString(),
                huge.toString(), SCENARIOS.resolve("holder-failure.jsonl").toString());
        assertThat(r.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.out()).contains("big-int.jsonl:2: field 'req' must be an integer in 0..2147483647, found 99999999999999999999999")
                .contains("huge-header.jsonl:1: field 'config.workers' must be an integer in 2..4096")
                .contains("holder-failure.jsonl: ACCEPTED");
        assertThat(r.err()).contains("nope.jsonl: no such file").contains("is a folder with no traces");
        assertThat(r.out() + r.err()).doesNotContain("Exception");
        JsonNode doc = new ObjectMapper().readTree(report.toFile());
        assertThat(doc.get("total").asInt()).isEqualTo(5);
        assertThat(doc.get("accepted").asInt()).isEqualTo(1);
        java.util.List<String> verdicts = new java.util.ArrayList<>();
        doc.get("traces").forEach(t -> verdicts.add(t.get("verdict").asText()));
        assertThat(verdicts).containsExactly("MALFORMED", "UNREADABLE", "UNREADABLE", "MALFORMED", "ACCEPTED");
        assertThat(doc.get("traces").get(0).get("error").get("line").asInt()).isEqualTo(2);
    }

    @Test
    void theJsonReportIsWrittenAtomicallyAndSaysWhy() throws Exception {
        Path report = tmp.resolve("r.json");
        CliRun r = run("validate", "--json", "--report", report.toString(), SCENARIOS.resolve("corrupt-resume-past-checkpoint.jsonl").toString());
        assertThat(r.exit()).isEqualTo(ExitCodes.DISAGREEMENT);
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(new ObjectMapper().readTree(report.toFile())).isEqualTo(doc);
        JsonNode t = doc.get("traces").get(0);
        assertThat(t.get("verdict").asText()).isEqualTo("REJECTED");
        assertThat(t.get("divergence").get("property").asText()).isEqualTo("S9");
        assertThat(t.get("divergence").get("line").asInt()).isEqualTo(149);
        // the first 32 positions are the checkpoint's, the 16 past it are not the request's
        assertThat(t.get("divergence").get("expected").asText()).isEqualTo("its own positions 1..48");
        assertThat(t.get("divergence").get("actual").asText()).isEqualTo("its own positions 1..32, then a hole at position 33");
        assertThat(doc.get("accepted").asInt()).isEqualTo(0);
    }

    @Test
    void badInputGetsOneLocatedLineAndNoStackTrace() throws Exception {
        Path f = tmp.resolve("bad.jsonl");
        Files.writeString(f, "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\",\"workers\":3,"
                + "\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}\n{\"type\":\"Restart\",\"worker\":9}\n");
        CliRun r = run("validate", f.toString());
        assertThat(r.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.out()).contains("bad.jsonl:2: Restart: unknown worker 9");
        assertThat(r.out() + r.err()).doesNotContain("Exception");
        CliRun missing = run("validate", tmp.resolve("nope.jsonl").toString());
        assertThat(missing.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(missing.err()).contains("nope.jsonl: no such file");
        CliRun dir = run("validate", Files.createDirectories(tmp.resolve("none")).toString());
        assertThat(dir.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(dir.err()).contains("is a folder with no traces");
    }

    @Test
    void scenariosRunListAndWriteTheirTraces() throws Exception {
        CliRun list = run("scenarios", "--list");
        assertThat(list.exit()).isEqualTo(ExitCodes.OK);
        assertThat(list.out()).contains("failure-during-handover");
        CliRun one = run("scenarios", "--out", tmp.toString(), "budget-exhaustion", "corrupt-holder-is-server");
        assertThat(one.exit()).as(one.out()).isEqualTo(ExitCodes.OK);
        assertThat(one.out().contains("budget-exhaustion") && one.out().contains(" ok")).as(one.out()).isTrue();
        assertThat(Files.readAllBytes(tmp.resolve("budget-exhaustion.jsonl")))
                .isEqualTo(Files.readAllBytes(SCENARIOS.resolve("budget-exhaustion.jsonl")));
        CliRun unknown = run("scenarios", "nope");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(unknown.err()).contains("unknown scenario 'nope'");
    }

    @Test
    void fuzzRunsForItsTimeAndReportsCoverage() {
        CliRun r = run("fuzz", "-q", "--minutes", "0.02", "--workers", "2", "--out", tmp.resolve("f.txt").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out().contains("no property failed") && r.out().contains("holder failure")).as(r.out()).isTrue();
        assertThat(Files.exists(tmp.resolve("f.txt"))).isFalse();
        assertThat(run("fuzz", "--minutes", "0").exit()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @Test
    void benchFuzzReaderCountsPerRuleAndKindAndPasses() {
        CliRun r = run("bench", "fuzz-reader", "--count", "90", "--seed", "7", "--kind", "atomic");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("int-beyond-64-bits", "ten-mb-line", "crlf", "ext-objects", "atomic total")
                .contains("stack traces: 0, hangs: 0, malformed inputs accepted: 0, tolerated inputs refused: 0")
                .contains("90 inputs from").doesNotContain("history total");
        CliRun all = run("bench", "fuzz-reader", "--count", "100", "--seed", "7");
        assertThat(all.exit()).as(all.out() + all.err()).isEqualTo(ExitCodes.OK);
        assertThat(all.out()).contains("atomic total", "begin-end total", "partial total", "per-process total", "history total")
                .contains("end-without-begin", "vc-own-count", "bad-retry", "100 inputs from");
        assertThat(run("bench", "fuzz-reader", "--count", "0").exit()).isEqualTo(ExitCodes.BAD_INPUT);
        CliRun bad = run("bench", "fuzz-reader", "--kind", "traces");
        assertThat(bad.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(bad.err()).contains("unknown input kind 'traces'", "per-process");
    }

    @Test
    void benchRefusesWhatItDoesNotKnow() {
        CliRun r = run("bench", "everything");
        assertThat(r.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.err()).contains("unknown benchmark 'everything'");
        CliRun s = run("bench", "heap", "--size-mb", "0");
        assertThat(s.exit()).isEqualTo(ExitCodes.BAD_INPUT);
    }
}
