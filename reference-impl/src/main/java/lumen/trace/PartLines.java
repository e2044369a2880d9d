package lumen.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The begin and chunk lines of a trace with begin and end forms (docs/trace-format.md, Begin and
 * end), read by the same reading rules as every other line: each field once, every field one the
 * line's form names, integers as integers within their ranges, finite numbers, {@code ext} an
 * object. An end and an atomic line go on to the trace reader itself; a begin or a chunk changes
 * nothing until its end, so it is checked here, where it is read.
 */
final class PartLines {
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(TraceFormat.MAX_NESTING).build())
            .build();

    /** The fields any form may carry. */
    private static final Set<String> ALWAYS = Set.of("type", "phase", "t", "ext");

    /** What each form carries: the required fields, then the optional ones (type, phase, t and ext aside). */
    private static final Map<String, List<Set<String>>> FIELDS = Map.of(
            "Prefill begin", List.of(Set.of("req", "worker"), Set.of("pages")),
            "Decode begin", List.of(Set.of("req", "worker"), Set.of("pages")),
            "StreamPage begin", List.of(Set.of("req"), Set.of("holder")),
            "Route begin", List.of(Set.of("req"), Set.of()),
            "FullReady begin", List.of(Set.of("worker"), Set.of()),
            "Prefill chunk", List.of(Set.of("req", "worker", "pages"), Set.of()));

    private PartLines() {}

    /**
     * Reads line {@code n}, a {@code phase} begin or chunk of {@code type}, of a trace whose header
     * declares {@code workers} workers and {@code pageTokens} positions a page; the located error
     * when it breaks a reading rule.
     */
    static void check(String line, String source, long n, String type, String phase, int workers, int pageTokens) throws TraceFormatException {
        String form = type + " " + phase;
        List<Set<String>> f = FIELDS.get(form);
        if (f == null) {
            return; // the caller names the form that does not exist
        }
        Set<String> seen = new HashSet<>();
        try (JsonParser p = JSON.createParser(line)) {
            p.nextToken();
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                seen.add(name);
                if (!ALWAYS.contains(name) && !f.get(0).contains(name) && !f.get(1).contains(name)) {
                    throw new TraceFormatException(source, n, form + ": unknown field '" + Echo.cut(name) + "' (a " + form + " carries "
                            + String.join(", ", sorted(f.get(0))) + (f.get(1).isEmpty() ? "" : ", and may carry "
                            + String.join(", ", sorted(f.get(1)))) + ", besides type, phase, t and ext)");
                }
                switch (name) {
                    case "type", "phase" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            throw new TraceFormatException(source, n, "field '" + name + "' must be a string");
                        }
                    }
                    case "t" -> {
                        if (!v.isNumeric() || !Double.isFinite(p.getDoubleValue())) {
                            throw new TraceFormatException(source, n, "field 't' must be a finite number, found " + Echo.cut(p.getText()));
                        }
                    }
                    case "ext" -> {
                        if (v != JsonToken.START_OBJECT) {
                            throw new TraceFormatException(source, n, "field 'ext' must be a JSON object");
                        }
                        p.skipChildren();
                    }
                    case "req" -> integer(p, v, name, 0, TraceFormat.MAX_INT, source, n);
                    case "worker", "holder" -> integer(p, v, name, 0, workers - 1, source, n);
                    case "pages" -> pages(p, v, pageTokens, source, n);
                    default -> throw new IllegalStateException("a field every form allows is read above: " + name);
                }
            }
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException ex) {
            throw new TraceFormatException(source, n, "nesting deeper than " + TraceFormat.MAX_NESTING + " levels");
        } catch (com.fasterxml.jackson.core.JsonParseException ex) {
            throw new TraceFormatException(source, n, WrittenTrace.parseError(ex.getOriginalMessage()));
        } catch (IOException ex) {
            throw new TraceFormatException(source, n, "not a JSON object: " + ex.getMessage());
        }
        for (String r : sorted(f.get(0))) {
            if (!seen.contains(r)) {
                throw new TraceFormatException(source, n, form + ": missing field '" + r + "'");
            }
        }
    }

    private static List<String> sorted(Set<String> s) {
        return s.stream().sorted().toList();
    }

    private static int integer(JsonParser p, JsonToken v, String name, int min, int max, String source, long n)
            throws IOException, TraceFormatException {
        if (v != JsonToken.VALUE_NUMBER_INT) {
            throw new TraceFormatException(source, n, "field '" + name + "' must be an integer, found " + Echo.cut(p.getText()));
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER || p.getLongValue() < min || p.getLongValue() > max) {
            throw new TraceFormatException(source, n, "field '" + name + "' must be an integer from " + min + " to " + max + ", found "
                    + Echo.cut(p.getText()));
        }
        return p.getIntValue();
    }

    /** {@code pages}: entries [first, count, "digest"], first 1..2^24, count 1..pageTokens, 16 hexadecimal digits. */
    private static void pages(JsonParser p, JsonToken v, int pageTokens, String source, long n) throws IOException, TraceFormatException {
        if (v != JsonToken.START_ARRAY) {
            throw new TraceFormatException(source, n, "field 'pages' must be an array of [first, count, \"digest\"]");
        }
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
            if (e != JsonToken.START_ARRAY) {
                throw new TraceFormatException(source, n, "field 'pages': an entry must be [first, count, \"digest\"]");
            }
            integer(p, p.nextToken(), "pages[].first", 1, TraceFormat.MAX_CONTEXT, source, n);
            integer(p, p.nextToken(), "pages[].count", 1, pageTokens, source, n);
            JsonToken d = p.nextToken();
            if (d != JsonToken.VALUE_STRING || !p.getText().matches("[0-9a-fA-F]{16}")) {
                throw new TraceFormatException(source, n, "field 'pages': a digest is 16 hexadecimal digits, found " + Echo.cut(p.getText()));
            }
            if (p.nextToken() != JsonToken.END_ARRAY) {
                throw new TraceFormatException(source, n, "field 'pages': an entry has exactly three elements, [first, count, \"digest\"]");
            }
        }
    }
}
