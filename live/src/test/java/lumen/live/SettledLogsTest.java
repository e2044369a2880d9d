package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.validate.ValidationResult;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drill judges the logs once the system has settled: logs judged the instant the clients
 * finished, while a failed worker was still coming back, were INCOMPLETE for no fault of the
 * system, and the same logs a moment later were accepted.
 */
class SettledLogsTest {

    @Test
    void logsThatFinishAMomentLaterAreJudgedFinished(@TempDir Path dir) throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), StandardCharsets.UTF_8);
        // the run as the logs stand when the clients finish: the failed worker's handover not yet written
        int cut = whole.lastIndexOf("{\"type\":\"FullReady\"");
        assertThat(cut).as("the scenario ends with a handover").isPositive();
        Path log = dir.resolve("trace.jsonl");
        Files.writeString(log, whole.substring(0, cut));
        List<String> notes = new ArrayList<>();
        assertThat(LiveConform.settled(log, 300, notes).verdict()).as("judged at once, the run is unfinished").isEqualTo(Verdict.INCOMPLETE);
        assertThat(notes).singleElement().asString().contains("the wait for the system to settle ran out (0.3 s)");

        Thread writer = new Thread(() -> {
            try {
                Thread.sleep(700);
                // the rest of the run, written whole (a reader never sees half a line)
                Path next = dir.resolve("trace.jsonl.next");
                Files.writeString(next, whole);
                Files.move(next, log, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        writer.start();
        notes.clear();
        ValidationResult r = LiveConform.settled(log, 20_000, notes);
        writer.join();
        assertThat(r.verdict()).as("%s %s", r.unfinished(), r.divergence()).isEqualTo(Verdict.ACCEPTED);
        assertThat(notes).singleElement().asString().contains("once they showed a finished run");
    }
}
