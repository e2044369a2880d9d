package lumen.fuzz;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * The text of one trace line as JSON tokens with their places, so a mutation can change one
 * value, name or boundary and leave every other byte as the kit wrote it.
 */
final class TraceText {
    private static final JsonFactory JSON = new JsonFactory();

    private TraceText() {}

    /**
     * One token of a line.
     *
     * @param kind   its JSON token
     * @param field  the field it is the value or name of (for an array element: null)
     * @param array  the array's field, for an array element; else null
     * @param depth  how many objects and arrays enclose it (a top-level field: 1; a config field: 2)
     * @param start  its first character
     * @param end    one past its last character
     */
    record Tok(JsonToken kind, String field, String array, int depth, int start, int end) {
        boolean scalar() {
            return kind.isScalarValue();
        }
    }

    static List<Tok> tokens(String line) {
        List<Tok> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(line)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                int start = (int) p.currentTokenLocation().getCharOffset();
                JsonStreamContext c = p.getParsingContext();
                JsonStreamContext enclosing = t.isStructStart() ? c.getParent() : c;
                int depth = 0;
                for (JsonStreamContext x = enclosing; x != null && !x.inRoot(); x = x.getParent()) {
                    depth++;
                }
                String array = enclosing.inArray() ? enclosing.getParent().getCurrentName() : null;
                String field = enclosing.inArray() ? null : p.currentName();
                out.add(new Tok(t, field, array, depth, start, end(line, t, start)));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out;
    }

    private static int end(String line, JsonToken t, int start) {
        switch (t) {
            case FIELD_NAME, VALUE_STRING -> {
                int i = start + 1;
                while (line.charAt(i) != '"') {
                    i += line.charAt(i) == '\\' ? 2 : 1;
                }
                return i + 1;
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                int i = start;
                while (i < line.length() && "0123456789+-.eE".indexOf(line.charAt(i)) >= 0) {
                    i++;
                }
                return i;
            }
            case VALUE_TRUE, VALUE_NULL -> {
                return start + 4;
            }
            case VALUE_FALSE -> {
                return start + 5;
            }
            default -> {
                return start + 1;
            }
        }
    }

    /** The end of the value that starts at token {@code i} (its matching close for an object or array). */
    static int valueEnd(List<Tok> ts, int i) {
        if (!ts.get(i).kind().isStructStart()) {
            return ts.get(i).end();
        }
        int depth = 0;
        for (int j = i; j < ts.size(); j++) {
            if (ts.get(j).kind().isStructStart()) {
                depth++;
            } else if (ts.get(j).kind().isStructEnd() && --depth == 0) {
                return ts.get(j).end();
            }
        }
        throw new IllegalStateException("unbalanced line");
    }

    /** The indexes of the tokens that match. */
    static List<Integer> where(List<Tok> ts, Predicate<Tok> p) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < ts.size(); i++) {
            if (p.test(ts.get(i))) {
                out.add(i);
            }
        }
        return out;
    }

    /** The places strictly inside the line's object where whitespace may go: before or after a token, never inside one. */
    static List<Integer> boundaries(List<Tok> ts) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < ts.size(); i++) {
            if (i > 0) {
                out.add(ts.get(i).start());
            }
            if (i < ts.size() - 1) {
                out.add(ts.get(i).end());
            }
        }
        return out;
    }

    static String replace(String s, int start, int end, String with) {
        return s.substring(0, start) + with + s.substring(end);
    }

    static String insert(String s, int at, String what) {
        return s.substring(0, at) + what + s.substring(at);
    }

    static <T> T pick(List<T> xs, SplittableRandom r) {
        return xs.get(r.nextInt(xs.size()));
    }

    @SafeVarargs
    static <T> T pick(SplittableRandom r, T... xs) {
        return xs[r.nextInt(xs.length)];
    }
}
