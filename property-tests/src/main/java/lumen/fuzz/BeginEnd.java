package lumen.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A whole atomic trace written with begin and end forms (docs/trace-format.md, Begin and end), as
 * a system that logs a step when it starts and again when it is done would write it: the header
 * declares {@code "steps":"begin-end"}, and some of the steps that may be split are, each begun a
 * few lines before it ends. A StreamPage's begin may name its holder; a Decode's begin is the
 * worker's, with some or all of the pages it wrote, the end the gateway's, with the tokens and the
 * rest; a Prefill's pages are spread over its begin, any number of chunks and its end; a Route (a
 * RESTORE) and a FullReady begin with their request or worker. Each step takes effect at its end,
 * so the trace means what the atomic one means.
 *
 * <p>A begin never moves past a line that names its request or its worker, nor past a Fail or a
 * Restart (which would stop it), and it carries the time of the line before it or none, so the
 * trace's times still never go backwards.
 */
final class BeginEnd {
    /** The steps that may be split, and the ones a worker computes (keyed by request and worker). */
    static final Set<String> SPLIT = Set.of("Prefill", "Decode", "StreamPage", "Route", "FullReady");
    static final Set<String> WORKER_STEPS = Set.of("Prefill", "Decode");

    private BeginEnd() {}

    /** The header with {@code "steps":"begin-end"} next to its type. */
    static String declared(String header) {
        return header.replaceFirst("^\\{\"type\":\"header\",", "{\"type\":\"header\",\"steps\":\"begin-end\",");
    }

    /** Whether atomic line {@code o} may be written as a begin and an end. */
    static boolean splittable(JsonNode o) {
        String type = o.path("type").asText();
        return SPLIT.contains(type) && !o.has("phase") && (!type.equals("Route") || o.path("mode").asText().equals("RESTORE"));
    }

    /** The trace {@code atomic} (its lines) with about {@code share} of its splittable steps split, as a seeded draw decides. */
    static List<String> split(List<String> atomic, SplittableRandom r, double share) {
        List<String> out = new ArrayList<>();
        out.add(declared(atomic.get(0)));
        for (int i = 1; i < atomic.size(); i++) {
            ObjectNode o = ReaderMutator.tree(atomic.get(i));
            if (splittable(o) && r.nextDouble() < share) {
                splitInto(out, o, r, r.nextInt(3));
            } else {
                out.add(atomic.get(i));
            }
        }
        return out;
    }

    /**
     * Appends step {@code o} to {@code out} as a begin (moved up to {@code back} lines before its end
     * where nothing forbids it), chunks for a Prefill, and its end.
     */
    static void splitInto(List<String> out, ObjectNode o, SplittableRandom r, int back) {
        String type = o.path("type").asText();
        ObjectNode begin = ReaderMutator.MAPPER.createObjectNode();
        begin.put("type", type);
        begin.put("phase", "begin");
        List<JsonNode> pages = new ArrayList<>();
        o.path("pages").forEach(pages::add);
        List<List<JsonNode>> parts = new ArrayList<>();
        if (WORKER_STEPS.contains(type)) {
            begin.set("req", o.get("req"));
            begin.set("worker", o.get("worker"));
            // the begin's share, each chunk's (a Prefill only), and the end's: the pages in order
            int chunks = type.equals("Prefill") ? r.nextInt(4) : 0;
            int[] cuts = cuts(pages.size(), chunks + 1, r);
            int from = 0;
            for (int c : cuts) {
                parts.add(pages.subList(from, c));
                from = c;
            }
            parts.add(pages.subList(from, pages.size()));
            if (!parts.get(0).isEmpty() || r.nextInt(4) == 0) {
                begin.set("pages", array(parts.get(0)));
            }
        } else if (type.equals("FullReady")) {
            begin.set("worker", o.get("worker"));
        } else {
            begin.set("req", o.get("req"));
            if (type.equals("StreamPage") && r.nextBoolean()) {
                begin.set("holder", o.get("holder"));
            }
        }
        int at = out.size();
        for (int k = 0; k < back && at > 1 && !blocks(out.get(at - 1), o); k++) {
            at--;
        }
        if (r.nextBoolean()) {
            JsonNode t = lastTime(out, at);
            if (t != null) {
                put(begin, "t", t, "phase");
            }
        }
        out.add(at, begin.toString());
        for (int c = 1; c < parts.size() - 1; c++) {
            if (parts.get(c).isEmpty()) {
                continue;
            }
            ObjectNode chunk = ReaderMutator.MAPPER.createObjectNode();
            chunk.put("type", type);
            chunk.put("phase", "chunk");
            JsonNode t = r.nextBoolean() ? lastTime(out, out.size()) : null;
            if (t != null) {
                chunk.set("t", t);
            }
            chunk.set("req", o.get("req"));
            chunk.set("worker", o.get("worker"));
            chunk.set("pages", array(parts.get(c)));
            out.add(chunk.toString());
        }
        ObjectNode end = withPhase(o, "end");
        if (WORKER_STEPS.contains(type)) {
            List<JsonNode> own = parts.get(parts.size() - 1);
            // the end needs only the pages its begin and chunks did not carry: with none left (a Prefill after a restore
            // of the whole KV writes none at all) it may say so or leave pages out
            if (own.isEmpty() && r.nextBoolean()) {
                end.remove("pages");
            } else {
                end.set("pages", array(own));
            }
        }
        out.add(end.toString());
    }

    /** Whether a begin may not move before {@code line}: a Fail or Restart, the header, or a line that names the step's request or worker. */
    static boolean blocks(String line, JsonNode step) {
        ObjectNode l = ReaderMutator.tree(line);
        String type = l.path("type").asText();
        if (type.equals("Fail") || type.equals("Restart") || type.equals("header")) {
            return true;
        }
        return step.has("req") && l.has("req") && l.get("req").equals(step.get("req"))
                || step.has("worker") && l.has("worker") && l.get("worker").equals(step.get("worker"));
    }

    /** The last {@code t} among lines {@code 1 .. at-1}, or null. */
    static JsonNode lastTime(List<String> lines, int at) {
        for (int k = at - 1; k >= 1; k--) {
            JsonNode t = ReaderMutator.tree(lines.get(k)).get("t");
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** {@code o} with {@code "phase"} right after its type (or without one, for null). */
    static ObjectNode withPhase(ObjectNode o, String phase) {
        ObjectNode out = ReaderMutator.MAPPER.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("phase")) {
                continue;
            }
            out.set(e.getKey(), e.getValue());
            if (e.getKey().equals("type") && phase != null) {
                out.put("phase", phase);
            }
        }
        return out;
    }

    /** {@code o} with field {@code f} set to {@code v} right after field {@code after}. */
    static void put(ObjectNode o, String f, JsonNode v, String after) {
        ObjectNode copy = o.deepCopy();
        o.removeAll();
        for (Iterator<Map.Entry<String, JsonNode>> it = copy.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals(f)) {
                continue;
            }
            o.set(e.getKey(), e.getValue());
            if (e.getKey().equals(after)) {
                o.set(f, v);
            }
        }
        if (!o.has(f)) {
            o.set(f, v);
        }
    }

    static ArrayNode array(List<JsonNode> xs) {
        ArrayNode a = ReaderMutator.MAPPER.createArrayNode();
        xs.forEach(a::add);
        return a;
    }

    /** {@code k} cut points in 0..n, in order, drawn at random. */
    static int[] cuts(int n, int k, SplittableRandom r) {
        int[] c = new int[k];
        for (int i = 0; i < k; i++) {
            c[i] = r.nextInt(n + 1);
        }
        java.util.Arrays.sort(c);
        return c;
    }

    /** A step of a begin-end trace: the lines of its begin, its chunks and its end ({@code end} -1 when it never ends). */
    record Step(String type, String key, int begin, List<Integer> chunks, int end) {}

    /** The key a begin, chunk or end is matched by (docs: a Prefill or Decode by request and worker). */
    static String key(JsonNode o) {
        String type = o.path("type").asText();
        if (WORKER_STEPS.contains(type)) {
            return type + " r" + o.path("req").asText() + " w" + o.path("worker").asText();
        }
        return type.equals("FullReady") ? type + " w" + o.path("worker").asText() : type + " r" + o.path("req").asText();
    }

    /** The steps of a begin-end trace that are begun and ended with nothing else of their key open between (as the splitter writes them). */
    static List<Step> steps(List<String> lines) {
        List<Step> out = new ArrayList<>();
        java.util.Map<String, Integer> open = new java.util.HashMap<>();
        java.util.Map<String, List<Integer>> chunks = new java.util.HashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            ObjectNode o = ReaderMutator.tree(lines.get(i));
            if (!o.has("phase")) {
                continue;
            }
            String k = key(o);
            switch (o.path("phase").asText()) {
                case "begin" -> {
                    open.put(k, i);
                    chunks.put(k, new ArrayList<>());
                }
                case "chunk" -> chunks.computeIfAbsent(k, x -> new ArrayList<>()).add(i);
                default -> {
                    Integer b = open.remove(k);
                    if (b != null) {
                        out.add(new Step(o.path("type").asText(), k, b, List.copyOf(chunks.remove(k)), i));
                    }
                }
            }
        }
        return out;
    }
}
