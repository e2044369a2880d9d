package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen scenarios --per-process} and {@code lumen validate --processes}, with and without TLC. */
class ProcessLogsCliTest {
    @TempDir
    Path tmp;

    private List<String> logs(String scenario, String... more) throws Exception {
        CliRun sc = CliRun.of(java.util.stream.Stream.concat(java.util.stream.Stream.of("scenarios", "--out", tmp.toString(), "--per-process",
                scenario), java.util.stream.Stream.of(more)).toArray(String[]::new));
        assertThat(sc.exit()).as(sc.out() + sc.err()).isEqualTo(ExitCodes.OK);
        try (var files = Files.list(tmp.resolve(scenario))) {
            return files.map(Path::toString).sorted().toList();
        }
    }

    @Test
    void aRunsLogsAreMergedAndARejectionIsPlacedInItsOwnFileByTheMirrorAndByTlc() throws Exception {
        List<String> good = logs("single-failure-restore");
        assertThat(good).anyMatch(f -> f.endsWith("gateway.jsonl")).anyMatch(f -> f.endsWith("worker-0.jsonl"));
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("validate", "--processes"), good.stream()).toArray(String[]::new);
        CliRun ok = CliRun.of(args);
        assertThat(ok.exit()).as(ok.out() + ok.err()).isEqualTo(ExitCodes.OK);
        assertThat(ok.out()).contains("ACCEPTED (" + good.size() + " per-process logs");
        // a folder is its logs, as the command's usage says
        CliRun folder = CliRun.of("validate", "--processes", tmp.resolve("single-failure-restore").toString());
        assertThat(folder.exit()).as(folder.out() + folder.err()).isEqualTo(ExitCodes.OK);
        assertThat(folder.out()).contains("ACCEPTED (" + good.size() + " per-process logs");

        List<String> bad = logs("corrupt-holder-is-server");
        String[] tlcArgs = java.util.stream.Stream.concat(java.util.stream.Stream.of("validate", "--processes", "--tlc"), bad.stream())
                .toArray(String[]::new);
        CliRun r = CliRun.of(tlcArgs);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(r.out()).contains("REJECTED at " + tmp.resolve("corrupt-holder-is-server").resolve("gateway.jsonl") + ":3")
                .contains("TLC on the same merged order: REJECTED").contains("(agrees)").contains("S4 HolderIsNotServer");
    }

    @Test
    void wallClockLogsAreSearchedJudgedByTlcInTheOrderFoundAndASkewTheyBreakIsBadInput() throws Exception {
        List<String> bad = logs("corrupt-holder-is-server", "--wall-clock", "3");
        assertThat(Files.readString(Path.of(bad.get(0)))).contains("\"skew_ms\":3.0").contains("\"t\":").doesNotContain("\"vc\"");
        CliRun r = CliRun.of(java.util.stream.Stream.concat(java.util.stream.Stream.of("validate", "--processes", "--tlc", "--json"),
                bad.stream()).toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        com.fasterxml.jackson.databind.JsonNode row = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).get("traces").get(0);
        assertThat(row.get("verdict").asText()).isEqualTo("REJECTED");
        assertThat(row.get("origin").asText()).isEqualTo(tmp.resolve("corrupt-holder-is-server").resolve("gateway.jsonl") + ":3");
        assertThat(row.get("wallClock").get("skewMs").asDouble()).isEqualTo(3.0);
        assertThat(row.get("wallClock").get("cut").asBoolean()).isFalse();
        assertThat(row.get("tlcVerdict").asText()).isEqualTo("REJECTED");
        assertThat(row.get("tlcAgrees").asBoolean()).isTrue();
        CliRun text = CliRun.of(java.util.stream.Stream.concat(java.util.stream.Stream.of("validate", "--processes"), bad.stream())
                .toArray(String[]::new));
        assertThat(text.out()).contains("wall-clock windows under skew_ms=3:").contains("search states").contains("S4 HolderIsNotServer");

        List<String> good = logs("single-failure-restore", "--wall-clock", "3");
        // the gateway's clock a second ahead of what the headers declare
        Path gw = good.stream().filter(f -> f.endsWith("gateway.jsonl")).map(Path::of).findFirst().orElseThrow();
        StringBuilder ahead = new StringBuilder();
        for (String line : Files.readAllLines(gw)) {
            // each time in its "t" (a number or [start, end]) a second later
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"t\":(\\[[^]]*]|[0-9.]+)").matcher(line);
            if (m.find()) {
                String moved = java.util.regex.Pattern.compile("[0-9.]+").matcher(m.group(1))
                        .replaceAll(x -> Double.toString(Double.parseDouble(x.group()) + 1000));
                line = line.substring(0, m.start(1)) + moved + line.substring(m.end(1));
            }
            ahead.append(line).append('\n');
        }
        Files.writeString(gw, ahead.toString());
        CliRun skew = CliRun.of(java.util.stream.Stream.concat(java.util.stream.Stream.of("validate", "--processes"), good.stream())
                .toArray(String[]::new));
        assertThat(skew.exit()).as(skew.out() + skew.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(skew.out() + skew.err()).contains("contradict the declared skew_ms=3").contains("MALFORMED").doesNotContain("REJECTED");
        assertThat(CliRun.of("validate", "--processes", "--order-states", "0", gw.toString()).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    }
}
