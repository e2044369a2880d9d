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

    private List<String> logs(String scenario) throws Exception {
        CliRun sc = CliRun.of("scenarios", "--out", tmp.toString(), "--per-process", scenario);
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
}
