package lumen.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lumen.trace.Echo;
import lumen.trace.TraceFormatException;

/**
 * A black-box client history (docs/history-format.md): what the clients of a serving system sent
 * and saw, one JSON object per line, in the OpenAI streaming shape. Read whole, with every error
 * located; the checks are {@link HistoryCheck}'s.
 *
 * <p>Records, by {@code object}: {@code request} (sent: {@code request}, {@code t},
 * {@code max_tokens}, and {@code seed} for the kit's token model), {@code text_completion} (one
 * streamed chunk: {@code choices[0].token_ids}, {@code choices[0].finish_reason}), {@code error}
 * (the stream failed) and {@code fault} (an injected fault, for the recovery metrics). Other fields
 * (an OpenAI chunk's {@code id}, {@code model}, {@code text}, {@code usage}, ...) are allowed and ignored.
 */
public final class History {
    /** The limits the reader enforces, so that hostile input cannot exhaust memory. */
    public static final int MAX_LINE = 1 << 20;
    public static final int MAX_TOKENS_PER_CHUNK = 1 << 16;

    /** What a client sent: its id, when, the most tokens it asked for, the seed (kit model; -1: none). */
    /**
     * A request the client sent; {@code retries}: the id of the earlier request this one retries (the
     * client gave up on that one's stream and sent the same request again), or null.
     */
    public record Request(String id, double t, long line, int maxTokens, long seed, int promptTokens, String retries) {}

    /** A record after a request: a chunk of tokens with its finish reason (null: more to come), or an error. */
    public record Chunk(String request, double t, long line, int[] tokens, String finishReason, String error) {
        public boolean finishes() {
            return finishReason != null || error != null;
        }
    }

    /** An injected fault: when, and the worker or process it hit (free text). */
    public record Fault(double t, long line, String target) {}

    public final String source;
    public final Map<String, Request> requests = new LinkedHashMap<>();
    /** Every chunk and error, in the order of the file. */
    public final List<Chunk> chunks = new ArrayList<>();
    public final List<Fault> faults = new ArrayList<>();
    /**
     * Whether the chunks carry text without token ids (docs/history-format.md, Text-only
     * histories): each chunk's {@link Chunk#tokens} are then its text's Unicode code points, and
     * the history is judged only against a reference history recorded the same way.
     */
    public boolean textOnly;
    /** The first chunk's line, which decided whether the history is token ids or text throughout. */
    private long kindLine;

    /** The line of the first chunk, which decided whether the history is token ids or text throughout (0: no chunk). */
    public long kindLine() {
        return kindLine;
    }

    private History(String source) {
        this.source = source;
    }

    /** One JSON value per line: anything after a record's object is an error on its line, not dropped. */
    private static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /** Reads a whole history; a record it cannot read is a located {@link TraceFormatException}. */
    public static History read(InputStream in, String source) throws IOException, TraceFormatException {
        History h = new History(source);
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        Map<String, Double> last = new LinkedHashMap<>();
        // the requests whose stream has ended (a finish or an error): only those may be retried
        java.util.Set<String> ended = new java.util.HashSet<>();
        String line;
        long n = 0;
        while ((line = r.readLine()) != null) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            if (line.length() > MAX_LINE) {
                throw new TraceFormatException(source, n, "a record longer than " + MAX_LINE + " characters");
            }
            JsonNode o;
            try {
                o = JSON.readTree(line);
            } catch (JsonProcessingException ex) {
                throw new TraceFormatException(source, n, "not a JSON object: " + ex.getOriginalMessage());
            }
            if (o == null || !o.isObject()) {
                throw new TraceFormatException(source, n, "a record must be a JSON object, found " + Echo.cut(line));
            }
            String kind = text(o, "object", source, n);
            double t = number(o, "t", source, n);
            switch (kind) {
                case "request" -> {
                    String id = id(o, source, n);
                    if (h.requests.containsKey(id)) {
                        throw new TraceFormatException(source, n, "request " + quote(id) + " is sent twice (line "
                                + h.requests.get(id).line() + "): a history names each request once");
                    }
                    int max = (int) whole(o, "max_tokens", 1, Integer.MAX_VALUE, source, n);
                    long seed = o.has("seed") ? whole(o, "seed", Long.MIN_VALUE, Long.MAX_VALUE, source, n) : -1;
                    int prompt = o.has("prompt_tokens") ? (int) whole(o, "prompt_tokens", 0, Integer.MAX_VALUE, source, n) : -1;
                    String retries = null;
                    if (o.has("retries")) {
                        JsonNode rv = o.get("retries");
                        if (!rv.isTextual() && !rv.isIntegralNumber()) {
                            throw new TraceFormatException(source, n, "field 'retries' must be the id of an earlier request, found " + Echo.cut(rv.toString()));
                        }
                        retries = rv.asText();
                        Request orig = h.requests.get(retries);
                        if (orig == null) {
                            throw new TraceFormatException(source, n, "request " + quote(id) + " retries request " + quote(retries)
                                    + ", which no request record before it sent");
                        }
                        if (orig.maxTokens() != max || orig.seed() != seed || orig.promptTokens() != prompt) {
                            throw new TraceFormatException(source, n, "request " + quote(id) + " retries request " + quote(retries) + " (line "
                                    + orig.line() + ") with another max_tokens, seed or prompt_tokens: a retry sends the same request again");
                        }
                        if (!ended.contains(retries)) {
                            throw new TraceFormatException(source, n, "request " + quote(id) + " retries request " + quote(retries)
                                    + ", whose stream has not ended: a client retries a request it gave up on, so record that first (an"
                                    + " error record: the client's own timeout or the server's error)");
                        }
                        String target = retries;
                        if (h.requests.values().stream().anyMatch(q -> target.equals(q.retries()))) {
                            throw new TraceFormatException(source, n, "request " + quote(target) + " is retried twice: a retry of a retry names"
                                    + " the latest attempt");
                        }
                    }
                    h.requests.put(id, new Request(id, t, n, max, seed, prompt, retries));
                    last.put(id, t);
                }
                case "text_completion", "error" -> {
                    String id = id(o, source, n);
                    if (!h.requests.containsKey(id)) {
                        throw new TraceFormatException(source, n, kind + " for request " + quote(id) + ", which no request record before it sent");
                    }
                    if (t < last.get(id)) {
                        throw new TraceFormatException(source, n, "time goes backwards for request " + quote(id) + ": t=" + t + " after t=" + last.get(id));
                    }
                    last.put(id, t);
                    Chunk c = kind.equals("error") ? error(o, id, t, n, source) : chunk(h, o, id, t, n, source);
                    if (c.finishes()) {
                        ended.add(id);
                    }
                    h.chunks.add(c);
                }
                case "fault" -> h.faults.add(new Fault(t, n, o.has("worker") ? o.get("worker").asText() : o.path("target").asText("")));
                default -> throw new TraceFormatException(source, n, "unknown record object " + quote(kind)
                        + "; known: request, text_completion, error, fault");
            }
        }
        return h;
    }

    private static Chunk chunk(History h, JsonNode o, String id, double t, long n, String source) throws TraceFormatException {
        JsonNode cs = o.get("choices");
        if (cs == null || !cs.isArray() || cs.size() != 1) {
            throw new TraceFormatException(source, n, "field 'choices' must be an array of exactly one choice (n=1 streams)");
        }
        JsonNode c = cs.get(0);
        JsonNode index = c.get("index");
        if (index != null && !(index.isIntegralNumber() && index.asLong() == 0)) {
            throw new TraceFormatException(source, n, "field 'choices[0].index' must be 0: a stream has one choice (n=1), and a"
                    + " resumed stream is the same choice, found " + Echo.cut(index.toString()));
        }
        JsonNode toks = c.get("token_ids");
        boolean text = toks == null;
        if (h.kindLine == 0) {
            h.kindLine = n;
            h.textOnly = text;
        } else if (text && !h.textOnly) {
            throw new TraceFormatException(source, n, "this chunk has no choices[0].token_ids, but the chunks before it have (from line "
                    + h.kindLine + "): a history carries token ids in every chunk, or text alone in every chunk");
        } else if (!text && h.textOnly) {
            // the chunks so far are text alone and this one has ids: the first of those is named, the odd one out so far
            throw new TraceFormatException(source, h.kindLine, "this chunk has no choices[0].token_ids, but the chunk at line " + n
                    + " has: a history carries token ids in every chunk, or text alone in every chunk");
        }
        int[] tokens;
        if (text) {
            JsonNode tx = c.get("text");
            if (tx == null || !tx.isTextual()) {
                throw new TraceFormatException(source, n, "field 'choices[0].token_ids' (an array of token ids) is missing, and so is"
                        + " 'choices[0].text' (a string), which a text-only history carries instead");
            }
            tokens = tx.asText().codePoints().toArray();
            if (tokens.length > MAX_TOKENS_PER_CHUNK) {
                throw new TraceFormatException(source, n, "a chunk of more than " + MAX_TOKENS_PER_CHUNK + " characters");
            }
        } else {
            if (!toks.isArray()) {
                throw new TraceFormatException(source, n, "field 'choices[0].token_ids' must be an array of token ids, found "
                        + Echo.cut(toks.toString()));
            }
            if (toks.size() > MAX_TOKENS_PER_CHUNK) {
                throw new TraceFormatException(source, n, "a chunk of more than " + MAX_TOKENS_PER_CHUNK + " tokens");
            }
            tokens = new int[toks.size()];
            for (int i = 0; i < tokens.length; i++) {
                JsonNode x = toks.get(i);
                if (!x.isIntegralNumber() || !x.canConvertToInt() || x.asInt() < 0) {
                    throw new TraceFormatException(source, n, "field 'choices[0].token_ids' must hold token ids (integers >= 0), found " + Echo.cut(x.toString()));
                }
                tokens[i] = x.asInt();
            }
        }
        JsonNode f = c.get("finish_reason");
        String finish = null;
        if (f != null && !f.isNull()) {
            if (!f.isTextual()) {
                throw new TraceFormatException(source, n, "field 'choices[0].finish_reason' must be null or a string, found " + Echo.cut(f.toString()));
            }
            finish = f.asText();
        }
        return new Chunk(id, t, n, tokens, finish, null);
    }

    private static Chunk error(JsonNode o, String id, double t, long n, String source) {
        JsonNode e = o.get("error");
        String msg = e == null ? "(no message)" : e.isObject() ? e.path("message").asText(e.toString()) : e.asText();
        return new Chunk(id, t, n, new int[0], null, msg);
    }

    private static String id(JsonNode o, String source, long n) throws TraceFormatException {
        JsonNode v = o.get("request");
        if (v == null || !(v.isTextual() || v.isIntegralNumber())) {
            throw new TraceFormatException(source, n, "field 'request' (the client's id for the request, a string or an integer) is required");
        }
        String s = v.asText();
        if (s.isEmpty() || s.length() > 256) {
            throw new TraceFormatException(source, n, "field 'request' must be 1 to 256 characters");
        }
        return s;
    }

    private static String text(JsonNode o, String f, String source, long n) throws TraceFormatException {
        JsonNode v = o.get(f);
        if (v == null || !v.isTextual()) {
            throw new TraceFormatException(source, n, "field '" + f + "' is required and must be a string");
        }
        return v.asText();
    }

    private static double number(JsonNode o, String f, String source, long n) throws TraceFormatException {
        JsonNode v = o.get(f);
        if (v == null || !v.isNumber() || !Double.isFinite(v.asDouble())) {
            throw new TraceFormatException(source, n, "field '" + f + "' (the client's time in ms) is required and must be a finite number");
        }
        return v.asDouble();
    }

    private static long whole(JsonNode o, String f, long min, long max, String source, long n) throws TraceFormatException {
        JsonNode v = o.get(f);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw new TraceFormatException(source, n, "field '" + f + "' is required and must be an integer in " + min + ".." + max
                    + (v == null ? "" : ", found " + Echo.cut(v.toString())));
        }
        return v.asLong();
    }

    /**
     * A value the history holds (a request id, an error), as a report shows it: in single quotes,
     * a quote or a backslash in it escaped, so that a report's own words and the history's text
     * stay apart ({@link HistoryCheck} rewords the former only).
     */
    static String quote(String s) {
        return "'" + Echo.cut(s).replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
