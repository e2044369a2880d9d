package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen validate} on a partial trace: the mirror and TLC search for the Place lines it does not log. */
class PartialTraceCliTest {
    @TempDir
    Path tmp;

    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"observes\":{\"Place\":\"hidden\"},"
            + "\"config\":{\"policy\":\"lumen\",\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":1000,\"tau\":2,\"budget\":64,"
            + "\"pageTokens\":1,\"k\":2}}\n";
    /** r0 arrives on worker 0; loads (1, 0, 0), so its holder is 1 or 2; its Place is not logged. */
    static final String RUN = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":2,\"ref\":[5,6]}\n"
            + "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[5]}\n";

    @Test
    void theHolderItsStreamingShowsIsAcceptedOrRejectedByTheMirrorAndByTlc() throws Exception {
        Path good = tmp.resolve("good.jsonl");
        Files.writeString(good, HEADER + RUN + "{\"type\":\"StreamPage\",\"req\":0,\"holder\":2,\"ckpt\":1}\n", StandardCharsets.UTF_8);
        CliRun ok = CliRun.of("validate", good.toString());
        assertThat(ok.exit()).as(ok.out() + ok.err()).isEqualTo(ExitCodes.OK);
        assertThat(ok.out()).contains("ACCEPTED").contains("partial trace (Place not logged)").contains("each placement was inferred");
        CliRun okTlc = CliRun.of("validate", "--tlc", good.toString());
        assertThat(okTlc.exit()).as(okTlc.out() + okTlc.err()).isEqualTo(ExitCodes.OK);
        assertThat(okTlc.out()).contains("ACCEPTED by TLC");

        // worker 0 serves r0: a checkpoint on its own server is no placement the policy allows
        Path bad = tmp.resolve("bad.jsonl");
        Files.writeString(bad, HEADER + RUN + "{\"type\":\"StreamPage\",\"req\":0,\"holder\":0,\"ckpt\":1}\n", StandardCharsets.UTF_8);
        CliRun no = CliRun.of("validate", bad.toString());
        assertThat(no.exit()).as(no.out() + no.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(no.out()).contains(bad + ":4: REJECTED").contains("matched:  the 2 events before this one");
        CliRun noTlc = CliRun.of("validate", "--tlc", bad.toString());
        assertThat(noTlc.exit()).as(noTlc.out() + noTlc.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(noTlc.out()).contains(bad + ":4: REJECTED by TLC");
    }
}
