package lumen.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What each line form of docs/trace-format.md carries: the fields it must have and those it may
 * have (besides {@code type}, {@code t} and {@code ext}, which every event may carry). A rule that
 * adds a field and expects MALFORMED adds one the line's own form does not allow, and a rule that
 * removes one removes a field the form requires, so that its mutant breaks the rule it names on
 * the line it touched, whether that line is an atomic event, a begin, a chunk, an end, a batch
 * iteration, a size report, a process's event or a header.
 *
 * @param name     the form, in words ("Decode begin", "StreamPage sizes", "header")
 * @param required the fields it must carry
 * @param optional the fields it may carry; a rule never removes one (removing it is fine, or
 *                 changes what the trace means, as {@code steps} and {@code observes} do)
 */
record LineForms(String name, Set<String> required, Set<String> optional) {
    /** The fields every event may carry. */
    static final Set<String> ALWAYS = Set.of("type", "t", "ext");

    /** The atomic events (Events, and Objects: the optional fields). */
    private static final Map<String, List<Set<String>>> ATOMIC = Map.ofEntries(
            Map.entry("Arrive", List.of(Set.of("req", "worker", "promptLen", "ref"), Set.of("maxOut"))),
            Map.entry("Place", List.of(Set.of("req", "holder"), Set.of("backup", "loads", "reserved"))),
            Map.entry("Prefill", List.of(Set.of("req", "worker", "tokens", "pages"), Set.of())),
            Map.entry("Decode", List.of(Set.of("req", "worker", "tokens", "pages"), Set.of())),
            Map.entry("StreamPage", List.of(Set.of("req", "holder", "ckpt", "pages"), Set.of())),
            Map.entry("Complete", List.of(Set.of("req", "worker", "freed"), Set.of())),
            Map.entry("Fail", List.of(Set.of("worker", "interrupted", "orphaned"), Set.of("promoted"))),
            Map.entry("Route", List.of(Set.of("req", "mode", "worker", "resumed", "freed"), Set.of("pages", "loads"))),
            Map.entry("Restart", List.of(Set.of("worker"), Set.of())),
            Map.entry("DraftReady", List.of(Set.of("worker"), Set.of("target", "loads"))),
            Map.entry("Assist", List.of(Set.of("worker", "req", "draft"), Set.of("loads"))),
            Map.entry("FullReady", List.of(Set.of("worker", "dropped"), Set.of())));

    /** The begin and chunk lines (Begin and end: the table of what each form carries). */
    private static final Map<String, List<Set<String>>> PARTS = Map.of(
            "Prefill begin", List.of(Set.of("req", "worker"), Set.of("pages")),
            "Decode begin", List.of(Set.of("req", "worker"), Set.of("pages")),
            "StreamPage begin", List.of(Set.of("req"), Set.of("holder")),
            "Route begin", List.of(Set.of("req"), Set.of()),
            "FullReady begin", List.of(Set.of("worker"), Set.of()),
            "Prefill chunk", List.of(Set.of("req", "worker", "pages"), Set.of()));

    /** Every event field the contract knows, of any form: the names a rule may add where the form does not allow them. */
    static final Set<String> EVENT_FIELDS = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("req", "worker", "holder",
            "backup", "promptLen", "ref", "maxOut", "tokens", "ckpt", "freed", "mode", "resumed", "interrupted", "orphaned", "promoted",
            "draft", "dropped", "loads", "reserved", "pages", "target", "phase", "batch", "sizes")));

    /** The header's config (The header). */
    static final Set<String> CONFIG = Set.of("policy", "workers", "alpha", "beta", "theta", "tau", "budget", "pageTokens", "k", "readings");
    /** A header's observes (Partial traces). */
    static final Set<String> OBSERVES = Set.of("Place", "loads", "Decode", "StreamPage", "hiddenSteps", "candidates");
    /** An entry of a batch line, and of a size report (Partial traces). */
    static final Set<String> BATCH_ENTRY = Set.of("req", "tokens", "pages");
    static final Set<String> SIZES_ENTRY = Set.of("req", "holder", "ckpt");

    /**
     * The form of line {@code index} (0: the header) of an input of kind {@code kind}, its object
     * {@code o}; {@code lamport}: a per-process log's events carry {@code lc}, not {@code vc}.
     * Null for a line whose form the contract does not know.
     */
    static LineForms of(InputKind kind, int index, JsonNode o, boolean lamport) {
        String type = o.path("type").asText();
        if (index == 0) {
            Set<String> req = new HashSet<>(Set.of("type", "format", "version", "config"));
            Set<String> opt = new HashSet<>(Set.of("ext"));
            switch (kind) {
                case BEGIN_END -> opt.add("steps");
                case PARTIAL -> opt.add("observes");
                case PROCESS_LOGS -> req.add("process");
                default -> { }
            }
            return new LineForms("header", Set.copyOf(req), Set.copyOf(opt));
        }
        String clock = kind == InputKind.PROCESS_LOGS ? lamport ? "lc" : "vc" : null;
        String phase = o.has("phase") ? o.path("phase").asText() : null;
        List<Set<String>> f;
        String name;
        if (phase != null && !phase.equals("end")) {
            name = type + " " + phase;
            f = PARTS.get(name);
            if (f != null) {
                // without its phase a begin or a chunk is an atomic event that lacks its outcome: phase is required here
                f = List.of(with(f.get(0), "phase"), f.get(1));
            }
        } else if (o.has("batch")) {
            name = type + " batch";
            f = List.of(Set.of("worker", "batch"), Set.of());
        } else if (o.has("sizes")) {
            name = type + " sizes";
            f = List.of(Set.of("sizes"), Set.of());
        } else {
            name = phase == null ? type : type + " end";
            f = ATOMIC.get(type);
            if (f != null && phase != null) {
                // an end is the step as an atomic event writes it; a Prefill or Decode's end needs only the pages its begin did not carry
                Set<String> req = new HashSet<>(f.get(0));
                Set<String> opt = new HashSet<>(f.get(1));
                if (type.equals("Prefill") || type.equals("Decode")) {
                    req.remove("pages");
                    opt.add("pages");
                }
                opt.add("phase");
                f = List.of(Set.copyOf(req), Set.copyOf(opt));
            }
            if (f != null && kind == InputKind.PARTIAL && type.equals("StreamPage") && !o.has("pages")) {
                // checkpoint sizes without content: a StreamPage carries none
                f = List.of(Set.of("req", "holder", "ckpt"), Set.of());
            }
        }
        if (f == null) {
            return null;
        }
        Set<String> req = f.get(0);
        if (clock != null) {
            req = with(req, clock);
        }
        return new LineForms(name, req, f.get(1));
    }

    private static Set<String> with(Set<String> s, String x) {
        Set<String> out = new HashSet<>(s);
        out.add(x);
        return Set.copyOf(out);
    }
}
