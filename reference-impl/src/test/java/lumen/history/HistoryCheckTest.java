package lumen.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import lumen.core.KitTokens;
import lumen.core.PropertyId;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.trace.TraceFormatException;
import lumen.validate.Verdict;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

class HistoryCheckTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static String history(String scenario) {
        Scenario sc = Scenarios.find(scenario);
        return new String(ScenarioRun.run(sc).history(), StandardCharsets.UTF_8);
    }

    static HistoryCheck.Result check(String text, boolean complete) throws Exception {
        History h = History.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "h.jsonl");
        return HistoryCheck.check(h, HistoryCheck.Reference.kit(KitTokens.VOCAB), null, complete);
    }

    @Test
    void everyAcceptedScenarioIsAcceptedFromWhatItsClientsSaw() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (Scenario sc : Scenarios.all()) {
            if (!sc.expectsAcceptance()) {
                continue;
            }
            HistoryCheck.Result r = check(new String(ScenarioRun.run(sc).history(), StandardCharsets.UTF_8), true);
            soft.assertThat(r.verdict()).as(sc.name() + ": " + r.finding()).isEqualTo(Verdict.ACCEPTED);
            soft.assertThat(r.requests()).as(sc.name()).isEqualTo(sc.workload().size());
            soft.assertThat(r.faults()).as(sc.name()).isEqualTo(sc.faults().size());
            soft.assertThat(r.summary().ttftAll().n()).as(sc.name()).isPositive();
        }
        soft.assertAll();
    }

    /** The lines of a history, each as a JSON object. */
    static List<ObjectNode> lines(String text) throws Exception {
        List<ObjectNode> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            out.add((ObjectNode) JSON.readTree(l));
        }
        return out;
    }

    static String text(List<ObjectNode> ls) {
        StringBuilder b = new StringBuilder();
        ls.forEach(o -> b.append(o).append('\n'));
        return b.toString();
    }

    /** The index of the first chunk with tokens after the first fault, of a request sent before it. */
    static int firstChunkAfterFault(List<ObjectNode> ls) {
        int fault = -1;
        for (int i = 0; i < ls.size(); i++) {
            if (ls.get(i).get("object").asText().equals("fault")) {
                fault = i;
                break;
            }
        }
        assertThat(fault).as("the scenario has a fault").isNotNegative();
        for (int i = fault + 1; i < ls.size(); i++) {
            ObjectNode o = ls.get(i);
            if (o.get("object").asText().equals("text_completion") && o.get("choices").get(0).get("token_ids").size() > 0
                    && tokensBefore(ls, i, o.get("request").asText()) > 0) {
                return i;
            }
        }
        throw new AssertionError("no chunk after the fault for a request that had streamed before it");
    }

    static int tokensBefore(List<ObjectNode> ls, int upTo, String req) {
        int n = 0;
        for (int i = 0; i < upTo; i++) {
            ObjectNode o = ls.get(i);
            if (o.get("object").asText().equals("text_completion") && o.get("request").asText().equals(req)) {
                n += o.get("choices").get(0).get("token_ids").size();
            }
        }
        return n;
    }

    static ArrayNode tokens(ObjectNode chunk) {
        return (ArrayNode) chunk.get("choices").get(0).get("token_ids");
    }

    static int lastToken(List<ObjectNode> ls, int before, String req) {
        int t = -1;
        for (int i = 0; i < before; i++) {
            ObjectNode o = ls.get(i);
            if (o.get("object").asText().equals("text_completion") && o.get("request").asText().equals(req) && tokens(o).size() > 0) {
                t = tokens(o).get(tokens(o).size() - 1).asInt();
            }
        }
        return t;
    }

    @Test
    void aTokenRepeatedIsS16AndOneLostOrAlteredIsS7AndEachSaysWhichItLooksLike() throws Exception {
        String good = history("single-failure-restore");
        assertThat(check(good, true).verdict()).isEqualTo(Verdict.ACCEPTED);

        List<ObjectNode> repeated = lines(good);
        int i = firstChunkAfterFault(repeated);
        String req = repeated.get(i).get("request").asText();
        tokens(repeated.get(i)).insert(0, lastToken(repeated, i, req));
        HistoryCheck.Result r = check(text(repeated), true);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S16);
        assertThat(r.finding().message()).contains("again").contains("a resume one position too early");
        assertThat(r.line()).isEqualTo(i + 1);
        assertThat(r.request()).isEqualTo(req);

        // a re-prefill that restarts the stream: the request's first token arrives again after the fault
        List<ObjectNode> restarted = lines(good);
        int first = -1;
        for (int k = 0; k < i && first < 0; k++) {
            ObjectNode o = restarted.get(k);
            if (o.get("object").asText().equals("text_completion") && o.get("request").asText().equals(req) && tokens(o).size() > 0) {
                first = tokens(o).get(0).asInt();
            }
        }
        tokens(restarted.get(i)).insert(0, first);
        HistoryCheck.Result again = check(text(restarted), true);
        assertThat(again.finding().property()).isEqualTo(PropertyId.S16);
        assertThat(again.finding().message()).contains("is sent token 1 again");
        assertThat(again.line()).isEqualTo(i + 1);

        List<ObjectNode> lost = lines(good);
        ArrayNode t = tokens(lost.get(i));
        if (t.size() == 1) {
            // the next token of the request arrives alone: take it from the chunk after
            lost.remove(i);
        } else {
            t.remove(0);
        }
        r = check(text(lost), true);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S7);
        assertThat(r.finding().message()).containsAnyOf("was lost", "past the end", "not a prefix");

        List<ObjectNode> altered = lines(good);
        tokens(altered.get(i)).set(0, tokens(altered.get(i)).get(0).asInt() + 1);
        r = check(text(altered), true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S7);
        assertThat(r.finding().expected()).startsWith("token ");
    }

    /** The indices of request req's chunks that carry exactly one token, in order. */
    static List<Integer> singleTokenChunks(List<ObjectNode> ls, String req) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < ls.size(); i++) {
            ObjectNode o = ls.get(i);
            if (o.get("object").asText().equals("text_completion") && o.get("request").asText().equals(req) && tokens(o).size() == 1) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Each wrong output is named as what it is: two tokens swapped (not a lost token), a second
     * answer interleaved with the first (S2, not an altered or repeated token), tokens after an
     * error (not a lost request); and a rejected history counts the tokens it judged.
     */
    @Test
    void aSwapASecondAnswerAndTokensAfterAnErrorAreNamedAsSuch() throws Exception {
        List<ObjectNode> good = lines(history("single-failure-restore"));
        String req = good.get(0).get("request").asText();
        List<Integer> singles = singleTokenChunks(good, req);
        assertThat(singles).as("the request streams token by token").hasSizeGreaterThan(5);

        List<ObjectNode> swapped = lines(text(good));
        int a = singles.get(2);
        int b = singles.get(3);
        int ta = tokens(swapped.get(a)).get(0).asInt();
        tokens(swapped.get(a)).set(0, tokens(swapped.get(b)).get(0).asInt());
        tokens(swapped.get(b)).set(0, ta);
        HistoryCheck.Result r = check(text(swapped), true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S7);
        assertThat(r.finding().message()).contains("arrive swapped").doesNotContain("lost");
        assertThat(r.line()).isEqualTo(a + 1);
        assertThat(r.tokens()).as("the tokens judged before the swap").isPositive();

        // a second answer: tokens 1 and 2 again, each after a chunk of the first answer, which goes on
        List<ObjectNode> second = lines(text(good));
        int t1 = tokens(good.get(singles.get(0))).get(0).asInt();
        int t2 = tokens(good.get(singles.get(1))).get(0).asInt();
        int at = singles.get(3);
        ObjectNode dup1 = good.get(at).deepCopy();
        tokens(dup1).set(0, t1);
        ObjectNode dup2 = good.get(singles.get(4)).deepCopy();
        tokens(dup2).set(0, t2);
        second.add(singles.get(4) + 1, dup2);
        second.add(at + 1, dup1);
        r = check(text(second), true);
        assertThat(r.finding().property()).as(String.valueOf(r.finding())).isEqualTo(PropertyId.S2);
        assertThat(r.finding().message()).contains("a second answer interleaved with the first");
        assertThat(r.line()).isEqualTo(at + 2);

        // an error in the middle of the stream, and every token after it
        List<ObjectNode> errorThenMore = lines(text(good));
        ObjectNode err = JSON.createObjectNode().put("object", "error").put("request", req).put("t", good.get(at).get("t").asDouble());
        err.putObject("error").put("message", "worker lost");
        errorThenMore.add(at + 1, err);
        r = check(text(errorThenMore), true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S2);
        assertThat(r.finding().message()).contains("tokens after an error").contains("worker lost").doesNotContain("lost a request");
        assertThat(r.line()).isEqualTo(at + 2);
    }

    /** A request record, and its chunks carrying {@code toks} (one token each; the last finishes with length when {@code finish}). */
    static String attempt(String id, String retries, long seed, int max, double t, int[] toks, boolean finish) {
        StringBuilder b = new StringBuilder("{\"object\":\"request\",\"request\":\"" + id + "\",\"t\":" + t + ",\"max_tokens\":" + max
                + ",\"seed\":" + seed + (retries == null ? "" : ",\"retries\":\"" + retries + "\"") + "}\n");
        for (int i = 0; i < toks.length; i++) {
            b.append("{\"object\":\"text_completion\",\"request\":\"").append(id).append("\",\"t\":").append(t + i + 1)
                    .append(",\"choices\":[{\"index\":0,\"token_ids\":[").append(toks[i]).append("],\"finish_reason\":")
                    .append(finish && i == toks.length - 1 ? "\"length\"" : "null").append("}]}\n");
        }
        return b.toString();
    }

    /**
     * A client's retry of a request it gave up on is written with {@code retries}, and the pair is
     * judged: the first attempt's error is the retry's to answer, and the retry must give the whole
     * output (it was MALFORMED: a request sent twice). A stream's one choice has index 0.
     */
    @Test
    void aRetryAnswersForTheRequestItRetries() throws Exception {
        int[] ref = KitTokens.reference(5, 4, KitTokens.VOCAB);
        String first = attempt("a", null, 5, 4, 0, java.util.Arrays.copyOf(ref, 2), false)
                + "{\"object\":\"error\",\"request\":\"a\",\"t\":10.0,\"error\":\"client timeout\"}\n";
        HistoryCheck.Result ok = check(first + attempt("a2", "a", 5, 4, 20, ref, true), true);
        assertThat(ok.verdict()).as(String.valueOf(ok.finding())).isEqualTo(Verdict.ACCEPTED);
        assertThat(ok.requests()).isEqualTo(2);
        // the retry fails too: S1 on the last attempt
        HistoryCheck.Result lost = check(first + attempt("a2", "a", 5, 4, 20, java.util.Arrays.copyOf(ref, 1), false)
                + "{\"object\":\"error\",\"request\":\"a2\",\"t\":30.0,\"error\":\"upstream reset\"}\n", true);
        assertThat(lost.finding().property()).isEqualTo(PropertyId.S1);
        assertThat(lost.request()).isEqualTo("a2");
        // a retry that is not the same request, of a request still streaming, or of one never sent, is not a retry
        String[][] bad = {
            {first + attempt("a2", "a", 6, 4, 20, ref, true), "with another max_tokens, seed or prompt_tokens"},
            {attempt("a", null, 5, 4, 0, java.util.Arrays.copyOf(ref, 2), false) + attempt("a2", "a", 5, 4, 20, ref, true), "whose stream has not ended"},
            {attempt("a2", "zz", 5, 4, 20, ref, true), "which no request record before it sent"},
            {first + attempt("a2", "a", 5, 4, 20, ref, true) + attempt("a3", "a", 5, 4, 40, ref, true), "is retried twice"},
            {attempt("a", null, 5, 4, 0, ref, true).replace("\"index\":0", "\"index\":1"), "'choices[0].index' must be 0"},
        };
        for (String[] b : bad) {
            assertThatExceptionOfType(TraceFormatException.class).as(b[1]).isThrownBy(() -> check(b[0], true)).withMessageContaining(b[1]);
        }
    }

    /** The index of request req's finishing chunk. */
    static int finishOf(List<ObjectNode> ls, String req) {
        for (int i = 0; i < ls.size(); i++) {
            ObjectNode o = ls.get(i);
            if (o.get("object").asText().equals("text_completion") && o.get("request").asText().equals(req)
                    && !o.get("choices").get(0).get("finish_reason").isNull()) {
                return i;
            }
        }
        throw new AssertionError("request " + req + " never finishes");
    }

    @Test
    void aRequestAnsweredTwiceIsS2AndAShortOrFailedFinishIsS1() throws Exception {
        List<ObjectNode> ls = lines(history("single-failure-restore"));
        String req = ls.get(0).get("request").asText();
        int fin = finishOf(ls, req);

        List<ObjectNode> twice = new ArrayList<>(ls);
        twice.add(twice.get(fin).deepCopy());
        HistoryCheck.Result r = check(text(twice), true);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S2);
        assertThat(r.finding().message()).contains("answered again after it finished at line " + (fin + 1));

        List<ObjectNode> shortFinish = lines(text(ls));
        shortFinish.remove(fin);
        // the finish moves to the chunk before, which now ends the stream short
        int prev = -1;
        for (int i = fin - 1; i >= 0; i--) {
            if (shortFinish.get(i).get("object").asText().equals("text_completion") && shortFinish.get(i).get("request").asText().equals(req)) {
                prev = i;
                break;
            }
        }
        ((ObjectNode) shortFinish.get(prev).get("choices").get(0)).put("finish_reason", "length");
        r = check(text(shortFinish), true);
        assertThat(r.finding().property()).as(String.valueOf(r.finding())).isEqualTo(PropertyId.S1);
        assertThat(r.finding().message()).contains("completed short");

        List<ObjectNode> failed = lines(text(ls));
        ObjectNode err = JSON.createObjectNode().put("object", "error").put("request", req).put("t", failed.get(fin).get("t").asDouble());
        err.putObject("error").put("message", "upstream connection reset");
        failed.set(fin, err);
        r = check(text(failed), true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S1);
        assertThat(r.finding().message()).contains("upstream connection reset");
    }

    @Test
    void aRequestThatNeverFinishesIsIncompleteOrL1() throws Exception {
        List<ObjectNode> ls = lines(history("single-failure-restore"));
        String req = ls.get(0).get("request").asText();
        ls.remove(finishOf(ls, req));
        HistoryCheck.Result r = check(text(ls), false);
        assertThat(r.verdict()).isEqualTo(Verdict.INCOMPLETE);
        assertThat(r.open()).containsExactly(req);
        r = check(text(ls), true);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.finding().property()).isEqualTo(PropertyId.L1);
    }

    @Test
    void aReferenceHistoryJudgesTheOutputsWhenThereIsNoKitModel() throws Exception {
        String base = history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", "");
        History ref = History.read(new ByteArrayInputStream(base.getBytes(StandardCharsets.UTF_8)), "ref.jsonl");
        History same = History.read(new ByteArrayInputStream(base.getBytes(StandardCharsets.UTF_8)), "run.jsonl");
        assertThat(HistoryCheck.check(same, HistoryCheck.Reference.of(ref), ref, true).verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(HistoryCheck.check(same, HistoryCheck.Reference.kit(KitTokens.VOCAB), null, true).verdict()).isEqualTo(Verdict.MALFORMED);
        List<ObjectNode> ls = lines(base);
        int i = firstChunkAfterFault(ls);
        tokens(ls.get(i)).set(0, tokens(ls.get(i)).get(0).asInt() ^ 1);
        History altered = History.read(new ByteArrayInputStream(text(ls).getBytes(StandardCharsets.UTF_8)), "run.jsonl");
        HistoryCheck.Result r = HistoryCheck.check(altered, HistoryCheck.Reference.of(ref), ref, true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S7);
    }

    /** The history with each chunk's token ids replaced by text, one word per token, as a text-only endpoint streams it. */
    static List<ObjectNode> asText(String history) throws Exception {
        List<ObjectNode> ls = lines(history);
        for (ObjectNode o : ls) {
            if (o.path("object").asText().equals("text_completion")) {
                ObjectNode c = (ObjectNode) o.get("choices").get(0);
                StringBuilder b = new StringBuilder();
                c.remove("token_ids").forEach(x -> b.append(" w").append(x.asInt()).append('\u00e9'));
                c.put("text", b.toString());
            }
        }
        return ls;
    }

    static History read(String text, String name) throws Exception {
        return History.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), name);
    }

    /**
     * A history whose chunks carry text alone is judged character by character against a reference
     * history recorded the same way (a text-only endpoint under --reference equivalence); the kit's
     * token model cannot judge it, and a history that mixes the two kinds is malformed at its line.
     */
    @Test
    void aTextOnlyHistoryIsJudgedByItsTextAgainstAReferenceHistory() throws Exception {
        List<ObjectNode> base = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""));
        History ref = read(text(base), "ref.jsonl");
        assertThat(ref.textOnly).isTrue();
        HistoryCheck.Result same = HistoryCheck.check(read(text(base), "run.jsonl"), HistoryCheck.Reference.of(ref), ref, true);
        assertThat(same.verdict()).as(String.valueOf(same.finding())).isEqualTo(Verdict.ACCEPTED);
        HistoryCheck.Result kit = HistoryCheck.check(read(text(base), "run.jsonl"), HistoryCheck.Reference.kit(KitTokens.VOCAB), null, true);
        assertThat(kit.verdict()).isEqualTo(Verdict.MALFORMED);
        assertThat(kit.finding().message()).contains("text without token ids").contains("--reference equivalence");
        // a chunk after the fault sent again: the client's text no longer only grows
        int i = firstChunkAfterFault(lines(history("single-failure-restore")));
        List<ObjectNode> twice = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""));
        twice.add(i + 1, twice.get(i).deepCopy());
        HistoryCheck.Result dup = HistoryCheck.check(read(text(twice), "run.jsonl"), HistoryCheck.Reference.of(ref), ref, true);
        assertThat(dup.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(dup.finding().property()).as(dup.finding().toString()).isEqualTo(PropertyId.S16);
        assertThat(dup.line()).isEqualTo(i + 2);
        assertThat(dup.finding().message()).contains("is sent character").contains("judged by text").doesNotContain("sent token");
        // the report's own words are reworded, never what it quotes from the history: a request id that says "token" stays
        List<ObjectNode> named = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", "")
                .replaceAll("\"request\":\"([0-9]+)\"", "\"request\":\"tokens-$1\""));
        named.add(i + 1, named.get(i).deepCopy());
        List<ObjectNode> namedRef = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", "")
                .replaceAll("\"request\":\"([0-9]+)\"", "\"request\":\"tokens-$1\""));
        History nref = read(text(namedRef), "ref.jsonl");
        HistoryCheck.Result nd = HistoryCheck.check(read(text(named), "run.jsonl"), HistoryCheck.Reference.of(nref), nref, true);
        assertThat(nd.finding().property()).isEqualTo(PropertyId.S16);
        assertThat(nd.finding().message()).contains("request 'tokens-").contains("is sent character").doesNotContain("'characters-");
        // a stream that starts again from its first character, its text the same as before: a restart, not two answers
        com.carrotsearch.hppc.IntArrayList got = new com.carrotsearch.hppc.IntArrayList();
        "HelloHello, world!".codePoints().forEach(got::add);
        int[] hello = "Hello, world!".codePoints().toArray();
        assertThat(HistoryCheck.interleaved(HistoryCheck.Output.of(hello), got, 5)).as("a restart is one answer").isFalse();
        assertThat(HistoryCheck.characters("request '5''s output: token 3 and the error 'max_tokens' (tokens)"))
                .isEqualTo("request '5''s output: character 3 and the error 'max_tokens' (characters)");
        // one character altered to one the text holds earlier: still an altered character, not a repeat
        List<ObjectNode> recurring = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""));
        ObjectNode rc = (ObjectNode) recurring.get(i).get("choices").get(0);
        rc.put("text", "w" + rc.get("text").asText().substring(1));
        HistoryCheck.Result rec = HistoryCheck.check(read(text(recurring), "run.jsonl"), HistoryCheck.Reference.of(ref), ref, true);
        assertThat(rec.finding().property()).as(rec.finding().toString()).isEqualTo(PropertyId.S7);
        // a word altered into one that starts with a character the reference has next: altered, not lost,
        // and the report shows characters, not code points
        List<ObjectNode> word = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""));
        ObjectNode wc = (ObjectNode) word.get(i).get("choices").get(0);
        String orig = wc.get("text").asText();
        wc.put("text", orig.charAt(0) + "" + orig.charAt(2) + "zzzz" + orig.substring(Math.min(orig.length(), 6)));
        HistoryCheck.Result wr = HistoryCheck.check(read(text(word), "run.jsonl"), HistoryCheck.Reference.of(ref), ref, true);
        assertThat(wr.finding().property()).isEqualTo(PropertyId.S7);
        assertThat(wr.finding().message()).as(wr.finding().toString()).contains("an altered character").doesNotContain("was lost");
        assertThat(wr.finding().actual()).startsWith("'").endsWith("'");
        // one character altered
        List<ObjectNode> altered = asText(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""));
        ObjectNode c = (ObjectNode) altered.get(i).get("choices").get(0);
        c.put("text", c.get("text").asText().replace('\u00e9', 'e'));
        HistoryCheck.Result alt = HistoryCheck.check(read(text(altered), "run.jsonl"), HistoryCheck.Reference.of(ref), ref, true);
        assertThat(alt.finding().property()).isEqualTo(PropertyId.S7);
        assertThat(alt.line()).isEqualTo(i + 1);
        // a reference recorded with token ids judges no text-only run, and the other way round
        History ids = read(history("single-failure-restore").replaceAll(",\"seed\":-?[0-9]+", ""), "ids.jsonl");
        assertThat(HistoryCheck.check(read(text(base), "run.jsonl"), HistoryCheck.Reference.of(ids), ids, true).finding().message())
                .contains("record both the same way");
        // the odd chunk out is named: text alone among chunks with ids at its own line; one chunk with ids
        // among text-only chunks makes the text-only chunks before it the odd ones, named at the first
        List<ObjectNode> oneText = lines(history("single-failure-restore"));
        ObjectNode oc = (ObjectNode) oneText.get(i).get("choices").get(0);
        oc.remove("token_ids");
        oc.put("text", " w1");
        assertThatExceptionOfType(lumen.trace.TraceFormatException.class).isThrownBy(() -> read(text(oneText), "m.jsonl"))
                .withMessageContaining("token ids in every chunk, or text alone in every chunk")
                .satisfies(ex -> assertThat(ex.line()).isEqualTo(i + 1));
        List<ObjectNode> firstText = lines(history("single-failure-restore"));
        int first = 0;
        while (!firstText.get(first).path("object").asText().equals("text_completion")) {
            first++;
        }
        ObjectNode fc = (ObjectNode) firstText.get(first).get("choices").get(0);
        fc.remove("token_ids");
        fc.put("text", " w1");
        int firstLine = first + 1;
        assertThatExceptionOfType(lumen.trace.TraceFormatException.class).isThrownBy(() -> read(text(firstText), "f.jsonl"))
                .withMessageContaining("has no choices[0].token_ids, but the chunk at line")
                .satisfies(ex -> assertThat(ex.line()).isEqualTo(firstLine));
        List<ObjectNode> neither = asText(history("single-failure-restore"));
        ((ObjectNode) neither.get(i).get("choices").get(0)).remove("text");
        assertThatExceptionOfType(lumen.trace.TraceFormatException.class).isThrownBy(() -> read(text(neither), "n.jsonl"))
                .withMessageContaining("'choices[0].text'").satisfies(ex -> assertThat(ex.line()).isEqualTo(i + 1));
    }

    @Test
    void withAFailureFreeBaselineTheRecoveryTimeIsMeasured() throws Exception {
        Scenario base0 = Scenarios.find("single-failure-restore");
        // a minute of arrivals, so that 30 s in a row can be back to normal after the failure
        List<lumen.runtime.Arrival> minute = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            minute.add(new lumen.runtime.Arrival(i, i * 250.0, 8 + i % 24, 4 + i % 9, 1000L + i));
        }
        Scenario sc = new Scenario("minute", "", base0.config(), base0.cost(), base0.options(), minute,
                List.of(new lumen.runtime.Fault(1, 5_000, lumen.runtime.Fault.Point.AT_TIME)), List.of(), base0.corruption(), null);
        Scenario calm = new Scenario("calm", "", sc.config(), sc.cost(), sc.options(), minute, List.of(), List.of(), sc.corruption(), null);
        History run = History.read(new ByteArrayInputStream(ScenarioRun.run(sc).history()), "run.jsonl");
        History base = History.read(new ByteArrayInputStream(ScenarioRun.run(calm).history()), "base.jsonl");
        HistoryCheck.Result r = HistoryCheck.check(run, HistoryCheck.Reference.kit(sc.options().vocab()), base, true);
        assertThat(r.verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(r.summary().failAtMs()).isEqualTo(run.faults.get(0).t());
        assertThat(r.summary().recoveryMs()).isNotNaN().isNotNegative();
        assertThat(r.summary().interrupted()).isPositive();
    }

    /** An error after a request's finish is named as such, not as a second answer. */
    @Test
    void anErrorAfterTheFinishIsNamedAsSuch() throws Exception {
        String h = "{\"object\":\"request\",\"request\":\"a\",\"t\":0,\"max_tokens\":1,\"seed\":1}\n"
                + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":1,\"choices\":[{\"token_ids\":["
                + KitTokens.reference(1, 1, KitTokens.VOCAB)[0] + "],\"finish_reason\":\"length\"}]}\n"
                + "{\"object\":\"error\",\"request\":\"a\",\"t\":2,\"error\":\"the stream ended without [DONE]\"}\n";
        HistoryCheck.Result r = check(h, true);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S2);
        assertThat(r.line()).isEqualTo(3);
        assertThat(r.finding().message()).contains("reports an error").contains("after it finished at line 2").doesNotContain("served twice");
    }

    @Test
    void badRecordsAreLocated() {
        String req = "{\"object\":\"request\",\"request\":\"a\",\"t\":0,\"max_tokens\":2,\"seed\":1}\n";
        String[][] bad = {
            {req + req, "2", "sent twice"},
            {"{\"object\":\"text_completion\",\"request\":\"b\",\"t\":1,\"choices\":[{\"token_ids\":[1],\"finish_reason\":null}]}\n", "1", "no request record"},
            {req + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":1,\"choices\":[{\"finish_reason\":null}]}\n", "2", "token_ids"},
            {req + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":1,\"choices\":[{\"token_ids\":\"1 2\"}]}\n", "2", "must be an array"},
            {req + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":-1,\"choices\":[{\"token_ids\":[1],\"finish_reason\":null}]}\n", "2", "backwards"},
            {req + "{\"object\":\"completion\",\"request\":\"a\",\"t\":1}\n", "2", "unknown record object"},
            {"{\"object\":\"request\",\"request\":\"a\",\"t\":0}\n", "1", "max_tokens"},
            {"not json\n", "1", "not a JSON object"},
        };
        for (String[] b : bad) {
            assertThatExceptionOfType(TraceFormatException.class).as(b[2])
                    .isThrownBy(() -> History.read(new ByteArrayInputStream(b[0].getBytes(StandardCharsets.UTF_8)), "h.jsonl"))
                    .satisfies(ex -> {
                        assertThat(ex.line()).isEqualTo(Long.parseLong(b[1]));
                        assertThat(ex.getMessage()).contains(b[2]);
                    });
        }
    }

    /**
     * A history is JSON Lines, one JSON object per line: a second value after a record's object (a
     * NUL there too) is an error on its line. A request that asks for the most tokens a request may
     * (max_tokens 2147483647) is judged without holding its whole reference output, which the kit's
     * token model gives token by token. (The first was dropped unread; the second threw an
     * OutOfMemoryError.)
     */
    @Test
    void aRecordIsOneObjectAndAHugeMaxTokensIsJudgedWithoutItsWholeReference() throws Exception {
        String[] ls = history("single-failure-restore").split("\n");
        assertThat(ls[2]).startsWith("{");
        for (String tail : new String[] {" {}", "\u0000", " 5", "{\"object\":\"fault\",\"t\":1.0}"}) {
            String[] x = ls.clone();
            x[2] = x[2] + tail;
            assertThatExceptionOfType(TraceFormatException.class).as(tail).isThrownBy(() -> check(String.join("\n", x) + "\n", false))
                    .satisfies(ex -> assertThat(ex.line()).isEqualTo(3));
        }
        String[] y = ls.clone();
        assertThat(y[0]).contains("\"object\":\"request\"");
        y[0] = y[0].replaceFirst("\"max_tokens\":[0-9]+", "\"max_tokens\":2147483647");
        HistoryCheck.Result r = check(String.join("\n", y) + "\n", false);
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.finding().property()).isEqualTo(PropertyId.S1);
        assertThat(r.finding().message()).contains("of its 2147483647 reference tokens");
    }

    /** The history with every record's time moved by {@code by} ms, or the last record's set to {@code last} (when not NaN). */
    static String retimed(String h, double by, double last) {
        String[] ls = h.split("\n");
        for (int i = 0; i < ls.length; i++) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"t\":([-0-9.eE+]+)").matcher(ls[i]);
            if (m.find()) {
                double t = i == ls.length - 1 && !Double.isNaN(last) ? last : Double.parseDouble(m.group(1)) + by;
                ls[i] = m.replaceFirst("\"t\":" + t);
            }
        }
        return String.join("\n", ls) + "\n";
    }

    /**
     * A client's clock may read anything: times in epoch milliseconds give the same metrics as times
     * from 0 (its fault at its own time), and a history whose times span more than the metrics'
     * 30 days (a clock that jumped, a time of 1e308) is judged without them. (The first needed a
     * slot for every second since 1970 and ran out of memory; the second threw.)
     */
    @Test
    void theMetricsDependOnTimesApartAndAClockThatJumpsLeavesThemOut() throws Exception {
        String h = history("single-failure-restore");
        HistoryCheck.Result r0 = check(h, false);
        assertThat(r0.summary().failAtMs()).isPositive();
        HistoryCheck.Result epoch = check(retimed(h, 1.7e12, Double.NaN), false);
        assertThat(epoch.verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(epoch.ttft().mean()).isCloseTo(r0.ttft().mean(), org.assertj.core.api.Assertions.within(1e-3));
        assertThat(epoch.tpot().mean()).isCloseTo(r0.tpot().mean(), org.assertj.core.api.Assertions.within(1e-3));
        assertThat(epoch.summary().failAtMs()).isCloseTo(r0.summary().failAtMs() + 1.7e12, org.assertj.core.api.Assertions.within(1.0));
        for (double last : new double[] {1e308, 31 * 86_400_000.0}) {
            HistoryCheck.Result jump = check(retimed(h, 0, last), false);
            assertThat(jump.verdict()).as("a last time of " + last).isEqualTo(Verdict.ACCEPTED);
            assertThat(jump.summary()).isNull();
        }
    }
}
