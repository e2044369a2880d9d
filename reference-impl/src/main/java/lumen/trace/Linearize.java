package lumen.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Non-atomic steps (docs/trace-format.md, Begin and end): a system that logs a step when it starts
 * and again when it is done writes the trace with {@code "steps":"begin-end"} in its header, and
 * gives such events {@code "phase"}: {@code "begin"}, then (a chunked Prefill only) any number of
 * {@code "chunk"}s with part of its {@code pages}, then {@code "end"} with the step's outcome.
 *
 * <p>The step takes effect at its end: {@link #of} writes the atomic trace the spec judges, one
 * event per end (the pages its begin and chunks carried joined with its own), and maps each of its
 * lines back to the line it came from. A begin whose end never comes changes nothing, so a page
 * sent and never acknowledged is not in the checkpoint, and a restore begun when its holder fails
 * resumes nothing. An end that comes after a failure that should have stopped it is kept, so the
 * spec rejects what it claims. Steps that may be split: Prefill (chunked) and Decode (computed by a
 * worker, taken by the gateway), StreamPage (sent, then acknowledged), Route (a RESTORE begun and
 * finished) and FullReady (the handover begun and finished). A Prefill or a Decode is the step of
 * one worker on one request, and that worker's Restart ends whatever it had begun.
 */
public final class Linearize {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> SPLIT = Set.of("Prefill", "Decode", "StreamPage", "Route", "FullReady");
    /** The steps a worker computes: keyed by request and worker, and carrying the content it wrote. */
    private static final Set<String> WORKER_STEPS = Set.of("Prefill", "Decode");

    private Linearize() {}

    /**
     * The atomic trace and where its lines came from ({@code origins.get(n - 1)} is line n's
     * source line), with the steps begun and never ended listed in {@code unfinished}.
     */
    public record Result(byte[] atomic, List<Long> origins, List<String> unfinished) {}

    /**
     * Whether a trace's header asks for begin and end forms ({@code "steps":"begin-end"}): its own
     * field, read as JSON (a key or value spelled with escapes is the same, and the words inside an
     * {@code ext} are no declaration). A header that is not whole in {@code trace} (the first bytes of
     * a long one) or not JSON is taken to declare them when it holds both words, and is then read, and
     * refused where it breaks a rule, as a trace with begin and end forms.
     */
    public static boolean declared(byte[] trace) {
        String header = headerOf(trace);
        try {
            JsonNode h = WrittenTrace.object(header, "header", 1);
            return "begin-end".equals(h.path("steps").asText(null));
        } catch (TraceFormatException ex) {
            // not JSON, or cut short: the words decide, and the reading rules then name what is wrong
        }
        return header.contains("steps") && header.contains("begin-end");
    }

    /** A trace's first line, as text. */
    public static String headerOf(byte[] trace) {
        int nl = 0;
        while (nl < trace.length && trace[nl] != '\n') {
            nl++;
        }
        return new String(trace, 0, nl, StandardCharsets.UTF_8);
    }

    public static Result of(byte[] trace, String source) throws TraceFormatException {
        WrittenTrace.Text text = WrittenTrace.text(trace, source);
        String[] lines = text.lines();
        int workers = 0;
        int pageTokens = 0;
        double lastT = Double.NEGATIVE_INFINITY;
        long lastTLine = 0;
        StringBuilder out = new StringBuilder();
        List<Long> origins = new ArrayList<>();
        // per step (type and request, or worker): the begun and not yet ended, oldest first (a stream may have several pages in flight)
        Map<String, java.util.ArrayDeque<ObjectNode>> open = new LinkedHashMap<>();
        Map<String, java.util.ArrayDeque<Long>> openLine = new LinkedHashMap<>();
        // the steps a failure or a restart stopped, with the line that stopped them
        Map<String, Long> cancelled = new HashMap<>();
        // the requests arrived so far: a step begun for another is an error, as any event naming one is
        Set<String> arrived = new HashSet<>();
        boolean header = true;
        try {
            for (int i = 0; i < lines.length; i++) {
                long n = i + 1;
                String l = lines[i];
                if (l.isEmpty() && i == lines.length - 1) {
                    break; // the line end after the last line
                }
                // every line form is read by the same rules: a CR not followed by LF, a blank line, two values are errors anywhere
                ObjectNode o = WrittenTrace.line(lines, i, source);
                if (header) {
                    header = false;
                    if (!"begin-end".equals(o.path("steps").asText())) {
                        throw new TraceFormatException(source, n, "header: a trace with begin and end forms declares \"steps\":\"begin-end\"");
                    }
                    workers = o.path("config").path("workers").asInt(0);
                    pageTokens = o.path("config").path("pageTokens").asInt(0);
                    emit(out, origins, WrittenTrace.without(l, "steps"), n);
                    continue;
                }
                JsonNode tn = o.get("t");
                if (tn != null && tn.isNumber()) {
                    if (!Double.isFinite(tn.asDouble())) {
                        throw new TraceFormatException(source, n, "field 't' must be a finite number, found " + Echo.cut(tn.asText()));
                    }
                    // time never goes backwards, over every line as written, begins and chunks too
                    if (tn.asDouble() < lastT) {
                        throw new TraceFormatException(source, n, "time goes backwards: t=" + tn.asText() + " after t=" + lastT + " at line " + lastTLine);
                    }
                    lastT = tn.asDouble();
                    lastTLine = n;
                }
                JsonNode ph = o.remove("phase");
                String type = o.path("type").asText();
                if (ph != null && ph.isTextual() && (ph.asText().equals("begin") || ph.asText().equals("chunk")) && SPLIT.contains(type)) {
                    PartLines.check(l, source, n, type, ph.asText(), workers, pageTokens);
                }
                if (ph == null) {
                    if (type.equals("Arrive")) {
                        arrived.add(o.path("req").asText());
                    }
                    if (type.equals("Fail")) {
                        cancel(o, open, openLine, cancelled, n);
                    } else if (type.equals("Restart")) {
                        restarted(o.path("worker").asText(), open, openLine, cancelled, n);
                    }
                    emit(out, origins, l, n);
                    continue;
                }
                String phase = ph.asText();
                if (!SPLIT.contains(type)) {
                    throw new TraceFormatException(source, n, Echo.cut(type) + ": unexpected field 'phase' (only Prefill, Decode, StreamPage, Route and"
                            + " FullReady have begin and end forms)");
                }
                String key = key(o, type);
                if (!phase.equals("end") && !type.equals("FullReady") && !arrived.contains(o.path("req").asText())) {
                    throw new TraceFormatException(source, n, type + " " + Echo.cut(phase) + ": unknown request " + Echo.cut(o.path("req").asText())
                            + " (no Arrive for it before this line; with per-process logs, is the log that holds the decisions, the"
                            + " gateway's, among them?)");
                }
                switch (phase) {
                    case "begin" -> {
                        open.computeIfAbsent(key, k -> new java.util.ArrayDeque<>()).addLast(o);
                        openLine.computeIfAbsent(key, k -> new java.util.ArrayDeque<>()).addLast(n);
                        cancelled.remove(key);
                    }
                    case "chunk" -> {
                        if (!type.equals("Prefill")) {
                            throw new TraceFormatException(source, n, type + ": only a Prefill has chunks");
                        }
                        ObjectNode b = open.containsKey(key) ? open.get(key).peekLast() : null;
                        if (b == null) {
                            Long stop = cancelled.get(key);
                            throw new TraceFormatException(source, n, stop == null ? "Prefill chunk without its begin"
                                    : "Prefill chunk after the " + (lines[(int) (stop - 1)].contains("\"Restart\"") ? "Restart" : "Fail") + " at line "
                                            + stop + " stopped its step: a chunk belongs to a begun step, and a failure or a restart ends"
                                            + " the steps it stops (only their end may still come, for the spec to judge)");
                        }
                        pages(b).addAll(pages(o));
                    }
                    case "end" -> {
                        ObjectNode b = open.containsKey(key) ? open.get(key).pollFirst() : null;
                        if (b != null) {
                            openLine.get(key).pollFirst();
                        }
                        if (open.containsKey(key) && open.get(key).isEmpty()) {
                            open.remove(key);
                            openLine.remove(key);
                        }
                        if (b == null && cancelled.remove(key) == null) {
                            throw new TraceFormatException(source, n, type + " ends without its begin");
                        }
                        if (b != null && b.has("holder") && !b.get("holder").equals(o.get("holder"))) {
                            throw new TraceFormatException(source, n, type + " end names holder " + Echo.cut(String.valueOf(o.get("holder")))
                                    + ", its begin " + b.get("holder") + ": a begin's fields are its end's");
                        }
                        // the end as written, without its phase: every other byte is the reader's to judge
                        String atomic = WrittenTrace.without(l, "phase");
                        if (b != null && WORKER_STEPS.contains(type)) {
                            // the begin's and the chunks' pages first, then the end's own: the step's pages, [] when none carried any
                            atomic = WrittenTrace.pagesFirst(atomic, pages(b));
                        }
                        emit(out, origins, atomic, n);
                    }
                    default -> throw new TraceFormatException(source, n, "field 'phase' must be \"begin\", \"chunk\" or \"end\", found " + Echo.cut(phase));
                }
            }
            if (text.fault() != null) {
                throw text.fault();
            }
        } catch (TraceFormatException ex) {
            throw firstBad(ex, out, origins, source);
        }
        List<String> unfinished = new ArrayList<>();
        openLine.forEach((k, ls) -> ls.forEach(line -> unfinished.add(k + " (begun at line " + line + ")")));
        return new Result(out.toString().getBytes(StandardCharsets.UTF_8), origins, unfinished);
    }

    /**
     * The error to report when line {@code ex.line()} breaks a rule: an earlier line's, when one of
     * the atomic lines written before it breaks a reading rule (the header's sizes, an unknown type,
     * a missing field), since an error is named at the first line that breaks a rule.
     */
    private static TraceFormatException firstBad(TraceFormatException ex, StringBuilder out, List<Long> origins, String source) {
        if (origins.isEmpty()) {
            return ex;
        }
        try (TraceReader r = new TraceReader(new java.io.ByteArrayInputStream(out.toString().getBytes(StandardCharsets.UTF_8)), source)) {
            while (r.next() != null) {
                // read every line written so far
            }
        } catch (TraceFormatException e) {
            long at = e.line() >= 1 && e.line() <= origins.size() ? origins.get((int) e.line() - 1) : Long.MAX_VALUE;
            if (at < ex.line()) {
                return e.at(source, at);
            }
        } catch (java.io.IOException e) {
            // read from memory
        }
        return ex;
    }

    private static ArrayNode pages(ObjectNode o) {
        JsonNode p = o.get("pages");
        if (p instanceof ArrayNode a) {
            return a;
        }
        ArrayNode a = JSON.createArrayNode();
        o.set("pages", a);
        return a;
    }

    private static String key(ObjectNode o, String type) {
        if (WORKER_STEPS.contains(type)) {
            return type + " of request " + o.path("req").asText() + " on worker " + o.path("worker").asText();
        }
        return type.equals("FullReady") ? type + " of worker " + o.path("worker").asText() : type + " of request " + o.path("req").asText();
    }

    /** A worker's Restart: a Prefill or Decode it had begun (before it failed) can never end. */
    private static void restarted(String w, Map<String, java.util.ArrayDeque<ObjectNode>> open, Map<String, java.util.ArrayDeque<Long>> openLine,
                                  Map<String, Long> cancelled, long line) {
        for (String k : List.copyOf(open.keySet())) {
            ObjectNode b = open.get(k).peekFirst();
            if (WORKER_STEPS.contains(b.path("type").asText()) && b.path("worker").asText().equals(w)) {
                open.remove(k);
                openLine.remove(k);
                cancelled.put(k, line);
            }
        }
    }

    /** A failure stops the steps of the requests it interrupts or orphans, and the handover of the failed worker. */
    private static void cancel(ObjectNode fail, Map<String, java.util.ArrayDeque<ObjectNode>> open, Map<String, java.util.ArrayDeque<Long>> openLine,
                               Map<String, Long> cancelled, long line) {
        Set<String> reqs = new HashSet<>();
        for (String f : new String[] {"interrupted", "orphaned"}) {
            for (JsonNode r : fail.path(f)) {
                reqs.add(r.asText());
            }
        }
        String w = fail.path("worker").asText();
        for (String k : List.copyOf(open.keySet())) {
            ObjectNode b = open.get(k).peekFirst();
            boolean hit = b.path("type").asText().equals("FullReady") ? b.path("worker").asText().equals(w) : reqs.contains(b.path("req").asText());
            if (hit) {
                open.remove(k);
                openLine.remove(k);
                cancelled.put(k, line);
            }
        }
    }

    /** Emits a line as written (a CRLF's CR dropped). */
    private static void emit(StringBuilder out, List<Long> origins, String line, long n) {
        out.append(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line).append('\n');
        origins.add(n);
    }
}
