package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import lumen.core.Config;
import lumen.core.Event;
import lumen.trace.SyntheticTrace;
import org.junit.jupiter.api.Test;

/**
 * The mirror keeps the last {@link Mirror#KEEP} finished requests whole and only the ids of older
 * ones ({@link lumen.core.ClusterState#forget}): its memory follows the requests in flight, and an
 * event that names a long-finished request is judged as one that names a request just finished.
 */
class ForgottenRequestsTest {
    static final Config CONFIG = new Config("lumen", 4, 1, 1, 64, 32, 1 << 20, 16, 4);

    static SyntheticTrace.Spec spec() {
        // about 3,000 requests of 8 tokens, 32 in flight
        return new SyntheticTrace.Spec(CONFIG, 50_000, 8, 16, 8, 20_000, 1);
    }

    @Test
    void theRecordsKeptFollowTheRequestsInFlight() throws Exception {
        Mirror m = new Mirror(CONFIG);
        long[] line = {1};
        int[] most = {0};
        int[] finished = {0};
        SyntheticTrace.generate(spec(), e -> {
            assertThat(m.step(e, ++line[0], null)).as("line %d", line[0]).isNull();
            finished[0] += e instanceof Event.Complete ? 1 : 0;
            most[0] = Math.max(most[0], m.state().requests().size());
        });
        assertThat(finished[0]).isGreaterThan(2 * Mirror.KEEP);
        assertThat(most[0]).as("records kept at most").isLessThanOrEqualTo(8 * 4 + Mirror.KEEP + 1);
    }

    @Test
    void anEventNamingALongFinishedRequestIsJudgedAsOneNamingARequestJustFinished() throws Exception {
        String trace = new String(SyntheticTrace.toBytes(spec(), 2), StandardCharsets.UTF_8);
        assertThat(Validator.validate(trace.getBytes(StandardCharsets.UTF_8), "t", Validator.Options.defaults()).verdict())
                .isEqualTo(Verdict.ACCEPTED);
        String[] lines = trace.split("\n");
        // request 0 finished thousands of completions ago; the last Complete's request just now
        String last = null;
        for (int i = lines.length - 1; i > 0 && last == null; i--) {
            last = lines[i].contains("\"type\":\"Complete\"") ? lines[i].replaceAll(".*\"req\":([0-9]+).*", "$1") : null;
        }
        for (String bad : new String[] {
            "{\"type\":\"Decode\",\"req\":%s,\"worker\":0,\"tokens\":[1],\"pages\":[[1,1,\"0000000000000000\"]]}",
            "{\"type\":\"Complete\",\"req\":%s,\"worker\":0,\"freed\":0}",
            "{\"type\":\"Arrive\",\"req\":%s,\"worker\":0,\"promptLen\":4,\"ref\":[1]}",
            "{\"type\":\"StreamPage\",\"req\":%s,\"holder\":1,\"ckpt\":16,\"pages\":[[1,16,\"0000000000000000\"]]}"}) {
            ValidationResult old = Validator.validate((trace + String.format(bad, 0) + "\n").getBytes(StandardCharsets.UTF_8), "t",
                    Validator.Options.defaults());
            ValidationResult recent = Validator.validate((trace + String.format(bad, last) + "\n").getBytes(StandardCharsets.UTF_8), "t",
                    Validator.Options.defaults());
            assertThat(old.verdict()).as(bad).isEqualTo(recent.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(old.divergence().finding().property()).as(bad).isEqualTo(recent.divergence().finding().property());
            assertThat(old.divergence().state()).contains("request 0: DONE (it finished earlier in the trace");
        }
    }
}
