package lumen.conform;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Python tracing library (python/lumen-trace) passes its own tests: its token model and
 * digests, its trace writer, its clocks through HTTP headers and gRPC metadata, and its client
 * history recorder. Skipped, with the reason, where there is no python3.
 */
class PythonLibraryTest {
    static final Path TESTS = Path.of("..", "python", "lumen-trace", "tests").toAbsolutePath().normalize();

    @Test
    void theLibrarysOwnTestsPass() throws Exception {
        PythonExampleTest.command();   // skips, with the reason, without python3
        assertThat(Files.isDirectory(TESTS)).as(TESTS.toString()).isTrue();
        Process p = new ProcessBuilder("python3", "-m", "unittest", "discover", "-s", TESTS.toString(), "-v")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the tests finish").isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as(out).containsPattern("Ran [1-9][0-9]* tests").contains("\nOK");
    }

    /**
     * Logs the library writes with wall-clock time only are read and judged by the kit: a scenario's
     * run re-written through {@code ProcessLog(..., WallClock(skew))}, each process's clock off by
     * its own offset, is judged as its whole trace is (a valid run ACCEPTED, a zombie's page a
     * holder took REJECTED for S19 at the holder's line).
     */
    @Test
    void wallClockLogsTheLibraryWritesAreJudgedAsTheWholeTrace(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        PythonExampleTest.command();
        Path script = Path.of("src", "test", "resources", "python", "wall_logs.py").toAbsolutePath();
        Path src = TESTS.getParent().resolve("src");
        for (String name : new String[] {"single-failure-restore", "corrupt-zombie-page-stored"}) {
            byte[] whole = lumen.runtime.ScenarioRun.run(lumen.runtime.Scenarios.find(name)).trace();
            Path trace = tmp.resolve(name + ".jsonl");
            Files.write(trace, whole);
            Path dir = Files.createDirectories(tmp.resolve(name));
            Process p = new ProcessBuilder("python3", script.toString(), src.toString(), trace.toString(), dir.toString(), "4")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            java.util.List<byte[]> files = new java.util.ArrayList<>();
            java.util.List<String> names = new java.util.ArrayList<>();
            try (var ls = Files.list(dir)) {
                for (Path f : ls.sorted().toList()) {
                    files.add(Files.readAllBytes(f));
                    names.add(f.getFileName().toString());
                }
            }
            assertThat(new String(files.get(0), StandardCharsets.UTF_8)).contains("\"skew_ms\":4.0").doesNotContain("\"vc\"");
            lumen.validate.ValidationResult w = lumen.validate.Validator.validate(whole, name, lumen.validate.Validator.Options.defaults());
            lumen.validate.ProcessLogs.Result r = lumen.validate.ProcessLogs.validate(files, names, lumen.validate.Validator.Options.defaults());
            assertThat(r.wallClock()).isTrue();
            assertThat(r.result().verdict()).as(name + " " + r.result().notes()).isEqualTo(w.verdict());
            if (w.divergence() != null) {
                assertThat(r.result().divergence().finding().property()).isEqualTo(w.divergence().finding().property());
                assertThat(r.origin(r.result().divergence().line())).startsWith("worker-");
            }
        }
    }
}
