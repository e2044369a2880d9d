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
 * ({@link Linearize}), its partial-trace declaration read and its batch lines expanded
 * ({@link Observation}). The Java mirror and TLC both judge what {@link #of} gives, and map every
 * line they name back to the line of the trace as written ({@link #lineOf}, {@link #remap}).
 *
 * @param trace       the trace to replay
 * @param origins     where its lines came from ({@code origins.get(n - 1)} is line n's line as
 *                    written); null when it is the trace as written
 * @param observation what the system observes ({@link Observation#FULL} when undeclared)
 * @param notes       what the rewrite did, for the verdict
 */
public record WrittenTrace(byte[] trace, List<Long> origins, Observation observation, List<String> notes) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether a trace (or its first bytes) declares a form that must be rewritten before it is replayed. */
    public static boolean declared(byte[] head) {
        return Linearize.declared(head) || Observation.declared(head);
    }

    public static WrittenTrace of(byte[] trace, String source) throws TraceFormatException {
        List<Long> origins = null;
        List<String> notes = new ArrayList<>();
        Observation obs = Observation.FULL;
        byte[] bytes = trace;
        if (Linearize.declared(bytes)) {
            Linearize.Result lin = Linearize.of(bytes, source);
            bytes = lin.atomic();
            origins = lin.origins();
            notes.add("begin and end forms: each step judged at its end (" + lin.origins().size() + " atomic lines from the trace's "
                    + "begin/chunk/end lines)" + (lin.unfinished().isEmpty() ? "" : "; begun and never ended, so without effect: "
                    + String.join(", ", lin.unfinished().subList(0, Math.min(5, lin.unfinished().size())))
                    + (lin.unfinished().size() > 5 ? ", ..." : "")));
        }
        if (Observation.declared(bytes)) {
            Observation.Result o;
            try {
                o = Observation.of(bytes, source);
            } catch (TraceFormatException ex) {
                throw remap(ex, source, origins);
            }
            bytes = o.trace();
            origins = compose(origins, o.origins());
            obs = o.observation();
            if (obs.batchDecode()) {
                notes.add("Decode per batch iteration: each batch line judged as its requests' Decode steps in the listed order");
            }
            if (obs.streamSizes()) {
                notes.add("checkpoint sizes without content: each size report judged as the StreamPage steps of its entries in the"
                        + " listed order; the copies' bytes were not observed, so S6 judged their sizes only, and a RESTORE's bytes were"
                        + " held to what the request's server wrote (S9)");
            }
        }
        return new WrittenTrace(bytes, origins, obs, notes);
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

    /** Line n of a second rewrite is line {@code outer.get(n - 1)} of the first, itself line {@code inner.get(...)} as written. */
    private static List<Long> compose(List<Long> inner, List<Long> outer) {
        if (inner == null) {
            return outer;
        }
        List<Long> out = new ArrayList<>(outer.size());
        for (long n : outer) {
            out.add(n >= 1 && n <= inner.size() ? inner.get((int) n - 1) : n);
        }
        return out;
    }

    /** Line n of a trace as a JSON object, or the located error a rewrite reports for it. */
    static ObjectNode object(String l, String source, long n) throws TraceFormatException {
        try {
            JsonNode j = JSON.readTree(l);
            if (j instanceof ObjectNode o) {
                return o;
            }
            throw new TraceFormatException(source, n, "a line must be a JSON object, found " + Echo.cut(l));
        } catch (JsonProcessingException ex) {
            throw new TraceFormatException(source, n, "not a JSON object: " + ex.getOriginalMessage());
        }
    }
}
