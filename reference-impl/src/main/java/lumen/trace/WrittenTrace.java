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
}
