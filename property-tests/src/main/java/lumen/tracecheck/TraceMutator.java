package lumen.tracecheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded mutations of a valid trace, for the differential check of the two validators: drop,
 * reorder or duplicate an event, alter one field of one event, or break a line's syntax. A
 * mutation may leave the trace valid (two independent events swapped); the checkers must then
 * both accept it.
 */
public final class TraceMutator {
    public enum Kind { DROP, SWAP, DUPLICATE, ALTER, GARBAGE }

    public record Mutated(byte[] trace, String description) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private TraceMutator() {}

    public static Mutated mutate(byte[] trace, Kind kind, SplittableRandom r) {
        List<String> lines = new ArrayList<>(List.of(new String(trace, StandardCharsets.UTF_8).split("\n")));
        if (lines.size() < 3) {
            throw new IllegalArgumentException("a trace of at least two events");
        }
        int i = 1 + r.nextInt(lines.size() - 1);
        String what;
        switch (kind) {
            case DROP -> what = "dropped line " + (i + 1) + ": " + lines.remove(i);
            case SWAP -> {
                int j = i == lines.size() - 1 ? i - 1 : i;
                if (j < 1) {
                    j = 1;
                }
                what = swapAt(lines, j);
            }
            case DUPLICATE -> {
                lines.add(i, lines.get(i));
                what = "duplicated line " + (i + 1);
            }
            case ALTER -> what = alter(lines, i, r);
            case GARBAGE -> {
                String l = lines.get(i);
                lines.set(i, r.nextBoolean() ? l.substring(0, l.length() / 2) : "not json at all");
                what = "broke the syntax of line " + (i + 1);
            }
            default -> throw new IllegalStateException();
        }
        return new Mutated((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8), kind + ": " + what);
    }

    /**
     * The trace with its lines {@code j} and {@code j + 1} (0-based, after the header: j >= 1) swapped,
     * as {@link Kind#SWAP} swaps them.
     */
    public static Mutated swap(byte[] trace, int j) {
        List<String> lines = new ArrayList<>(List.of(new String(trace, StandardCharsets.UTF_8).split("\n")));
        if (j < 1 || j + 1 >= lines.size()) {
            throw new IllegalArgumentException("no lines " + (j + 1) + " and " + (j + 2) + " to swap after the header");
        }
        String what = swapAt(lines, j);
        return new Mutated((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8), Kind.SWAP + ": " + what);
    }

    private static String swapAt(List<String> lines, int j) {
        // the events trade places, the times stay where they were: a reordering, not a clock going back
        String a = lines.get(j);
        String b = lines.get(j + 1);
        lines.set(j, withTimeOf(b, a));
        lines.set(j + 1, withTimeOf(a, b));
        return "swapped lines " + (j + 1) + " and " + (j + 2);
    }

    /** Event line {@code event} with the time of line {@code from} (unchanged when either has none or is not JSON). */
    private static String withTimeOf(String event, String from) {
        try {
            JsonNode e = JSON.readTree(event);
            JsonNode f = JSON.readTree(from);
            if (!(e instanceof ObjectNode o) || !e.has("t") || f == null || !f.has("t")) {
                return event;
            }
            o.set("t", f.get("t"));
            return JSON.writeValueAsString(o);
        } catch (IOException ex) {
            return event;
        }
    }

    /** Changes one field of the event on line i (0-based) to a nearby value. */
    private static String alter(List<String> lines, int i, SplittableRandom r) {
        try {
            ObjectNode e = (ObjectNode) JSON.readTree(lines.get(i));
            List<String> fields = new ArrayList<>();
            for (Iterator<String> it = e.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!f.equals("type") && !f.equals("t") && !f.equals("ref")) {
                    fields.add(f);
                }
            }
            if (fields.isEmpty()) {
                lines.set(i, lines.get(i).replace("\"Restart\"", "\"DraftReady\"").replace("\"FullReady\"", "\"Restart\""));
                return "changed the type of line " + (i + 1);
            }
            String f = fields.get(r.nextInt(fields.size()));
            JsonNode v = e.get(f);
            String before = v.toString();
            if (v.isNull()) {
                e.put(f, 0);
            } else if (v.isIntegralNumber()) {
                int n = v.asInt() + (r.nextBoolean() ? 1 : -1);
                if (n < 0) {
                    e.putNull(f);
                } else {
                    e.put(f, n);
                }
            } else if (v.isTextual()) {
                e.put(f, v.asText().equals("RESTORE") ? "REPREFILL" : "RESTORE");
            } else if (v.isArray()) {
                ArrayNode a = (ArrayNode) v;
                if (a.isEmpty()) {
                    a.add(0);
                } else if (r.nextBoolean()) {
                    a.remove(r.nextInt(a.size()));
                } else {
                    int k = r.nextInt(a.size());
                    a.set(k, JSON.getNodeFactory().numberNode(a.get(k).asInt() + 1));
                }
            }
            lines.set(i, JSON.writeValueAsString(e));
            return "line " + (i + 1) + " field " + f + ": " + before + " -> " + e.get(f);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
