package lumen.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import lumen.core.PropertyId;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

class LinearizeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"steps\":\"begin-end\","
            + "\"config\":{\"policy\":\"lumen\",\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}\n";

    static Linearize.Result lin(String s) throws Exception {
        return Linearize.of(s.getBytes(StandardCharsets.UTF_8), "t.jsonl");
    }

    static List<String> lines(Linearize.Result r) {
        return List.of(new String(r.atomic(), StandardCharsets.UTF_8).split("\n"));
    }

    @Test
    void aStepTakesEffectAtItsEndAndAChunkedPrefillJoinsItsPages() throws Exception {
        Linearize.Result r = lin(HEADER
                + "{\"type\":\"Prefill\",\"phase\":\"begin\",\"req\":0,\"worker\":0}\n"
                + "{\"type\":\"Arrive\",\"req\":1,\"worker\":1,\"promptLen\":4,\"ref\":[1]}\n"
                + "{\"type\":\"Prefill\",\"phase\":\"chunk\",\"req\":0,\"worker\":0,\"pages\":[[1,4,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Prefill\",\"phase\":\"end\",\"req\":0,\"worker\":0,\"tokens\":[7],\"pages\":[[5,2,\"00000000000000bb\"]]}\n");
        assertThat(lines(r)).hasSize(3);
        assertThat(lines(r).get(0)).doesNotContain("steps");
        ObjectNode prefill = (ObjectNode) JSON.readTree(lines(r).get(2));
        assertThat(prefill.has("phase")).isFalse();
        assertThat(((ArrayNode) prefill.get("pages")).size()).isEqualTo(2);
        assertThat(prefill.get("pages").get(0).get(2).asText()).isEqualTo("00000000000000aa");
        // the header, the Arrive at line 3, the Prefill at its end's line 5
        assertThat(r.origins()).containsExactly(1L, 3L, 5L);
        assertThat(r.unfinished()).isEmpty();
    }

    @Test
    void aFailureStopsTheStepsItInterruptsAndALateEndIsKeptForTheSpecToJudge() throws Exception {
        Linearize.Result r = lin(HEADER
                + "{\"type\":\"StreamPage\",\"phase\":\"begin\",\"req\":0,\"holder\":1}\n"
                + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n");
        assertThat(lines(r)).hasSize(2);
        assertThat(r.unfinished()).isEmpty();   // stopped by the failure, not left open
        Linearize.Result late = lin(HEADER
                + "{\"type\":\"StreamPage\",\"phase\":\"begin\",\"req\":0,\"holder\":1}\n"
                + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n"
                + "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4}\n");
        assertThat(lines(late)).hasSize(3);
        Linearize.Result open = lin(HEADER + "{\"type\":\"FullReady\",\"phase\":\"begin\",\"worker\":2}\n");
        assertThat(open.unfinished()).containsExactly("FullReady of worker 2 (begun at line 2)");
    }

    @Test
    void aDecodeComputedByAWorkerTakesItsPagesFromTheWorkersBeginAndARestartEndsWhatTheWorkerBegan() throws Exception {
        // the worker logs what it wrote; the gateway logs the tokens it took
        Linearize.Result r = lin(HEADER
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000cc\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":1,\"tokens\":[9]}\n");
        ObjectNode decode = (ObjectNode) JSON.readTree(lines(r).get(1));
        assertThat(decode.has("phase")).isFalse();
        assertThat(decode.get("tokens").get(0).asInt()).isEqualTo(9);
        assertThat(decode.get("pages").get(0).get(2).asText()).isEqualTo("00000000000000cc");
        assertThat(r.origins()).containsExactly(1L, 3L);
        // a begin on a worker that then restarts can never end: the same request's next Decode on that
        // worker is matched with its own begin, not the stale one
        Linearize.Result again = lin(HEADER
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Restart\",\"worker\":1}\n"
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000bb\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":1,\"tokens\":[9]}\n");
        assertThat(lines(again)).hasSize(3);
        assertThat(JSON.readTree(lines(again).get(2)).get("pages").get(0).get(2).asText()).isEqualTo("00000000000000bb");
        assertThat(again.unfinished()).isEmpty();
        // a begin left open by a worker that died is listed, and changes nothing
        Linearize.Result open = lin(HEADER + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":3,\"worker\":0}\n");
        assertThat(lines(open)).hasSize(1);
        assertThat(open.unfinished()).containsExactly("Decode of request 3 on worker 0 (begun at line 2)");
    }

    @Test
    void badFormsAreLocated() {
        String[][] bad = {
            {HEADER + "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4}\n", "2", "ends without its begin"},
            {HEADER + "{\"type\":\"Complete\",\"phase\":\"begin\",\"req\":0}\n", "2", "only Prefill, Decode, StreamPage, Route and FullReady"},
            {HEADER + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1}\n"
                    + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":2,\"tokens\":[7]}\n", "3", "ends without its begin"},
            {HEADER + "{\"type\":\"StreamPage\",\"phase\":\"chunk\",\"req\":0}\n", "2", "only a Prefill has chunks"},
            {HEADER + "{\"type\":\"Prefill\",\"phase\":\"middle\",\"req\":0}\n", "2", "must be \"begin\", \"chunk\" or \"end\""},
            {HEADER.replace(",\"steps\":\"begin-end\"", ""), "1", "declares \"steps\":\"begin-end\""},
        };
        for (String[] b : bad) {
            assertThatExceptionOfType(TraceFormatException.class).as(b[2]).isThrownBy(() -> lin(b[0]))
                    .satisfies(ex -> {
                        assertThat(ex.line()).isEqualTo(Long.parseLong(b[1]));
                        assertThat(ex.getMessage()).contains(b[2]);
                    });
        }
    }

    /** A runtime trace written with begin and end forms: each stream, restore and handover begun one line before it ends. */
    static String splitSteps(String whole) throws Exception {
        String[] ls = whole.split("\n");
        List<String> out = new ArrayList<>();
        out.add(ls[0].replaceFirst("\\{\"type\":\"header\",", "{\"type\":\"header\",\"steps\":\"begin-end\","));
        for (int i = 1; i < ls.length; i++) {
            ObjectNode o = (ObjectNode) JSON.readTree(ls[i]);
            String type = o.path("type").asText();
            boolean split = type.equals("StreamPage") || type.equals("FullReady") || type.equals("Route") && o.path("mode").asText().equals("RESTORE");
            if (split && out.size() > 1) {
                ObjectNode begin = JSON.createObjectNode().put("type", type).put("phase", "begin");
                if (o.has("req")) {
                    begin.set("req", o.get("req"));
                } else {
                    begin.set("worker", o.get("worker"));
                }
                // the begin goes before the previous line: something happens between begin and end
                out.add(out.size() - 1, begin.toString());
                o.put("phase", "end");
            }
            out.add(o.toString());
        }
        return String.join("\n", out) + "\n";
    }

    @Test
    void aRuntimeTraceWithBeginAndEndFormsIsJudgedAsTheAtomicOneAtItsOwnLines() throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), StandardCharsets.UTF_8);
        String split = splitSteps(whole);
        assertThat(split.split("\n").length).isGreaterThan(whole.split("\n").length);
        ValidationResult ok = Validator.validate(split.getBytes(StandardCharsets.UTF_8), "split.jsonl", Validator.Options.defaults());
        assertThat(ok.verdict()).as(ok.divergence() + " " + ok.error()).isEqualTo(Verdict.ACCEPTED);
        assertThat(ok.notes()).anyMatch(n -> n.contains("each step judged at its end"));

        // a restore that ends claiming one position more than its checkpoint: rejected at the end's own line
        String bad = split.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1");
        ValidationResult r = Validator.validate(bad.getBytes(StandardCharsets.UTF_8), "split.jsonl", Validator.Options.defaults());
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        String[] lines = bad.split("\n");
        assertThat(lines[(int) r.divergence().line() - 1]).contains("\"mode\":\"RESTORE\"").contains("\"phase\":\"end\"");
        ValidationResult atomic = Validator.validate(whole.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1")
                .getBytes(StandardCharsets.UTF_8), "whole.jsonl", Validator.Options.defaults());
        assertThat(r.divergence().finding().property()).isEqualTo(atomic.divergence().finding().property()).isIn(PropertyId.S9, PropertyId.S12);
    }
}
