package lumen.fuzz;

import static lumen.fuzz.TraceText.pick;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import lumen.core.KitTokens;
import lumen.fuzz.ReaderMutator.Base;
import lumen.fuzz.ReaderMutator.Change;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Input;
import lumen.fuzz.ReaderMutator.Mutant;
import lumen.fuzz.ReaderMutator.Rule;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.validate.Verdict;

/**
 * Mutated client histories (docs/history-format.md), read by {@code lumen history} against the
 * kit's token model. The bases are the histories the reference runtime's clients see. The mutants
 * break what the format says a history is (JSON Lines, one JSON object per line; each record's
 * {@code object} and {@code t}; a request's fields; a chunk's one choice with its token ids, its
 * finish reason and an index of 0; each request sent once, before its records, with times that do
 * not go backwards; a retry of an ended request, the same request, at most once) and must be
 * MALFORMED on their line, or make a change the format allows (other fields, faults, chunks split
 * or empty, a retry after an error, records of different requests interleaved otherwise) and must
 * be ACCEPTED. Bytes the format says nothing about (a byte-order mark, invalid UTF-8, a blank
 * line, a duplicate key) and values at their limits may get any verdict, but a verdict.
 */
final class HistoryMutator implements Generator {
    /** The name every history mutant's file has. */
    static final String SOURCE = "fuzz.history.jsonl";

    private final List<Base> bases;
    private final List<Rule> rules;
    private final long seed;

    HistoryMutator(List<Base> bases, long seed) {
        if (bases.isEmpty()) {
            throw new IllegalArgumentException("no base histories");
        }
        this.bases = List.copyOf(bases);
        this.rules = rules();
        this.seed = seed;
    }

    @Override
    public InputKind kind() {
        return InputKind.HISTORY;
    }

    @Override
    public int bases() {
        return bases.size();
    }

    @Override
    public HistoryMutator withSeed(long seed) {
        return new HistoryMutator(bases, seed);
    }

    /** The valid inputs the mutants start from. */
    List<Base> baseList() {
        return bases;
    }

    @Override
    public List<Label> labels() {
        return rules.stream().map(x -> new Label(x.name(), x.expect(), x.doc())).toList();
    }

    @Override
    public Mutant mutant(long i) {
        return Generator.draw(rules, bases, seed, i, (rule, b, r) -> {
            Change c = rule.mutation().apply(b, r);
            return c == null ? null : new Mutant(InputKind.HISTORY, rule.name(), rule.expect(), b.name(), List.of(new Input(SOURCE, c.bytes())),
                    SOURCE, c.line(), c.what());
        }, Rule::name, "base histories");
    }

    /** A history as a base, when the kit accepts it; else null. */
    static Base of(String name, byte[] history) {
        List<String> ls = new ArrayList<>(List.of(new String(history, StandardCharsets.UTF_8).split("\n")));
        Base b = new Base(name, List.copyOf(ls), 0, InputKind.HISTORY);
        return accepted(b.bytes()) ? b : null;
    }

    static boolean accepted(byte[] h) {
        try {
            History read = History.read(new ByteArrayInputStream(h), SOURCE);
            return HistoryCheck.check(read, HistoryCheck.Reference.kit(KitTokens.VOCAB), null, false).verdict() == Verdict.ACCEPTED;
        } catch (IOException | lumen.trace.TraceFormatException ex) {
            return false;
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    static ObjectNode tree(Base b, int i) {
        return ReaderMutator.tree(b.lines().get(i));
    }

    static String kind(ObjectNode o) {
        return o.path("object").asText();
    }

    /** The records of these kinds, by index; empty when none. */
    static List<Integer> records(Base b, Set<String> kinds) {
        List<Integer> is = new ArrayList<>();
        for (int i = 0; i < b.lines().size(); i++) {
            if (kinds.contains(kind(tree(b, i)))) {
                is.add(i);
            }
        }
        return is;
    }

    static Change set(Base b, int i, ObjectNode o, String what) {
        List<String> ls = new ArrayList<>(b.lines());
        ls.set(i, o.toString());
        return Change.lines(ls, i + 1, what);
    }

    static final Set<String> CHUNKS = Set.of("text_completion");
    static final Set<String> REQUESTS = Set.of("request");
    static final Set<String> WITH_ID = Set.of("request", "text_completion", "error");

    /** The choice of chunk {@code o}. */
    static ObjectNode choice(ObjectNode o) {
        return (ObjectNode) o.get("choices").get(0);
    }

    /** The index of the last record of request {@code id} before index {@code before}, or -1. */
    static int lastOf(Base b, String id, int before) {
        for (int i = before - 1; i >= 0; i--) {
            ObjectNode o = tree(b, i);
            if (WITH_ID.contains(kind(o)) && o.path("request").asText().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The history with request {@code id}'s stream ended by an error after {@code keep} of its
     * chunks, and a retry (a new request, the same request again) sent after it that streams the
     * whole output: the retried pair a client writes when it gives up on a stream.
     */
    static List<String> retried(Base b, String id, int keep, String retryId) {
        List<String> out = new ArrayList<>();
        List<ObjectNode> chunks = new ArrayList<>();
        ObjectNode req = null;
        int kept = 0;
        double lastT = 0;
        for (String l : b.lines()) {
            ObjectNode o = ReaderMutator.tree(l);
            boolean mine = WITH_ID.contains(kind(o)) && o.path("request").asText().equals(id);
            if (mine && kind(o).equals("request")) {
                req = o;
                out.add(l);
            } else if (mine) {
                chunks.add(o);
                if (kept < keep && choice(o).path("finish_reason").isNull()) {
                    out.add(l);
                    kept++;
                }
            } else {
                out.add(l);
            }
            if (o.has("t")) {
                lastT = Math.max(lastT, o.get("t").asDouble());
            }
        }
        double t = lastT + 1;
        ObjectNode err = ReaderMutator.MAPPER.createObjectNode().put("object", "error").put("request", id).put("t", t);
        err.putObject("error").put("message", "client timeout");
        out.add(err.toString());
        ObjectNode again = req.deepCopy();
        again.put("request", retryId);
        again.put("t", t + 1);
        again.put("retries", id);
        out.add(again.toString());
        for (ObjectNode c : chunks) {
            ObjectNode x = c.deepCopy();
            x.put("request", retryId);
            x.put("t", c.get("t").asDouble() - chunks.get(0).get("t").asDouble() + t + 2);
            out.add(x.toString());
        }
        return out;
    }

    /** A request id of the history, drawn at random, with at least one chunk. */
    static String request(Base b, SplittableRandom r) {
        List<String> ids = new ArrayList<>();
        for (int i : records(b, REQUESTS)) {
            String id = tree(b, i).path("request").asText();
            if (records(b, CHUNKS).stream().anyMatch(c -> tree(b, c).path("request").asText().equals(id))) {
                ids.add(id);
            }
        }
        return ids.isEmpty() ? null : pick(ids, r);
    }

    static int indexOf(List<String> ls, String kind, String id) {
        for (int i = 0; i < ls.size(); i++) {
            ObjectNode o = ReaderMutator.tree(ls.get(i));
            if (kind(o).equals(kind) && o.path("request").asText().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    // ---- the rules ------------------------------------------------------------------------------

    private static List<Rule> rules() {
        List<Rule> rs = new ArrayList<>();
        Expect m = Expect.MALFORMED;
        // JSON Lines: one JSON object per line, and JSON itself
        for (Rule x : ReaderMutator.rules(InputKind.ATOMIC)) {
            if (Set.of("invalid-json-syntax", "truncated-line", "line-split", "two-objects-on-a-line", "not-an-object", "nul-byte")
                    .contains(x.name())) {
                rs.add(new Rule(x.name(), x.expect(), "a history is JSON Lines: one JSON object per line (The format)", x.mutation()));
            }
        }
        rs.add(new Rule("bad-object", m, "each record has object: request, text_completion, error or fault (The format)", (b, r) -> {
            int i = r.nextInt(b.lines().size());
            ObjectNode o = tree(b, i);
            String v = pick(r, null, "5", "null", "\"chunk\"", "\"Request\"", "\"text_completion \"", "\"\"", "[\"request\"]", "\"faults\"");
            if (v == null) {
                o.remove("object");
            } else {
                o.set("object", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            }
            return set(b, i, o, "object " + v);
        }));
        rs.add(new Rule("bad-time", m, "each record has t, the client's time in milliseconds: a finite number (The format)", (b, r) -> {
            int i = r.nextInt(b.lines().size());
            List<TraceText.Tok> ts = TraceText.tokens(b.lines().get(i));
            String v = pick(r, null, "\"6.2\"", "null", "true", "[1]", "{}", "1e999", "-1e999", "1" + "0".repeat(400));
            if (v == null) {
                ObjectNode o = tree(b, i);
                o.remove("t");
                return set(b, i, o, "no t");
            }
            for (int k = 0; k < ts.size(); k++) {
                if ("t".equals(ts.get(k).field()) && ts.get(k).depth() == 1 && ts.get(k).kind().isNumeric()) {
                    return ReaderMutator.swap(b, new ReaderMutator.At(i, b.lines().get(i), ts), k, v, "t " + v);
                }
            }
            return null;
        }));
        rs.add(new Rule("bad-request-id", m, "request is the client's id for the request, a string or an integer, of 1 to 256"
                + " characters (The format; the limit is the reader's)", (b, r) -> {
            List<Integer> is = records(b, WITH_ID);
            int i = pick(is, r);
            ObjectNode o = tree(b, i);
            String v = pick(r, null, "1.5", "true", "null", "{}", "[\"7\"]", "\"\"", "\"" + "r".repeat(257) + "\"");
            if (v == null) {
                o.remove("request");
            } else {
                o.set("request", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            }
            return set(b, i, o, "request " + ReaderMutator.abbreviate(String.valueOf(v)));
        }));
        rs.add(new Rule("unsent-request", m, "a request's records follow its request record (The format)", (b, r) -> {
            String id = request(b, r);
            if (id == null) {
                return null;
            }
            List<String> ls = new ArrayList<>(b.lines());
            int req = indexOf(ls, "request", id);
            int first = indexOf(ls, "text_completion", id);
            if (r.nextBoolean()) {
                ObjectNode c = ReaderMutator.tree(ls.get(first));
                c.put("request", "never-sent-" + id);
                ls.set(first, c.toString());
                return Change.lines(ls, first + 1, "a chunk for a request never sent");
            }
            String line = ls.remove(req);
            ls.add(first, line);
            return Change.lines(ls, first, "request " + id + "'s record after its first chunk");
        }));
        rs.add(new Rule("sent-twice", m, "each request is sent once (The format)", (b, r) -> {
            List<Integer> is = records(b, REQUESTS);
            int i = pick(is, r);
            List<String> ls = new ArrayList<>(b.lines());
            int at = i + 1 + r.nextInt(ls.size() - i);
            ObjectNode copy = tree(b, i);
            if (r.nextBoolean() && is.size() > 1 && is.indexOf(i) + 1 < is.size()) {
                // a later request with this one's id
                int later = is.get(is.indexOf(i) + 1);
                ObjectNode o = tree(b, later);
                o.put("request", copy.path("request").asText());
                ls.set(later, o.toString());
                return Change.lines(ls, later + 1, "a later request with request " + copy.path("request").asText() + "'s id");
            }
            // the same record again, at a time that does not go backwards for it
            int last = lastOf(b, copy.path("request").asText(), at);
            copy.set("t", tree(b, last).get("t"));
            ls.add(at, copy.toString());
            return Change.lines(ls, at + 1, "request " + copy.path("request").asText() + " sent again at line " + (at + 1));
        }));
        rs.add(new Rule("time-backwards", m, "a request's times must not go backwards (The format)", (b, r) -> {
            List<Integer> is = records(b, CHUNKS);
            int i = pick(is, r);
            ObjectNode o = tree(b, i);
            int prev = lastOf(b, o.path("request").asText(), i);
            double last = tree(b, prev).path("t").asDouble();
            double v = last - pick(r, 0.001, 0.5, 1.0, 1000.0, 1e300);
            if (!(v < last)) {
                return null;
            }
            o.put("t", v);
            return set(b, i, o, "t=" + v + " after t=" + last + " for request " + o.path("request").asText());
        }));
        rs.add(new Rule("bad-max-tokens", m, "a request's max_tokens is an integer >= 1 (The format)", (b, r) -> {
            int i = pick(records(b, REQUESTS), r);
            ObjectNode o = tree(b, i);
            String v = pick(r, null, "0", "-1", "1.5", "4.0", "\"4\"", "null", "2147483648", "99999999999999999999999");
            if (v == null) {
                o.remove("max_tokens");
            } else {
                o.set("max_tokens", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            }
            return set(b, i, o, "max_tokens " + v);
        }));
        rs.add(new Rule("bad-seed", m, "a request's seed is an integer, required when the kit's token model is the reference (The format)",
                (b, r) -> {
            int i = pick(records(b, REQUESTS), r);
            ObjectNode o = tree(b, i);
            String v = pick(r, null, "1.5", "\"22000\"", "true", "null", "[1]", "99999999999999999999999");
            if (v == null) {
                o.remove("seed");
            } else {
                o.set("seed", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            }
            return set(b, i, o, "seed " + v);
        }));
        rs.add(new Rule("bad-prompt-tokens", m, "prompt_tokens, when there, a count of tokens: an integer >= 0 (The format; the range"
                + " is the reader's)", (b, r) -> {
            int i = pick(records(b, REQUESTS), r);
            ObjectNode o = tree(b, i);
            String v = pick(r, "-1", "1.5", "\"24\"", "null", "true", "2147483648");
            o.set("prompt_tokens", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            return set(b, i, o, "prompt_tokens " + v);
        }));
        rs.add(new Rule("bad-choices", m, "a chunk has choices: exactly one choice (The format)", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            switch (r.nextInt(4)) {
                case 0 -> o.remove("choices");
                case 1 -> o.putArray("choices");
                case 2 -> ((ArrayNode) o.get("choices")).add(choice(o).deepCopy());
                default -> o.set("choices", choice(o));
            }
            return set(b, i, o, "choices " + ReaderMutator.abbreviate(String.valueOf(o.get("choices"))));
        }));
        rs.add(new Rule("bad-token-ids", m, "a choice carries token_ids, the chunk's tokens as ids (The format; ids are integers >= 0 to"
                + " the reader)", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            ObjectNode c = choice(o);
            String v = pick(r, null, "\"13219\"", "null", "{}", "[-1]", "[1.5]", "[\"7\"]", "[null]", "[2147483648]", "[true]", "[[1]]");
            if (v == null) {
                c.remove("token_ids");
            } else {
                c.set("token_ids", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            }
            return set(b, i, o, "token_ids " + v);
        }));
        rs.add(new Rule("mixed-chunk-kinds", m, "a history carries token_ids in every chunk, or text alone in every chunk (Text-only"
                + " histories); the odd chunk out is named", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            ObjectNode c = choice(o);
            c.remove("token_ids");
            c.put("text", " text alone");
            return set(b, i, o, "token_ids replaced by text");
        }));
        rs.add(new Rule("bad-finish-reason", m, "finish_reason is null or the reason the stream ended, a string (The format)", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            String v = pick(r, "5", "true", "false", "[]", "{}", "[\"length\"]");
            choice(o).set("finish_reason", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            return set(b, i, o, "finish_reason " + v);
        }));
        rs.add(new Rule("bad-index", m, "a choice's index, when there, must be 0 (The format)", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            String v = pick(r, "1", "-1", "\"0\"", "0.5", "null", "2147483648", "true");
            choice(o).set("index", ReaderMutator.tree("{\"v\":" + v + "}").get("v"));
            return set(b, i, o, "index " + v);
        }));
        rs.add(new Rule("bad-retry", m, "a retry names an earlier request whose stream has ended, is the same request, and a request is"
                + " retried at most once (The format, Retries)", (b, r) -> {
            String id = request(b, r);
            if (id == null) {
                return null;
            }
            List<String> ls = retried(b, id, r.nextInt(3), "retry-" + id);
            int at = indexOf(ls, "request", "retry-" + id);
            ObjectNode retry = ReaderMutator.tree(ls.get(at));
            String what;
            switch (r.nextInt(6)) {
                case 0 -> {
                    retry.put("retries", "never-sent");
                    what = "a retry of a request never sent";
                }
                case 1 -> {
                    retry.set("retries", ReaderMutator.tree("{\"v\":" + pick(r, "true", "1.5", "null", "{}", "[\"" + id + "\"]") + "}").get("v"));
                    what = "retries " + retry.get("retries");
                }
                case 2 -> {
                    retry.put("max_tokens", retry.path("max_tokens").asInt() + 1);
                    what = "a retry with another max_tokens";
                }
                case 3 -> {
                    retry.put("seed", retry.path("seed").asLong() + 1);
                    what = "a retry with another seed";
                }
                case 4 -> {
                    // before the stream it retries has ended: the error moved after the retry
                    int err = indexOf(ls, "error", id);
                    String e = ls.remove(err);
                    ls.add(at, e);
                    at--;
                    what = "a retry before its request's stream ended";
                }
                default -> {
                    // a second retry of the same request
                    ObjectNode again = retry.deepCopy();
                    again.put("request", "retry2-" + id);
                    ls.add(at + 1, again.toString());
                    ls.set(at, retry.toString());
                    return Change.lines(ls, at + 2, "request " + id + " retried twice");
                }
            }
            ls.set(at, retry.toString());
            return Change.lines(ls, at + 1, what);
        }));
        rs.add(new Rule("long-record", m, "a record is at most 1 MiB (the reader's limit, so that a history cannot exhaust memory)", (b, r) -> {
            int i = r.nextInt(b.lines().size());
            ObjectNode o = tree(b, i);
            o.put(pick(r, "text", "x", "usage"), "y".repeat((1 << 20) + r.nextInt(10 << 20)));
            return set(b, i, o, "a record of more than 1 MiB");
        }));
        rs.add(new Rule("huge-chunk", m, "a chunk holds at most 65,536 token ids (the reader's limit)", (b, r) -> {
            int i = pick(records(b, CHUNKS), r);
            ObjectNode o = tree(b, i);
            int n = (1 << 16) + 1 + r.nextInt(100_000);
            return set(b, i, (ObjectNode) ReaderMutator.tree(o.toString().replaceFirst("\"token_ids\":\\[[^\\]]*\\]",
                    "\"token_ids\":" + ReaderMutator.ints(n, "7"))), "a chunk of " + n + " tokens");
        }));

        Expect ok = Expect.ACCEPTED;
        for (Rule x : ReaderMutator.rules(InputKind.ATOMIC)) {
            if (Set.of("crlf", "extra-whitespace", "no-final-newline", "field-order", "escaped-strings", "number-spelling").contains(x.name())) {
                rs.add(new Rule(x.name(), x.expect(), "JSON Lines: JSON's own spellings, and a line end of LF or CRLF (The format)", x.mutation()));
            }
        }
        rs.add(new Rule("other-fields", ok, "other fields (id, model, created, text, usage, ...) are allowed and ignored (The format)",
                (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            for (int k = 0, n = 1 + r.nextInt(6); k < n; k++) {
                int i = r.nextInt(ls.size());
                ObjectNode o = ReaderMutator.tree(ls.get(i));
                String f = pick(r, "id", "model", "created", "text", "usage", "system_fingerprint", "x", "ext", "vendor");
                // any JSON value, as written (1e999 included), short of the reader's limit on a record's length
                String v = ReaderMutator.extValue(r, 2);
                if (o.has(f) || v.length() > 100_000) {
                    continue;
                }
                if (kind(o).equals("text_completion") && r.nextBoolean()) {
                    choice(o).put("text", "tok").putNull("logprobs");
                }
                ls.set(i, o.toString().replaceFirst("^\\{", java.util.regex.Matcher.quoteReplacement("{" + ReaderMutator.quoted(f) + ":" + v + ",")));
            }
            return Change.lines(ls, 0, "other fields on some records");
        }));
        rs.add(new Rule("fault-records", ok, "a fault record (t, and worker or target: free text) is optional and used only for the"
                + " metrics (The format)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            for (int k = 0, n = 1 + r.nextInt(3); k < n; k++) {
                int at = r.nextInt(ls.size() + 1);
                JsonNode t = ReaderMutator.tree(ls.get(Math.max(0, at - 1))).get("t");
                ObjectNode f = ReaderMutator.MAPPER.createObjectNode().put("object", "fault");
                f.set("t", t);
                switch (r.nextInt(3)) {
                    case 0 -> f.put("worker", String.valueOf(r.nextInt(8)));
                    case 1 -> f.put("worker", r.nextInt(8));
                    default -> f.put("target", pick(r, "gateway", "node-3 GPU 1", "", "\u00e9"));
                }
                ls.add(at, f.toString());
            }
            return Change.lines(ls, 0, "fault records added");
        }));
        rs.add(new Rule("chunk-shapes", ok, "a chunk's tokens may be any number, none included; finish_reason length or stop; index"
                + " optional (The format)", (b, r) -> {
            List<Integer> is = records(b, CHUNKS);
            int i = pick(is, r);
            ObjectNode o = tree(b, i);
            ObjectNode c = choice(o);
            List<String> ls = new ArrayList<>(b.lines());
            switch (r.nextInt(4)) {
                case 0 -> {
                    if (c.get("token_ids").size() < 2) {
                        return null;
                    }
                    // split in two chunks at the same time; the first finishes nothing
                    ArrayNode ids = (ArrayNode) c.get("token_ids");
                    int cut = 1 + r.nextInt(ids.size() - 1);
                    ObjectNode first = o.deepCopy();
                    ArrayNode a = choice(first).putArray("token_ids");
                    ArrayNode z = ReaderMutator.MAPPER.createArrayNode();
                    for (int k = 0; k < ids.size(); k++) {
                        (k < cut ? a : z).add(ids.get(k));
                    }
                    choice(first).putNull("finish_reason");
                    c.set("token_ids", z);
                    ls.set(i, o.toString());
                    ls.add(i, first.toString());
                    return Change.lines(ls, 0, "a chunk of " + ids.size() + " tokens split after " + cut);
                }
                case 1 -> {
                    if (!c.path("finish_reason").isNull()) {
                        return null;
                    }
                    ObjectNode empty = o.deepCopy();
                    choice(empty).putArray("token_ids");
                    ls.add(i + 1, empty.toString());
                    return Change.lines(ls, 0, "an empty chunk after line " + (i + 1));
                }
                case 2 -> {
                    if (!"length".equals(c.path("finish_reason").asText())) {
                        return null;
                    }
                    c.put("finish_reason", "stop");
                    ls.set(i, o.toString());
                    return Change.lines(ls, 0, "finish_reason stop");
                }
                default -> {
                    c.remove("index");
                    ls.set(i, o.toString());
                    return Change.lines(ls, 0, "no index");
                }
            }
        }));
        rs.add(new Rule("integer-ids", ok, "a request id may be an integer (The format)", (b, r) -> {
            String id = request(b, r);
            if (id == null || !id.matches("[0-9]{1,9}")) {
                return null;
            }
            List<String> ls = new ArrayList<>();
            for (String l : b.lines()) {
                ObjectNode o = ReaderMutator.tree(l);
                if (WITH_ID.contains(kind(o)) && o.path("request").asText().equals(id)) {
                    o.put("request", Integer.parseInt(id));
                    l = o.toString();
                }
                ls.add(l);
            }
            return Change.lines(ls, 0, "request " + id + " named by an integer");
        }));
        rs.add(new Rule("retry-after-error", ok, "a client that gives up on a stream may send the same request again, naming the one"
                + " it retries; the retry is judged as a request of its own (The format, Retries)", (b, r) -> {
            String id = request(b, r);
            if (id == null) {
                return null;
            }
            String again = pick(r, "retry-" + id, "r" + id + "b", "9" + id + "9");
            if (indexOf(b.lines(), "request", again) >= 0) {
                return null;
            }
            return Change.lines(retried(b, id, r.nextInt(3), again), 0, "request " + id + " given up on and retried");
        }));
        rs.add(new Rule("interleaved-records", ok, "records of different requests may interleave in any order; each request's own keep"
                + " theirs (The format)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            int swaps = 0;
            for (int k = 0, n = 1 + r.nextInt(8); k < n; k++) {
                int i = r.nextInt(ls.size() - 1);
                ObjectNode x = ReaderMutator.tree(ls.get(i));
                ObjectNode y = ReaderMutator.tree(ls.get(i + 1));
                if (!x.path("request").asText("x").equals(y.path("request").asText("y"))) {
                    java.util.Collections.swap(ls, i, i + 1);
                    swaps++;
                }
            }
            return swaps == 0 ? null : Change.lines(ls, 0, swaps + " pairs of records of different requests swapped");
        }));

        Expect any = Expect.ANY;
        rs.add(new Rule("unsaid-bytes", any, "what the format does not say: a byte-order mark, invalid UTF-8, a blank line, a duplicate"
                + " key, a lone CR, deep nesting in another field", (b, r) -> {
            int i = r.nextInt(b.lines().size());
            List<String> ls = new ArrayList<>(b.lines());
            String l = ls.get(i);
            switch (r.nextInt(6)) {
                case 0 -> {
                    return new Change(ReaderMutator.concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, b.bytes()), 0, "a UTF-8 BOM");
                }
                case 1 -> {
                    String[] parts = l.replaceFirst("^\\{", "{\"text\":\"@\",").split("@", 2);
                    return new Change(ReaderMutator.concat(ReaderMutator.utf8(ReaderMutator.text(ls.subList(0, i)) + parts[0]),
                            new byte[] {(byte) 0xC3, (byte) 0x28}, ReaderMutator.utf8(parts[1] + "\n" + ReaderMutator.text(ls.subList(i + 1, ls.size())))),
                            0, "invalid UTF-8 in a string");
                }
                case 2 -> {
                    ls.add(i, pick(r, "", " ", "\t"));
                    return Change.lines(ls, 0, "a blank line");
                }
                case 3 -> {
                    ObjectNode o = ReaderMutator.tree(l);
                    String f = o.fieldNames().next();
                    ls.set(i, l.replaceFirst("^\\{", "{" + ReaderMutator.quoted(f) + ":" + pick(r, "1", "\"x\"", "null") + ","));
                    return Change.lines(ls, 0, "the key '" + f + "' twice");
                }
                case 4 -> {
                    ls.set(i, l.replaceFirst(",", ",\r"));
                    return Change.lines(ls, 0, "a lone CR");
                }
                default -> {
                    int d = ReaderMutator.logUniform(r, 64, 20_000);
                    ls.set(i, l.replaceFirst("^\\{", "{\"x\":" + "[".repeat(d) + "]".repeat(d) + ","));
                    return Change.lines(ls, 0, "an array nested " + d + " levels deep");
                }
            }
        }));
        rs.add(new Rule("values-at-limits", any, "values at the ends of their ranges: max_tokens 2147483647, token ids 2147483647,"
                + " times at +-1e308, ids of 256 characters", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            int kind = r.nextInt(4);
            for (int i = 0; i < ls.size(); i++) {
                ObjectNode o = ReaderMutator.tree(ls.get(i));
                if (kind == 0 && kind(o).equals("request") && r.nextInt(3) == 0) {
                    o.put("max_tokens", Integer.MAX_VALUE);
                } else if (kind == 1 && kind(o).equals("text_completion") && r.nextInt(3) == 0) {
                    ArrayNode ids = (ArrayNode) choice(o).get("token_ids");
                    for (int k = 0; k < ids.size(); k++) {
                        ids.set(k, ids.numberNode(Integer.MAX_VALUE));
                    }
                } else if (kind == 2) {
                    o.put("t", i == 0 ? -1e308 : 1e308);
                } else if (kind == 3 && WITH_ID.contains(kind(o))) {
                    o.put("request", o.path("request").asText() + "r".repeat(256 - o.path("request").asText().length()));
                } else {
                    continue;
                }
                ls.set(i, o.toString());
            }
            return Change.lines(ls, 0, new String[] {"max_tokens at 2147483647", "token ids at 2147483647", "times at +-1e308",
                "ids of 256 characters"}[kind]);
        }));
        rs.add(new Rule("reordered-records", any, "records swapped, dropped or repeated", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            int i = r.nextInt(ls.size());
            int j = r.nextInt(ls.size());
            switch (r.nextInt(3)) {
                case 0 -> java.util.Collections.swap(ls, i, j);
                case 1 -> ls.remove(i);
                default -> ls.add(i, ls.get(j));
            }
            return ls.isEmpty() ? null : Change.lines(ls, 0, "records reordered");
        }));
        return List.copyOf(rs);
    }
}
