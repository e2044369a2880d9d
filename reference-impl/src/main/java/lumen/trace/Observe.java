package lumen.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A full trace as a system that observes less would have logged it ({@link Observation}): Place
 * lines dropped, loads no longer cited, the Decode lines of one batch iteration joined into one,
 * StreamPage lines without their content and a run of them joined into one size report.
 * The runtime's traces written this way are the partial traces the kit is tested on; a system
 * can use it to see what its own trace looks like at a level.
 */
public final class Observe {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Observe() {}

    /**
     * The trace at observation level {@code obs}. Batch iterations are read off the trace: a run of
     * consecutive Decode lines on one worker, each of a different request, is one iteration.
     */
    public static byte[] at(byte[] trace, Observation obs) {
        String[] lines = new String(trace, StandardCharsets.UTF_8).split("\n");
        StringBuilder out = new StringBuilder();
        List<ObjectNode> batch = new ArrayList<>();
        List<ObjectNode> sizes = new ArrayList<>();
        Set<Integer> inBatch = new HashSet<>();
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            ObjectNode o = parse(lines[i]);
            if (i == 0) {
                o.set("observes", parse(obs.json()));
                out.append(o).append('\n');
                continue;
            }
            String type = o.path("type").asText();
            if (obs.hiddenPlace() && type.equals("Place")) {
                continue;
            }
            if (obs.hiddenLoads()) {
                o.remove("loads");
            }
            boolean decode = obs.batchDecode() && type.equals("Decode") && !o.has("phase");
            boolean size = obs.streamSizes() && type.equals("StreamPage") && !o.has("phase");
            if (!sizes.isEmpty() && !size) {
                flushSizes(sizes, out);
            }
            if (!batch.isEmpty() && (!decode || o.path("worker").asInt() != batch.get(0).path("worker").asInt()
                    || inBatch.contains(o.path("req").asInt()))) {
                flush(batch, out);
                inBatch.clear();
            }
            if (size) {
                o.remove("pages");
                sizes.add(o);
                continue;
            }
            if (decode) {
                batch.add(o);
                inBatch.add(o.path("req").asInt());
                continue;
            }
            out.append(o).append('\n');
        }
        flush(batch, out);
        flushSizes(sizes, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A run of StreamPage lines, without their content: one size report when there are several. */
    private static void flushSizes(List<ObjectNode> run, StringBuilder out) {
        if (run.size() == 1) {
            out.append(run.get(0)).append('\n');
        } else if (run.size() > 1) {
            ObjectNode line = JSON.createObjectNode();
            line.put("type", "StreamPage");
            ObjectNode last = run.get(run.size() - 1);
            if (last.has("t")) {
                line.set("t", last.get("t"));
            }
            ArrayNode entries = line.putArray("sizes");
            for (ObjectNode sp : run) {
                ObjectNode en = entries.addObject();
                en.set("req", sp.get("req"));
                en.set("holder", sp.get("holder"));
                en.set("ckpt", sp.get("ckpt"));
            }
            out.append(line).append('\n');
        }
        run.clear();
    }

    private static void flush(List<ObjectNode> batch, StringBuilder out) {
        if (batch.isEmpty()) {
            return;
        }
        if (batch.size() == 1) {
            out.append(batch.get(0)).append('\n');
            batch.clear();
            return;
        }
        ObjectNode line = JSON.createObjectNode();
        line.put("type", "Decode");
        ObjectNode last = batch.get(batch.size() - 1);
        if (last.has("t")) {
            line.set("t", last.get("t"));
        }
        line.set("worker", batch.get(0).get("worker"));
        ArrayNode entries = line.putArray("batch");
        for (ObjectNode d : batch) {
            ObjectNode en = entries.addObject();
            en.set("req", d.get("req"));
            en.set("tokens", d.get("tokens"));
            if (d.has("pages")) {
                en.set("pages", d.get("pages"));
            }
        }
        out.append(line).append('\n');
        batch.clear();
    }

    private static ObjectNode parse(String l) {
        try {
            return (ObjectNode) JSON.readTree(l);
        } catch (JsonProcessingException | ClassCastException ex) {
            throw new IllegalArgumentException("not a trace line: " + Echo.cut(l), ex);
        }
    }
}
