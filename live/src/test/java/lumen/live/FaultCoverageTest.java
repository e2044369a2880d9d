package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import lumen.history.History;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault that interrupted nothing says so: a drill whose killed worker's only request had
 * finished before the kill once reported 15 requests "in flight" and passed as if recovery had
 * been tested.
 */
class FaultCoverageTest {

    static final String HISTORY = String.join("\n",
            "{\"object\":\"request\",\"request\":\"a\",\"t\":0.0,\"prompt_tokens\":4,\"max_tokens\":3,\"seed\":1}",
            "{\"object\":\"request\",\"request\":\"b\",\"t\":1.0,\"prompt_tokens\":4,\"max_tokens\":3,\"seed\":2}",
            "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":10.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[1],\"finish_reason\":null}]}",
            "{\"object\":\"text_completion\",\"request\":\"b\",\"t\":11.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[1],\"finish_reason\":null}]}",
            "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":20.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[2],\"finish_reason\":null}]}",
            "{\"object\":\"text_completion\",\"request\":\"b\",\"t\":21.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[2],\"finish_reason\":null}]}",
            "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":30.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[3],\"finish_reason\":\"length\"}]}",
            "{\"object\":\"fault\",\"t\":35.0,\"worker\":\"1\"}",
            "{\"object\":\"text_completion\",\"request\":\"b\",\"t\":31.0,\"choices\":[{\"index\":0,\"text\":\"\",\"token_ids\":[3],\"finish_reason\":\"length\"}]}") + "\n";

    static History history(String text) throws Exception {
        return History.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "h.jsonl");
    }

    @Test
    void aFaultAfterEveryStreamEndedInterruptedNothing(@TempDir Path dir) throws Exception {
        Path logs = dir.resolve("trace.jsonl");
        Files.writeString(logs, "{\"type\":\"Fail\",\"t\":35.0,\"worker\":1,\"interrupted\":[],\"orphaned\":[]}\n");
        List<LiveConform.Interruption> is = LiveConform.interruptions(history(HISTORY), LiveConform.loggedFails(logs));
        assertThat(is).singleElement().satisfies(i -> {
            assertThat(i.inFlight()).isEmpty();
            assertThat(i.stalled()).isEmpty();
            assertThat(i.fromLogs()).isZero();
            assertThat(i.interruptedSome()).isFalse();
        });
        // without logs, the client's view alone: nothing in flight, nothing stalled
        assertThat(LiveConform.interruptions(history(HISTORY), null)).singleElement()
                .satisfies(i -> assertThat(i.interruptedSome()).isFalse());
    }

    @Test
    void aStreamThatStalledAcrossTheFaultWasInterrupted() throws Exception {
        // b's chunks come every 10 ms; across a fault at 25 ms its next one comes 400 ms later
        String stalled = HISTORY.replace("{\"object\":\"fault\",\"t\":35.0,\"worker\":\"1\"}\n", "")
                .replace("\"request\":\"b\",\"t\":31.0", "\"request\":\"b\",\"t\":421.0")
                .replace("{\"object\":\"text_completion\",\"request\":\"a\",\"t\":30.0", "{\"object\":\"fault\",\"t\":25.0,\"worker\":\"1\"}\n"
                        + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":30.0");
        List<LiveConform.Interruption> is = LiveConform.interruptions(history(stalled), null);
        assertThat(is).singleElement().satisfies(i -> {
            assertThat(i.inFlight()).containsExactly("a", "b");
            assertThat(i.stalled()).containsExactly("b");
            assertThat(i.fromLogs()).isNull();
            assertThat(i.interruptedSome()).isTrue();
        });
    }
    /**
     * A fault command takes effect when it acts, not when it starts: a stream that stalls 300 ms
     * into the command (a "sleep 0.3; kill" or a slow kubectl) stalled across the fault. Measured
     * at the command's start alone, it read as nothing interrupted, and --require-coverage failed
     * a drill that had exercised recovery.
     */
    @Test
    void aStallWhileTheFaultCommandRunsCountsAsInterrupted() throws Exception {
        StringBuilder b = new StringBuilder("{\"object\":\"request\",\"request\":\"a\",\"t\":0.0,\"prompt_tokens\":4,\"max_tokens\":40,\"seed\":1}\n");
        b.append("{\"object\":\"fault\",\"t\":100.0,\"worker\":\"1\"}\n");
        double t = 10;
        for (int i = 1; i <= 40; i++) {
            // a chunk every 10 ms, but none from 400 ms (300 ms into the command) to 600 ms
            t = t < 400 || t >= 600 ? t + 10 : 600;
            b.append("{\"object\":\"text_completion\",\"request\":\"a\",\"t\":").append(t)
                    .append(",\"choices\":[{\"index\":0,\"token_ids\":[").append(i).append("],\"finish_reason\":")
                    .append(i == 40 ? "\"length\"" : "null").append("}]}\n");
        }
        History h = history(b.toString());
        assertThat(LiveConform.interruptions(h, null)).singleElement()
                .satisfies(i -> assertThat(i.stalled()).as("measured at the command's start alone").isEmpty());
        assertThat(LiveConform.interruptions(h, null, java.util.Map.of(100.0, 410.0))).singleElement().satisfies(i -> {
            assertThat(i.stalled()).containsExactly("a");
            assertThat(i.interruptedSome()).isTrue();
            assertThat(i.fault()).contains("its command ran until 410 ms");
        });
    }
}
