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
    /** The arrival of request 0 (a step may begin only for a request that arrived). */
    static final String A0 = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[1]}\n";

    static Linearize.Result lin(String s) throws Exception {
        return Linearize.of(s.getBytes(StandardCharsets.UTF_8), "t.jsonl");
    }

    static List<String> lines(Linearize.Result r) {
        return List.of(new String(r.atomic(), StandardCharsets.UTF_8).split("\n"));
    }

    @Test
    void aStepTakesEffectAtItsEndAndAChunkedPrefillJoinsItsPages() throws Exception {
        Linearize.Result r = lin(HEADER + A0
                + "{\"type\":\"Prefill\",\"phase\":\"begin\",\"req\":0,\"worker\":0}\n"
                + "{\"type\":\"Arrive\",\"req\":1,\"worker\":1,\"promptLen\":4,\"ref\":[1]}\n"
                + "{\"type\":\"Prefill\",\"phase\":\"chunk\",\"req\":0,\"worker\":0,\"pages\":[[1,4,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Prefill\",\"phase\":\"end\",\"req\":0,\"worker\":0,\"tokens\":[7],\"pages\":[[5,2,\"00000000000000bb\"]]}\n");
        assertThat(lines(r)).hasSize(4);
        assertThat(lines(r).get(0)).doesNotContain("steps");
        ObjectNode prefill = (ObjectNode) JSON.readTree(lines(r).get(3));
        assertThat(prefill.has("phase")).isFalse();
        assertThat(((ArrayNode) prefill.get("pages")).size()).isEqualTo(2);
        assertThat(prefill.get("pages").get(0).get(2).asText()).isEqualTo("00000000000000aa");
        // the header, the Arrives at lines 2 and 4, the Prefill at its end's line 6
        assertThat(r.origins()).containsExactly(1L, 2L, 4L, 6L);
        assertThat(r.unfinished()).isEmpty();
    }

    @Test
    void aFailureStopsTheStepsItInterruptsAndALateEndIsKeptForTheSpecToJudge() throws Exception {
        Linearize.Result r = lin(HEADER + A0
                + "{\"type\":\"StreamPage\",\"phase\":\"begin\",\"req\":0,\"holder\":1}\n"
                + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n");
        assertThat(lines(r)).hasSize(3);
        assertThat(r.unfinished()).isEmpty();   // stopped by the failure, not left open
        Linearize.Result late = lin(HEADER + A0
                + "{\"type\":\"StreamPage\",\"phase\":\"begin\",\"req\":0,\"holder\":1}\n"
                + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n"
                + "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4}\n");
        assertThat(lines(late)).hasSize(4);
        Linearize.Result open = lin(HEADER + "{\"type\":\"FullReady\",\"phase\":\"begin\",\"worker\":2}\n");
        assertThat(open.unfinished()).containsExactly("FullReady of worker 2 (begun at line 2)");
    }

    @Test
    void aDecodeComputedByAWorkerTakesItsPagesFromTheWorkersBeginAndARestartEndsWhatTheWorkerBegan() throws Exception {
        // the worker logs what it wrote; the gateway logs the tokens it took
        Linearize.Result r = lin(HEADER + A0
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000cc\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":1,\"tokens\":[9]}\n");
        ObjectNode decode = (ObjectNode) JSON.readTree(lines(r).get(2));
        assertThat(decode.has("phase")).isFalse();
        assertThat(decode.get("tokens").get(0).asInt()).isEqualTo(9);
        assertThat(decode.get("pages").get(0).get(2).asText()).isEqualTo("00000000000000cc");
        assertThat(r.origins()).containsExactly(1L, 2L, 4L);
        // a begin on a worker that then restarts can never end: the same request's next Decode on that
        // worker is matched with its own begin, not the stale one
        Linearize.Result again = lin(HEADER + A0
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Restart\",\"worker\":1}\n"
                + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1,\"pages\":[[17,3,\"00000000000000bb\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":1,\"tokens\":[9]}\n");
        assertThat(lines(again)).hasSize(4);
        assertThat(JSON.readTree(lines(again).get(3)).get("pages").get(0).get(2).asText()).isEqualTo("00000000000000bb");
        assertThat(again.unfinished()).isEmpty();
        // a begin left open by a worker that died is listed, and changes nothing
        Linearize.Result open = lin(HEADER + A0.replace("\"req\":0", "\"req\":3") + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":3,\"worker\":0}\n");
        assertThat(lines(open)).hasSize(2);
        assertThat(open.unfinished()).containsExactly("Decode of request 3 on worker 0 (begun at line 3)");
    }

    /**
     * A worker step's end takes its begin's and chunks' pages before its own, whoever carried them:
     * an empty list on the begin (a Prefill after a restore that brought the whole KV back writes
     * nothing) gives the end an empty list, as the worker's log and the gateway's of lumen serve write it.
     */
    @Test
    void anEndTakesThePagesItsBeginCarriedEvenNone() throws Exception {
        String begin = "{\"type\":\"Prefill\",\"phase\":\"begin\",\"req\":0,\"worker\":0%s}\n";
        String end = "{\"type\":\"Prefill\",\"phase\":\"end\",\"req\":0,\"worker\":0,\"tokens\":[]%s}\n";
        String aa = "[1,4,\"00000000000000aa\"]";
        String bb = "[5,2,\"00000000000000bb\"]";
        String[][] cases = {
            {",\"pages\":[]", "", "[]"},
            {"", ",\"pages\":[]", "[]"},
            {",\"pages\":[]", ",\"pages\":[" + bb + "]", "[" + bb + "]"},
            {",\"pages\":[" + aa + "]", "", "[" + aa + "]"},
            {",\"pages\":[" + aa + "]", ",\"pages\":[]", "[" + aa + "]"},
            {",\"pages\":[" + aa + "]", ",\"pages\":[ " + bb + " ]", "[" + aa + "," + bb + "]"},
        };
        for (String[] c : cases) {
            Linearize.Result r = lin(HEADER + A0 + String.format(begin, c[0]) + String.format(end, c[1]));
            assertThat(JSON.readTree(lines(r).get(2)).get("pages")).as(c[0] + " / " + c[1]).isEqualTo(JSON.readTree(c[2]));
        }
    }

    /**
     * A whole run with begin and end forms: a step begun and never ended (no failure stopped it)
     * changes nothing, and is listed; under --complete the run is then INCOMPLETE, not ACCEPTED.
     */
    @Test
    void aStepLeftOpenIsNotACompleteRun() throws Exception {
        lumen.runtime.Scenario honest = lumen.runtime.Scenarios.all().stream().filter(lumen.runtime.Scenario::expectsAcceptance).findFirst().orElseThrow();
        String whole = new String(lumen.runtime.ScenarioRun.run(honest).trace(), StandardCharsets.UTF_8);
        String[] lines = whole.split("\n");
        ObjectNode header = (ObjectNode) JSON.readTree(lines[0]);
        header.put("steps", "begin-end");
        // a Decode begun on worker 0 for request 0 after the run, and never ended
        String open = header + "\n" + String.join("\n", java.util.Arrays.copyOfRange(lines, 1, lines.length))
                + "\n{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":0}\n";
        byte[] bytes = open.getBytes(StandardCharsets.UTF_8);
        lumen.validate.ValidationResult plain = lumen.validate.Validator.validate(bytes, "open.jsonl", lumen.validate.Validator.Options.defaults());
        assertThat(plain.verdict()).isEqualTo(lumen.validate.Verdict.ACCEPTED);
        assertThat(plain.notes()).anyMatch(n -> n.contains("begun and never ended") && n.contains("Decode of request 0 on worker 0"));
        lumen.validate.ValidationResult complete = lumen.validate.Validator.validate(bytes, "open.jsonl",
                lumen.validate.Validator.Options.defaults().withComplete(true));
        assertThat(complete.verdict()).isEqualTo(lumen.validate.Verdict.INCOMPLETE);
        assertThat(complete.unfinished()).anyMatch(u -> u.startsWith("Decode of request 0 on worker 0") && u.endsWith("begun and never ended"));
    }

    @Test
    void badFormsAreLocated() {
        String[][] bad = {
            {HEADER + "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4}\n", "2", "ends without its begin"},
            {HEADER + "{\"type\":\"Complete\",\"phase\":\"begin\",\"req\":0}\n", "2", "only Prefill, Decode, StreamPage, Route and FullReady"},
            {HEADER + A0 + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":1}\n"
                    + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":2,\"tokens\":[7]}\n", "4", "ends without its begin"},
            {HEADER + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":5,\"worker\":1}\n", "2", "unknown request 5"},
            {HEADER + A0 + "{\"type\":\"StreamPage\",\"phase\":\"chunk\",\"req\":0}\n", "3", "only a Prefill has chunks"},
            {HEADER + A0 + "{\"type\":\"Prefill\",\"phase\":\"middle\",\"req\":0}\n", "3", "must be \"begin\", \"chunk\" or \"end\""},
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

    /**
     * Every line form is read by the same rules: a begin or a chunk line that breaks a reading rule
     * is MALFORMED at its line, as an atomic or end line is. (Begin lines were once parsed leniently
     * and dropped, so each of these was ACCEPTED.)
     */
    @Test
    void everyBeginAndChunkLineIsReadByTheReadingRules() throws Exception {
        String sp = "{\"type\":\"StreamPage\",\"phase\":\"begin\",";
        String end = "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4,\"pages\":[[1,4,\"00000000000000aa\"]]}\n";
        String[][] bad = {
            {HEADER + A0 + "\n" + sp + "\"req\":0}\n" + end, "3", "a blank line"},
            {HEADER + A0 + sp + "\"req\":0,\"colour\":\"red\"}\n" + end, "3", "unknown field 'colour'"},
            {HEADER + A0 + sp + "\"req\":0,\"req\":0}\n" + end, "3", "appears twice"},
            {HEADER + A0 + sp + "\"req\":0,\"holder\":\"1\"}\n" + end, "3", "field 'holder' must be an integer"},
            {HEADER + A0 + sp + "\"req\":-1}\n" + end, "3", "field 'req' must be an integer from 0"},
            {HEADER + A0 + sp + "\"req\":0.5}\n" + end, "3", "field 'req' must be an integer"},
            {HEADER + A0 + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":3}\n", "3", "field 'worker' must be an integer from 0 to 2"},
            {HEADER + A0 + sp + "\"req\":0,\"t\":1e999}\n" + end, "3", "field 't' must be a finite number"},
            {HEADER + A0 + sp + "\"req\":0,\"ckpt\":99}\n" + end, "3", "unknown field 'ckpt'"},
            {HEADER + A0 + "{\"type\":\"FullReady\",\"phase\":\"begin\"}\n", "3", "missing field 'worker'"},
            {HEADER + A0 + sp + "\"req\":0,\"holder\":2}\n" + end, "4", "end names holder 1, its begin 2"},
            {HEADER + A0.replace("{\"type\":\"Arrive\",", "{\"type\":\"Arrive\",\"t\":5,") + sp + "\"req\":0,\"t\":4}\n" + end, "3",
                    "time goes backwards"},
            {HEADER + A0 + "{\"type\":\"Prefill\",\"phase\":\"chunk\",\"req\":0,\"worker\":0,\"pages\":[[1,9,\"00000000000000aa\"]]}\n", "3",
                    "field 'pages[].count' must be an integer from 1 to 4"},
            {HEADER + A0 + sp + "\"req\":0,\"ext\":[1]}\n" + end, "3", "field 'ext' must be a JSON object"},
            // a chunk after the failure that stopped its step names the failure
            {HEADER + A0 + "{\"type\":\"Prefill\",\"phase\":\"begin\",\"req\":0,\"worker\":0}\n"
                    + "{\"type\":\"Fail\",\"worker\":0,\"interrupted\":[0],\"orphaned\":[]}\n"
                    + "{\"type\":\"Prefill\",\"phase\":\"chunk\",\"req\":0,\"worker\":0,\"pages\":[[1,4,\"00000000000000aa\"]]}\n", "5",
                    "Prefill chunk after the Fail at line 4 stopped its step"},
        };
        for (String[] b : bad) {
            assertThatExceptionOfType(TraceFormatException.class).as(b[2]).isThrownBy(() -> lin(b[0]))
                    .satisfies(ex -> {
                        assertThat(ex.line()).as(b[2]).isEqualTo(Long.parseLong(b[1]));
                        assertThat(ex.getMessage()).contains(b[2]);
                    });
        }
        // bytes that are not UTF-8 on a begin line
        byte[] head = (HEADER + A0).getBytes(StandardCharsets.UTF_8);
        byte[] tail = (sp + "\"req\":0,\"ext\":{\"x\":\"\u00e9\"}}\n" + end).getBytes(StandardCharsets.UTF_8);
        byte[] t = new byte[head.length + tail.length];
        System.arraycopy(head, 0, t, 0, head.length);
        System.arraycopy(tail, 0, t, head.length, tail.length);
        for (int i = head.length; i < t.length; i++) {
            if ((t[i] & 0xff) == 0xC3) {
                t[i + 1] = '(';
            }
        }
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> Linearize.of(t, "t.jsonl"))
                .satisfies(ex -> assertThat(ex.line()).isEqualTo(3)).withMessageContaining("not UTF-8");
        // an end line with a duplicate key, or a time that overflows, is MALFORMED too, through the reader
        for (String[] e : new String[][] {
            {end.replace("\"req\":0,", "\"req\":0,\"req\":0,"), "appears twice"},
            {end.replace("\"req\":0,", "\"req\":0,\"t\":1e999,"), "1e999"}}) {
            ValidationResult v = Validator.validate(new java.io.ByteArrayInputStream((HEADER + A0 + sp + "\"req\":0}\n" + e[0])
                    .getBytes(StandardCharsets.UTF_8)), "t.jsonl");
            assertThat(v.verdict()).as(e[1]).isEqualTo(Verdict.MALFORMED);
            assertThat(v.error().line()).as(e[1]).isEqualTo(4);
        }
        // and the same begin, well formed, is read
        assertThat(lines(lin(HEADER + A0 + sp + "\"req\":0,\"holder\":1,\"t\":0.5,\"ext\":{\"x\":1e999}}\n" + end))).hasSize(3);
    }

    /**
     * A trace with begin and end forms is read as strictly as an atomic one, and its first line that
     * breaks a rule is the one named: two values on a line, a CR not followed by LF, an integer with
     * a fraction or an exponent, a time that is not finite, a header whose sizes break their limits,
     * an atomic line with an unknown type or missing fields, each before a begin or end that then
     * fails too. (Each of these was ACCEPTED, or named a later line, before.)
     */
    @Test
    void aBeginEndTraceIsReadAsStrictlyAsAnAtomicOneAndNamesItsFirstBadLine() throws Exception {
        String sp = "{\"type\":\"StreamPage\",\"phase\":\"begin\",\"req\":0}\n";
        String end = "{\"type\":\"StreamPage\",\"phase\":\"end\",\"req\":0,\"holder\":1,\"ckpt\":4,\"pages\":[[1,4,\"00000000000000aa\"]]}\n";
        String decode = "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":0}\n";
        String[][] bad = {
            {HEADER + A0.replace("}\n", "} {\"type\":\"Restart\",\"worker\":1}\n") + sp + end, "2", "two values on line 2"},
            {HEADER + A0 + sp + end.replace("}\n", "}\u0000\n"), "4", "a NUL after the object"},
            {HEADER + A0.replace(",\"worker\"", ",\r\"worker\"") + sp + end, "2", "a CR inside a line"},
            {HEADER + A0 + sp.replace("}\n", "}\r") + end, "3", "a CR that ends a line"},
            {HEADER + A0.replace("\"req\":0", "\"req\":0.0") + sp + end, "2", "an integer with a fraction"},
            {HEADER + A0 + sp + end.replace("[[1,4,", "[[10e-1,4,"), "4", "an integer with an exponent, on an end"},
            {HEADER + A0.replace("\"worker\":0", "\"worker\":0e0") + sp + end, "2", "an integer with an exponent of 0"},
            {HEADER + A0 + sp + end.replace("\"ckpt\":4", "\"ckpt\":0.4e1"), "4", "an integer with a fraction and an exponent, on an end"},
            {HEADER.replace("\"workers\":3", "\"workers\":3E0") + A0 + sp + end, "1", "an integer with an exponent in the header"},
            {HEADER + A0 + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":0,\"pages\":[[1,4,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":0,\"tokens\":[7],\"pages\":[[5,1e0,\"00000000000000bb\"]]}\n", "4",
                "an integer with an exponent in an end's own pages, after its begin's"},
            {HEADER + A0 + "{\"type\":\"Decode\",\"phase\":\"begin\",\"req\":0,\"worker\":0,\"pages\":[[1,4,\"00000000000000aa\"]]}\n"
                + "{\"type\":\"Decode\",\"phase\":\"end\",\"req\":0,\"worker\":0,\"tokens\":[7],\"pages\":5}\n", "4",
                "an end's pages that are not an array, after its begin's"},
            {HEADER + A0.replace("{\"type\":\"Arrive\",", "{\"type\":\"Arrive\",\"t\":1e999,") + sp.replace("\"req\":0}", "\"req\":0,\"t\":1}") + end,
                "2", "a time that is not finite"},
            {HEADER.replace("\"workers\":3", "\"workers\":0") + A0 + decode, "1", "a header with no workers"},
            {HEADER.replace("\"pageTokens\":4", "\"pageTokens\":0") + A0 + decode.replace("}\n", ",\"pages\":[[1,4,\"00000000000000aa\"]]}\n"), "1",
                "a header with pages of no positions"},
            {HEADER + A0.replace("Arrive", "Teleport") + decode, "2", "an unknown type before a begin of its request"},
            {HEADER + A0 + "{\"type\":\"FullReady\",\"worker\":2}\n{\"type\":\"FullReady\",\"phase\":\"end\",\"worker\":2,\"dropped\":[]}\n", "3",
                "a begin without its phase"},
        };
        for (String[] b : bad) {
            ValidationResult v = Validator.validate(b[0].getBytes(StandardCharsets.UTF_8), "t.jsonl", Validator.Options.defaults());
            assertThat(v.verdict()).as(b[2] + ": " + v.divergence()).isEqualTo(Verdict.MALFORMED);
            assertThat(v.error().line()).as(b[2] + ": " + v.error().getMessage()).isEqualTo(Long.parseLong(b[1]));
        }
        // an unknown type of 1 MB with a phase is quoted in 200 bytes
        ValidationResult v = Validator.validate((HEADER + A0 + "{\"type\":\"" + "x".repeat(1 << 20) + "\",\"phase\":\"begin\",\"req\":0}\n")
                .getBytes(StandardCharsets.UTF_8), "t.jsonl", Validator.Options.defaults());
        assertThat(v.error().line()).isEqualTo(3);
        assertThat(v.error().getMessage().length()).isLessThan(1000);
    }

    /**
     * The declaration is read as JSON: its key or value spelled with escapes is the declaration, and
     * the words in an ext object are not one. (The first was read as an atomic trace, whose header
     * has no field 'steps'; the second as a trace with begin and end forms that did not declare them.)
     */
    @Test
    void theDeclarationIsTheHeadersOwnFieldReadAsJson() throws Exception {
        String whole = new String(ScenarioRun.run(Scenarios.find("single-failure-restore")).trace(), StandardCharsets.UTF_8);
        String split = splitSteps(whole);
        for (String esc : new String[] {split.replaceFirst("\"steps\"", "\"st\\\\u0065ps\""),
            split.replaceFirst("\"begin-end\"", "\"begin\\\\u002dend\"")}) {
            ValidationResult r = Validator.validate(esc.getBytes(StandardCharsets.UTF_8), "esc.jsonl", Validator.Options.defaults());
            assertThat(r.verdict()).as(r.error() + " " + r.divergence()).isEqualTo(Verdict.ACCEPTED);
            ValidationResult s = Validator.validate(new java.io.ByteArrayInputStream(esc.getBytes(StandardCharsets.UTF_8)), "esc.jsonl");
            assertThat(s.verdict()).as(String.valueOf(s.error())).isEqualTo(Verdict.ACCEPTED);
        }
        String ext = whole.replaceFirst("^\\{\"type\":\"header\",", "{\"type\":\"header\",\"ext\":{\"steps\":\"begin-end\"},");
        ValidationResult r = Validator.validate(ext.getBytes(StandardCharsets.UTF_8), "ext.jsonl", Validator.Options.defaults());
        assertThat(r.verdict()).as(String.valueOf(r.error())).isEqualTo(Verdict.ACCEPTED);
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
