package lumen.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Partial traces (docs/trace-format.md, Partial traces): what a system observes, as its header
 * declares it in {@code "observes"}.
 *
 * <ul>
 *   <li>{@code "Place": "hidden"}: the system does not log its placement decisions. Each Place is a
 *       hidden step the validator searches for: the candidates are every placement the spec allows
 *       at every state before the event that shows it (the request's Prefill needs it; its first
 *       StreamPage, a Fail's {@code orphaned} and a RESTORE show its holder).</li>
 *   <li>{@code "loads": "hidden"}: decisions never cite the loads they were taken on. Under
 *       {@code citedLoads=exact} nothing is lost (the validator derives Eq. 4); under
 *       {@code stale:N} or {@code stale:Tms} each decision that rests on the monitor is judged on
 *       every report the monitor could have held.</li>
 *   <li>{@code "Decode": "batch"}: a Decode line may be one batch iteration of a worker,
 *       {@code "batch":[{"req":r,"tokens":[...],"pages":[...]}, ...]}: the Decode steps of its
 *       requests, composed in the listed order (CCF's composed actions).</li>
 *   <li>{@code "StreamPage": "sizes"}: streaming is observed by its sizes only, the checkpoint each
 *       copy holds as its holder acknowledged it, with no content: a StreamPage line carries no
 *       {@code pages}, and may be a size report of several copies,
 *       {@code "sizes":[{"req":r,"holder":h,"ckpt":c}, ...]}, the StreamPage steps of its entries
 *       in order. A RESTORE's bytes are then compared with what the request's server wrote (a copy's
 *       own bytes being unobserved), and bytes that differ are holes in the KV (S9).</li>
 *   <li>{@code "hiddenSteps"}: the most hidden steps searched for before one observed event
 *       (default {@value #DEFAULT_HIDDEN_STEPS}); {@code "candidates"}: the most candidate states
 *       kept between two observed events (default {@value #DEFAULT_CANDIDATES}). A verdict that
 *       rests on a search the bound cut short says so.</li>
 * </ul>
 *
 * <p>{@link #of} reads the declaration, removes it from the header, and writes the trace the
 * validator replays: each batch line becomes its Decode lines and each size report its StreamPage
 * lines, every line mapped back to the line it came from.
 */
public record Observation(boolean hiddenPlace, boolean hiddenLoads, boolean batchDecode, boolean streamSizes, int hiddenSteps,
                          int candidates) {
    public static final int DEFAULT_HIDDEN_STEPS = 4;
    public static final int DEFAULT_CANDIDATES = 4096;
    public static final int MAX_HIDDEN_STEPS = 64;
    public static final int MAX_CANDIDATES = 1_000_000;

    /** A full observation: every action logged, every decision's loads as the trace gives them. */
    public static final Observation FULL = new Observation(false, false, false, false, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);

    /** Each level alone, with the default bounds: Place not logged, loads never cited, Decode per batch, checkpoint sizes only. */
    public static final Observation NO_PLACE = new Observation(true, false, false, false, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);
    public static final Observation NO_LOADS = new Observation(false, true, false, false, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);
    public static final Observation BATCH = new Observation(false, false, true, false, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);
    public static final Observation SIZES = new Observation(false, false, false, true, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);
    /** Every level at once. */
    public static final Observation LEAST = new Observation(true, true, true, true, DEFAULT_HIDDEN_STEPS, DEFAULT_CANDIDATES);

    private static final Set<String> FIELDS = Set.of("Place", "loads", "Decode", "StreamPage", "hiddenSteps", "candidates");

    /** Whether the validator must search for hidden steps (a candidate set rather than one state). */
    public boolean searches() {
        return hiddenPlace || hiddenLoads;
    }

    /** The declaration as the header writes it. */
    public String json() {
        List<String> f = levels(new String[] {"\"Place\":\"hidden\"", "\"loads\":\"hidden\"", "\"Decode\":\"batch\"",
            "\"StreamPage\":\"sizes\""});
        if (hiddenSteps != DEFAULT_HIDDEN_STEPS) {
            f.add("\"hiddenSteps\":" + hiddenSteps);
        }
        if (candidates != DEFAULT_CANDIDATES) {
            f.add("\"candidates\":" + candidates);
        }
        return "{" + String.join(",", f) + "}";
    }

    /** In words, for a verdict. */
    public String describe() {
        return String.join(", ", levels(new String[] {"Place not logged", "loads never cited", "Decode per batch iteration",
            "checkpoint sizes without content"}));
    }

    /** Of the four levels' names (Place, loads, Decode, StreamPage, in that order), those this observation declares. */
    private List<String> levels(String[] names) {
        boolean[] on = {hiddenPlace, hiddenLoads, batchDecode, streamSizes};
        List<String> out = new ArrayList<>();
        for (int i = 0; i < on.length; i++) {
            if (on[i]) {
                out.add(names[i]);
            }
        }
        return out;
    }

    /** The trace the validator replays, where its lines came from, and what the system observes. */
    public record Result(byte[] trace, List<Long> origins, Observation observation) {}

    /** Whether a trace's header declares what it observes ({@code "observes"}). */
    public static boolean declared(byte[] trace) {
        return Linearize.headerOf(trace).contains("\"observes\"");
    }

    /** The whole trace rewritten ({@link ObservedInput}), with every line's origin: for a checker that reads it whole. */
    public static Result of(byte[] trace, String source) throws TraceFormatException {
        try (ObservedInput in = new ObservedInput(new java.io.ByteArrayInputStream(trace), source, true)) {
            byte[] bytes;
            try {
                bytes = in.readAllBytes();
            } catch (TraceBytes.Refused ex) {
                throw new TraceFormatException(source, in.writtenLineOf(ex.line), ex.getMessage());
            }
            return new Result(bytes, in.origins(), in.observation());
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    static Observation declaration(JsonNode d, String source, long n) throws TraceFormatException {
        if (d == null) {
            throw new TraceFormatException(source, n, "header: a partial trace declares what it observes (\"observes\":{...})");
        }
        if (!(d instanceof ObjectNode o)) {
            throw new TraceFormatException(source, n, "header: observes must be an object, found " + Echo.cut(d.toString()));
        }
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new TraceFormatException(source, n, "header: unknown field 'observes." + Echo.cut(f) + "' (known: Place, loads, Decode,"
                        + " StreamPage, hiddenSteps, candidates)");
            }
        }
        boolean place = choice(o, "Place", "logged", "hidden", source, n);
        boolean loads = choice(o, "loads", "cited", "hidden", source, n);
        boolean batch = choice(o, "Decode", "step", "batch", source, n);
        boolean sizes = choice(o, "StreamPage", "logged", "sizes", source, n);
        int steps = bound(o, "hiddenSteps", DEFAULT_HIDDEN_STEPS, MAX_HIDDEN_STEPS, source, n);
        int cands = bound(o, "candidates", DEFAULT_CANDIDATES, MAX_CANDIDATES, source, n);
        return new Observation(place, loads, batch, sizes, steps, cands);
    }

    private static boolean choice(ObjectNode o, String f, String full, String partial, String source, long n) throws TraceFormatException {
        JsonNode v = o.get(f);
        if (v == null || (v.isTextual() && v.asText().equals(full))) {
            return false;
        }
        if (v.isTextual() && v.asText().equals(partial)) {
            return true;
        }
        throw new TraceFormatException(source, n, "header: observes." + f + " must be \"" + full + "\" or \"" + partial + "\", found "
                + Echo.cut(v.toString()));
    }

    private static int bound(ObjectNode o, String f, int def, int max, String source, long n) throws TraceFormatException {
        JsonNode v = o.get(f);
        if (v == null) {
            return def;
        }
        if (!v.isIntegralNumber() || v.asLong() < 1 || v.asLong() > max) {
            throw new TraceFormatException(source, n, "header: observes." + f + " must be an integer from 1 to " + max + ", found "
                    + Echo.cut(v.toString()));
        }
        return v.asInt();
    }

    /**
     * A composed line: one batch iteration (Decode, {@code batch}) or one checkpoint-size report
     * (StreamPage, {@code sizes}), written as the step of each entry in order, each with the line's
     * other fields (its worker, its time).
     */
    record Composed(String type, String field, List<String> entry) {}

    static final Composed BATCH_LINE = new Composed("Decode", "batch", List.of("req", "tokens", "pages"));
    static final Composed SIZES_LINE = new Composed("StreamPage", "sizes", List.of("req", "holder", "ckpt"));

    /** Writes composed line o (line n as written) as its steps, one line each; returns how many. */
    static int expand(Composed c, ObjectNode o, StringBuilder out, String source, long n) throws TraceFormatException {
        String fields = String.join(", ", c.entry());
        JsonNode entries = o.remove(c.field());
        if (!entries.isArray() || entries.isEmpty()) {
            throw new TraceFormatException(source, n, c.type() + ": '" + c.field() + "' must be a non-empty array of objects with " + fields);
        }
        for (String f : new String[] {"req", "tokens", "holder", "ckpt", "pages"}) {
            if (o.has(f)) {
                throw new TraceFormatException(source, n, c.type() + ": a '" + c.field() + "' line gives " + fields + " per entry of '"
                        + c.field() + "', not '" + f + "' beside them");
            }
        }
        int k = 0;
        for (JsonNode en : entries) {
            k++;
            if (!(en instanceof ObjectNode entry)) {
                throw new TraceFormatException(source, n, c.type() + ": " + c.field() + " entry " + k + " must be an object");
            }
            for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!c.entry().contains(f)) {
                    throw new TraceFormatException(source, n, c.type() + ": " + c.field() + " entry " + k + ": unknown field '" + Echo.cut(f)
                            + "' (an entry has " + fields + ")");
                }
            }
            ObjectNode d = o.deepCopy();
            d.setAll(entry);
            out.append(d).append('\n');
        }
        return k;
    }
}
