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
}
