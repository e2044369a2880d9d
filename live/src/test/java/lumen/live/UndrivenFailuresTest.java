package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every failure the logs show that the drill did not inject is reported, as the system's own
 * suspicion, with its line: a detector that failed five workers for two kills once read as "2
 * faults".
 */
class UndrivenFailuresTest {

    @Test
    void failuresBeyondThoseInjectedAreListedWithTheirLines(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("gateway.jsonl"), String.join("\n",
                "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"process\":\"gateway\",\"config\":{}}",
                "{\"type\":\"Fail\",\"t\":10.5,\"worker\":1,\"interrupted\":[],\"orphaned\":[],\"lc\":3}",
                "{\"type\":\"Fail\",\"t\":11.0,\"worker\":2,\"interrupted\":[],\"orphaned\":[],\"lc\":4}",
                "{\"type\":\"Restart\",\"t\":20.0,\"worker\":1,\"lc\":5}",
                "{\"type\":\"Fail\",\"t\":30.0,\"worker\":1,\"interrupted\":[4],\"orphaned\":[],\"lc\":6}") + "\n");
        Files.writeString(dir.resolve("worker-1.jsonl"), "{\"type\":\"header\",\"process\":\"worker-1\"}\n");
        List<LiveConform.Fault> injected = List.of(new LiveConform.Fault(500, 1), new LiveConform.Fault(900, 3));
        List<String> u = LiveConform.undriven(injected, LiveConform.loggedFails(dir));
        assertThat(u).containsExactly(
                "worker 1 failed 2 time(s) in the logs, 1 of them injected by the drill: gateway.jsonl:2 (t=10.5), gateway.jsonl:5 (t=30.0)",
                "worker 2 failed 1 time(s) in the logs, 0 of them injected by the drill: gateway.jsonl:3 (t=11.0)");
        // a drill whose every failure it injected itself reports none
        assertThat(LiveConform.undriven(List.of(new LiveConform.Fault(1, 1), new LiveConform.Fault(2, 1), new LiveConform.Fault(3, 2)), LiveConform.loggedFails(dir)))
                .isEmpty();
    }
}
