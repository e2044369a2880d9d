package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen simulate} from the command line. */
class SimulateCliTest {
    @TempDir
    Path tmp;

    @Test
    void aShortRunPrintsTheTableAndWritesTheCsv() throws Exception {
        CliRun r = CliRun.of("simulate", "--workload", "poisson", "--rate", "3", "--duration-s", "60", "--fail-at-s", "20",
                "--out", tmp.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("baseline (no failure)") && r.out().contains("stop-and-restart") && r.out().contains("lumen"), r.out());
        String csv = Files.readString(tmp.resolve("requests-lumen.csv"));
        assertTrue(csv.startsWith("policy,request,arrive_ms"), csv);
        assertTrue(csv.lines().count() > 100, "one row per request");
        assertTrue(Files.readString(tmp.resolve("summary.txt")).contains("recovery"));
    }

    @Test
    void badInputIsAClearError() {
        CliRun p = CliRun.of("simulate", "--preset", "gpt-5");
        assertEquals(ExitCodes.BAD_INPUT, p.exit());
        assertTrue(p.err().contains("unknown preset 'gpt-5'"), p.err());
        CliRun w = CliRun.of("simulate", "--workload", "tweets");
        assertEquals(ExitCodes.BAD_INPUT, w.exit());
        assertTrue(w.err().contains("unknown workload 'tweets'"), w.err());
        CliRun f = CliRun.of("simulate", "--fail-fraction", "1.5");
        assertEquals(ExitCodes.BAD_INPUT, f.exit());
    }
}
