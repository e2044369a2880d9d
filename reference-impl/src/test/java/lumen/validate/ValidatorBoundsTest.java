package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What an event claims does not decide what the validator holds or prints: a claim of billions
 * of positions is judged without being applied, and a report on a huge event quotes it cut.
 */
class ValidatorBoundsTest {
    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\","
            + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}";
    static final String ARRIVE = "{\"type\":\"Arrive\",\"t\":1.5,\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}";
    static final String PLACE = "{\"type\":\"Place\",\"t\":2.0,\"req\":0,\"holder\":1}";

    static ValidationResult validate(String trace) throws Exception {
        return Validator.validate(new ByteArrayInputStream(trace.getBytes(StandardCharsets.UTF_8)), "x.jsonl");
    }

    static String lines(String... ls) {
        return String.join("\n", ls) + "\n";
    }

    @Test
    void aReportOnAHugeEventQuotesItCut() throws Exception {
        StringBuilder tokens = new StringBuilder("[1");
        for (int i = 0; i < 200_000; i++) {
            tokens.append(",7");
        }
        String trace = lines(HEADER, ARRIVE, PLACE, "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":" + tokens + "]}");
        ValidationResult r = validate(trace);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(ValidationReport.text(r)).hasSizeLessThan(4000).contains("bytes)");
        assertThat(ValidationReport.json(r).toString()).hasSizeLessThan(4000);
    }

    @Test
    void aRequestAtTheContextLimitStreamedWholeTakesMilliseconds() throws Exception {
        int prompt = lumen.trace.TraceFormat.MAX_CONTEXT - 2;
        StringBuilder t = new StringBuilder(HEADER.replace("\"budget\":40", "\"budget\":2147483647")).append('\n');
        t.append("{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":").append(prompt).append(",\"ref\":[11,12]}\n");
        t.append("{\"type\":\"Place\",\"req\":0,\"holder\":1}\n{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[11]}\n")
                .append("{\"type\":\"StreamPage\",\"req\":0,\"holder\":1,\"ckpt\":").append(prompt).append("}\n");
        long t0 = System.nanoTime();
        ValidationResult r = validate(t.toString());
        assertThat((System.nanoTime() - t0) / 1e9).as("validation time, s").isLessThan(2.0);
        assertThat(r.verdict()).as("%s", r.error()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void aClaimOfBillionsOfPositionsIsJudgedWithoutBeingHeld() throws Exception {
        String prefix = lines(HEADER, ARRIVE, PLACE, "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[11]}");
        ValidationResult stream = validate(prefix + "{\"type\":\"StreamPage\",\"req\":0,\"holder\":1,\"ckpt\":2147483647}\n");
        assertThat(stream.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(stream.divergence().finding().property()).hasToString("S6");
        ValidationResult route = validate(prefix + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n"
                + "{\"type\":\"Route\",\"req\":0,\"mode\":\"RESTORE\",\"worker\":1,\"resumed\":2147483647,\"freed\":0}\n");
        assertThat(route.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(route.divergence().finding().property()).hasToString("S9");
    }

}
