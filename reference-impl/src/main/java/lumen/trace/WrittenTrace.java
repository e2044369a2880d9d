package lumen.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A trace as written, made into the trace a checker replays: its begin and end forms linearised
 * ({@link Linearize}). The Java mirror and TLC both judge what {@link #of} gives, and map every
 * line they name back to the line of the trace as written ({@link #lineOf}, {@link #remap}). A
 * partial trace needs no rewrite: the reader takes its header's declaration and reads a composed
 * line as its steps ({@link TraceReader#observation}).
 *
 * @param trace   the trace to replay
 * @param origins where its lines came from ({@code origins.get(n - 1)} is line n's line as
 *                written); null when it is the trace as written
 * @param notes   what the rewrite did, for the verdict
 */
public record WrittenTrace(byte[] trace, List<Long> origins, List<String> notes, List<String> unfinished) {
    private static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // a number is kept as written, so the reader judges a literal that overflows (1e999) on the line it ends up on,
            // and an integer written with a fraction or an exponent (0.0, 10e-1) stays one: no trailing zeros stripped
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true))
            // one JSON value per line: anything after the object is an error, not dropped
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /** Whether a trace (or its first bytes) declares a form the kit reads differently: begin and end forms, or a partial trace. */
    public static boolean declared(byte[] head) {
        return Linearize.declared(head) || Linearize.headerOf(head).contains("\"observes\"");
    }

    public static WrittenTrace of(byte[] trace, String source) throws TraceFormatException {
        if (!Linearize.declared(trace)) {
            return new WrittenTrace(trace, null, List.of(), List.of());
        }
        Linearize.Result lin = Linearize.of(trace, source);
        List<String> notes = new ArrayList<>();
        notes.add("begin and end forms: each step judged at its end (" + (lin.origins().size() - 1) + " atomic events from the trace's "
                + "begin/chunk/end lines)" + (lin.unfinished().isEmpty() ? "" : "; begun and never ended, so without effect: "
                + String.join(", ", lin.unfinished().subList(0, Math.min(5, lin.unfinished().size())))
                + (lin.unfinished().size() > 5 ? ", ..." : "")));
        return new WrittenTrace(lin.atomic(), lin.origins(), notes, lin.unfinished());
    }

    /** Line n of the replayed trace, as a line of the trace as written. */
    public long lineOf(long n) {
        return origins != null && n >= 1 && n <= origins.size() ? origins.get((int) n - 1) : n;
    }

    /** An error on a line of the replayed trace, on the line of the trace as written. */
    public TraceFormatException remap(TraceFormatException ex, String source) {
        return remap(ex, source, origins);
    }

    private static TraceFormatException remap(TraceFormatException ex, String source, List<Long> origins) {
        if (origins == null) {
            return ex;
        }
        long n = ex.line() >= 1 && ex.line() <= origins.size() ? origins.get((int) ex.line() - 1) : ex.line();
        return new TraceFormatException(source, n, ex.getMessage().replaceFirst("^" + Pattern.quote(source) + ":[0-9]+: ", ""));
    }

    /** Line n of a trace as a JSON object, or the located error a rewrite reports for it. */
    static ObjectNode object(String l, String source, long n) throws TraceFormatException {
        try {
            JsonNode j = JSON.readTree(l);
            if (j == null) {
                throw new TraceFormatException(source, n, "a blank line: every line holds one JSON object");
            }
            if (j instanceof ObjectNode o) {
                return o;
            }
            throw new TraceFormatException(source, n, "a line must be a JSON object, found " + Echo.cut(l));
        } catch (JsonProcessingException ex) {
            throw new TraceFormatException(source, n, parseError(ex.getOriginalMessage()));
        }
    }

    /** A line's JSON parse error, as the reading rules name it: a duplicate key, or not a JSON object. */
    static String parseError(String m) {
        return m != null && m.startsWith("Duplicate field ")
                ? "field " + m.substring("Duplicate field ".length()) + " appears twice: a key appears at most once in an object"
                : "not a JSON object: " + m;
    }

    private static final com.fasterxml.jackson.core.JsonFactory SCAN = new com.fasterxml.jackson.core.JsonFactory();

    /**
     * A trace's text, line by line (split at LF; the last element is what follows the last LF): the
     * lines before the first byte that is not UTF-8 (all of them when there is none), and that
     * byte's located error, to be reported once those lines are read, since a trace's first bad
     * line is the one named. A byte-order mark is an error at line 1.
     */
    public record Text(String[] lines, TraceFormatException fault) {}

    /** A trace's bytes read strictly as UTF-8 (RFC 3629), as {@link Text}. */
    public static Text text(byte[] trace, String source) {
        try {
            String t = Utf8.strict(java.nio.ByteBuffer.wrap(trace));
            if (t.startsWith("\uFEFF")) {
                return new Text(new String[0], new TraceFormatException(source, 1, "a UTF-8 byte-order mark: a trace starts with its header's '{'"));
            }
            return new Text(t.split("\n", -1), null);
        } catch (Utf8.Malformed ex) {
            long line = 1;
            int start = 0;
            for (int i = 0; i < ex.offset; i++) {
                if (trace[i] == '\n') {
                    line++;
                    start = i + 1;
                }
            }
            TraceFormatException fault = new TraceFormatException(source, line,
                    String.format(java.util.Locale.ROOT, "not UTF-8: byte 0x%02x starts no valid character", ex.value));
            if (start == 0) {
                return new Text(new String[0], fault);
            }
            String before = new String(trace, 0, start, java.nio.charset.StandardCharsets.UTF_8);
            if (before.startsWith("\uFEFF")) {
                return new Text(new String[0], new TraceFormatException(source, 1, "a UTF-8 byte-order mark: a trace starts with its header's '{'"));
            }
            return new Text(before.split("\n", -1), fault);
        }
    }

    /**
     * Line {@code i} (from 0) of a trace's {@link Text#lines} as a JSON object, read by the reading
     * rules of every line: it ends with LF or CRLF (a CR anywhere else would be read as the JSON's
     * whitespace and dropped), it is not blank, and it holds one JSON object and nothing after it.
     */
    public static ObjectNode line(String[] lines, int i, String source) throws TraceFormatException {
        String l = lines[i];
        long n = i + 1;
        int cr = l.indexOf('\r');
        if (cr >= 0 && (cr < l.length() - 1 || i == lines.length - 1)) {
            throw new TraceFormatException(source, n, "a carriage return (CR) not followed by a line feed: lines end with LF or CRLF");
        }
        if (l.isBlank()) {
            throw new TraceFormatException(source, n, "a blank line: every line holds one JSON object");
        }
        return object(l, source, n);
    }

    /**
     * Where field {@code f} is in {@code line} (a JSON object): {@code [from, to)} is the member
     * with the comma that separates it, {@code [value, valueEnd)} its value; null when absent.
     */
    private record Span(int from, int to, int value, int valueEnd) {}

    private static Span find(String line, String f) {
        try (com.fasterxml.jackson.core.JsonParser p = SCAN.createParser(line)) {
            p.nextToken();
            com.fasterxml.jackson.core.JsonToken t = p.nextToken();
            while (t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                int name = (int) p.currentTokenLocation().getCharOffset();
                boolean match = f.equals(p.currentName());
                com.fasterxml.jackson.core.JsonToken v = p.nextToken();
                int value = (int) p.currentTokenLocation().getCharOffset();
                if (v.isStructStart()) {
                    p.skipChildren();
                } else {
                    p.getText(); // the whole token read, so that the location is past it
                }
                int valueEnd = (int) p.currentLocation().getCharOffset();
                t = p.nextToken();
                if (match) {
                    if (t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                        return new Span(name, (int) p.currentTokenLocation().getCharOffset(), value, valueEnd);
                    }
                    int from = name;
                    int k = name - 1;
                    while (k >= 0 && Character.isWhitespace(line.charAt(k))) {
                        k--;
                    }
                    if (k >= 0 && line.charAt(k) == ',') {
                        from = k;
                    }
                    return new Span(from, valueEnd, value, valueEnd);
                }
            }
            return null;
        } catch (java.io.IOException ex) {
            throw new IllegalStateException("a line read as JSON once is read again", ex);
        }
    }

    /** The line without its top-level field {@code f}, every other byte as written. */
    public static String without(String line, String f) {
        Span s = find(line, f);
        return s == null ? line : line.substring(0, s.from()) + line.substring(s.to());
    }

    /**
     * The end's line with {@code first} (its begin's and chunks' pages, maybe none) before its own
     * pages, or as its pages when it has none; an end whose pages are not an array keeps them, for
     * the reader to refuse.
     */
    static String pagesFirst(String line, com.fasterxml.jackson.databind.node.ArrayNode first) {
        String given = first.toString();
        String entries = given.substring(1, given.length() - 1);
        Span s = find(line, "pages");
        if (s == null) {
            int close = line.lastIndexOf('}');
            String before = line.substring(0, close).trim();
            return line.substring(0, close) + (before.endsWith("{") ? "" : ",") + "\"pages\":" + given + line.substring(close);
        }
        if (line.charAt(s.value()) != '[') {
            return line;
        }
        String own = line.substring(s.value() + 1, s.valueEnd() - 1);
        String joined = entries.isEmpty() ? own : own.isBlank() ? entries : entries + "," + own;
        return line.substring(0, s.value()) + "[" + joined + "]" + line.substring(s.valueEnd());
    }
}
