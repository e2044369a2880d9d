package lumen.trace;

import java.util.ArrayList;
import java.util.List;

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
 * <p>{@link TraceReader} reads the declaration from the header and reads each composed line (a batch
 * iteration, a size report) as its steps, every one of them on the line it came from.
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

    /** The four levels as the header names them, and for each its two values (the full observation's first). */
    static final String[] LEVELS = {"Place", "loads", "Decode", "StreamPage"};
    static final String[][] LEVEL_VALUES = {{"logged", "hidden"}, {"cited", "hidden"}, {"step", "batch"}, {"logged", "sizes"}};

    /** Whether the validator must search for hidden steps (a candidate set rather than one state). */
    public boolean searches() {
        return hiddenPlace || hiddenLoads;
    }

    /** The declaration as the header writes it. */
    public String json() {
        String[] declared = new String[LEVELS.length];
        for (int i = 0; i < LEVELS.length; i++) {
            declared[i] = "\"" + LEVELS[i] + "\":\"" + LEVEL_VALUES[i][1] + "\"";
        }
        List<String> f = levels(declared);
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

    /** What a verdict on a trace at this level must say of how its composed lines were read. */
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        if (batchDecode) {
            notes.add("Decode per batch iteration: each batch line judged as its requests' Decode steps in the listed order");
        }
        if (streamSizes) {
            notes.add("checkpoint sizes without content: each size report judged as the StreamPage steps of its entries in the"
                    + " listed order; the copies' bytes were not observed, so S6 judged their sizes only, and a RESTORE's bytes were"
                    + " held to what the request's server wrote (S9)");
        }
        return notes;
    }
}
