package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import lumen.core.PropertyId;
import org.junit.jupiter.api.Test;

/**
 * A trace written to contract v1's docs, which counted the last emitted token's position as
 * written: v2's KV convention is a deliberate, versioned break, and a v1 trace it rejects is told
 * so, with what to change; its holes are positions never written (a v1 trace has no content).
 */
class V1TraceTest {

    static String trace(int ckpt) {
        return String.join("\n",
                "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\",\"workers\":2,\"alpha\":1.0,"
                        + "\"beta\":1.0,\"theta\":1000.0,\"tau\":32,\"budget\":4096,\"pageTokens\":1,\"k\":4}}",
                "{\"type\":\"Arrive\",\"t\":0.0,\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[5,6,7]}",
                "{\"type\":\"Place\",\"t\":0.0,\"req\":0,\"holder\":1}",
                "{\"type\":\"Prefill\",\"t\":1.0,\"req\":0,\"worker\":0,\"tokens\":[5]}",
                "{\"type\":\"StreamPage\",\"t\":1.5,\"req\":0,\"holder\":1,\"ckpt\":" + ckpt + "}",
                "{\"type\":\"Decode\",\"t\":2.0,\"req\":0,\"worker\":0,\"tokens\":[6]}",
                "{\"type\":\"Decode\",\"t\":3.0,\"req\":0,\"worker\":0,\"tokens\":[7]}",
                "{\"type\":\"Complete\",\"t\":3.0,\"req\":0,\"worker\":0,\"freed\":" + ckpt + "}") + "\n";
    }

    static ValidationResult validate(String t) throws Exception {
        return Validator.validate(new ByteArrayInputStream(t.getBytes(StandardCharsets.UTF_8)), "v1.jsonl");
    }

    @Test
    void aV1TraceThatCountsTheLastTokensPositionIsToldOfTheBreak() throws Exception {
        // after the prefill: 4 prompt positions written (v2), 5 by v1's count
        ValidationResult r = validate(trace(5));
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().finding().property()).isEqualTo(PropertyId.S6);
        assertThat(r.divergence().line()).isEqualTo(5);
        assertThat(r.divergence().finding().message()).contains("positions never written at [5]").doesNotContain("other content");
        assertThat(r.notes().get(0)).startsWith(Validator.V1_BREAK).contains("KvLen = promptLen + |output| - 1")
                .contains("count positions as v2 does");
        assertThat(ValidationReport.text(r)).contains("  v1 break: this is a trace of contract v1");

        ValidationResult ok = validate(trace(4));
        assertThat(ok.verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(ok.notes()).noneMatch(n -> n.startsWith(Validator.V1_BREAK));
    }
}
