package lumen.validate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import lumen.trace.Echo;
import lumen.trace.TraceFormat;
import lumen.trace.TraceFormatException;
import lumen.trace.WrittenTrace;

/**
 * Per-process logs (docs/trace-format.md, Per-process logs): the gateway and each worker write
 * their own trace, each event with a vector clock ({@code vc}: per process, how many of its events
 * happened before or are this one) or a Lamport clock ({@code lc}). Wall clocks ({@code t}) are
 * never used to order events across processes, so skew between them does not matter.
 *
 * <p>{@link #validate} merges the logs into one trace in an order consistent with the clocks and
 * validates it on the mirror. With vector clocks, events that are concurrent (neither happened
 * before the other) may be taken in either order: the merge takes them in a fixed order first, and
 * when that order is rejected it searches, boundedly, for another: at each of the last
 * {@link #SEARCH_DEPTH} choices before the rejected event, each other event that was ready there,
 * continued in the fixed order, at most {@link #SEARCH_ORDERS} orders in all. The verdict says how
 * many orders were tried. With Lamport clocks the order is (lc, process): no search.
 *
 * <p>{@link #split} is the other direction, for the kit's own tests and for anyone who wants to see
 * the format: a whole trace written as per-process logs, with vector clocks from the events'
 * dependencies.
 */
public final class ProcessLogs {
    public static final int SEARCH_DEPTH = 8;
    public static final int SEARCH_ORDERS = 64;
    public static final String GATEWAY = "gateway";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProcessLogs() {}

    /** One process's log: its name (from the header's {@code process}) and its events, in file order. */
    record Log(String source, String process, String header, List<Ev> events) {}

    /** One event of a log: its line as written (clock removed), its clock, and where it came from. */
    record Ev(String json, Map<String, Long> vc, long lc, String source, long line, int proc, int index) {
        /** "file:line {the event}", the event cut short. */
        String where() {
            return source + ":" + line + " " + brief();
        }

        /** The event in brief: its type and the requests and workers it names. */
        String brief() {
            try {
                JsonNode o = JSON.readTree(json);
                StringBuilder b = new StringBuilder("{").append(o.path("type").asText());
                for (String f : new String[] {"phase", "req", "mode", "worker", "holder"}) {
                    if (o.has(f)) {
                        b.append(' ').append(f).append(' ').append(Echo.cut(o.get(f).asText()));
                    }
                }
                return b.append('}').toString();
            } catch (JsonProcessingException ex) {
                return Echo.cut(json);
            }
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /**
     * The verdict of a set of logs: the merged trace's, with the merged lines mapped back to their
     * files; {@code merged} is that trace (the accepted order, or the first one when none was).
     */
    public record Result(ValidationResult result, List<String> origins, int ordersTried, boolean lamport, byte[] merged,
            List<Rejection> rejections, WallClockLogs.Search wall) {
        Result(ValidationResult result, List<String> origins, int ordersTried, boolean lamport, byte[] merged) {
            this(result, origins, ordersTried, lamport, merged, List.of(), null);
        }

        Result(ValidationResult result, List<String> origins, int ordersTried, boolean lamport, byte[] merged, List<Rejection> rejections) {
            this(result, origins, ordersTried, lamport, merged, rejections, null);
        }

        /** Whether the logs carried wall-clock time only (their headers declare {@code skew_ms}): {@link #wall} says what the search did. */
        public boolean wallClock() {
            return wall != null;
        }

        /** Where merged line n (1 = the header) came from: "file:line". */
        public String origin(long n) {
            return n >= 1 && n <= origins.size() ? origins.get((int) n - 1) : "(the end of the run)";
        }

        /**
         * When every order tried was rejected: where each order failed, grouped by the event it
         * failed at, and the concurrent events the orders placed differently. Empty otherwise.
         */
        public List<String> blameLines() {
            return result.verdict() == Verdict.REJECTED ? blame(rejections) : List.of();
        }
    }

    /**
     * When every order tried was rejected (two or more of them): where each order failed, grouped by
     * the event it failed at, and the concurrent events the orders placed differently.
     */
    static List<String> blame(List<Rejection> rejections) {
        if (rejections.size() < 2) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        Map<String, List<Rejection>> byOrigin = new LinkedHashMap<>();
        rejections.forEach(x -> byOrigin.computeIfAbsent(x.origin(), k -> new ArrayList<>()).add(x));
        out.add("every order of the concurrent events tried was rejected (" + rejections.size() + " orders), at "
                + byOrigin.size() + (byOrigin.size() == 1 ? " event:" : " events:"));
        int shown = 0;
        for (var g : byOrigin.entrySet()) {
            if (shown++ == MAX_BLAME) {
                out.add("  ... and " + (byOrigin.size() - MAX_BLAME) + " more");
                break;
            }
            Rejection x = g.getValue().get(0);
            out.add("  " + g.getKey() + " " + x.event() + ": " + x.property() + ", in " + g.getValue().size()
                    + (g.getValue().size() == 1 ? " order" : " orders") + " (" + x.how() + ")");
        }
        // the moves that changed where the run fails, or else those that swapped related events
        String firstAt = rejections.get(0).origin();
        List<String> moved = new ArrayList<>();
        for (Rejection x : rejections) {
            if (x.moved() != null && !x.origin().equals(firstAt) && !moved.contains(x.moved()) && moved.size() < MAX_BLAME) {
                moved.add(x.moved() + " (then rejected at " + x.origin() + ")");
            }
        }
        if (moved.isEmpty()) {
            for (Rejection x : rejections) {
                if (x.moved() != null && x.moved().contains(": ") && !moved.contains(x.moved()) && moved.size() < MAX_BLAME) {
                    moved.add(x.moved());
                }
            }
        }
        if (!moved.isEmpty()) {
            out.add("the concurrent events placed otherwise than in the first order, each with the related events it changed places with:");
            moved.forEach(m -> out.add("  " + m));
        }
        return out;
    }

    /** The start of the note that says, when every order tried was rejected, where each failed. */
    public static final String ORDERS = "orders tried:";

    /** At most this many events and moves in a report's blame. */
    static final int MAX_BLAME = 8;

    /**
     * One order tried and rejected: the event it failed at ({@code origin}, "file:line", and the
     * event in words), the property, how the order was made, and the move that made it (the
     * concurrent events placed otherwise than in the first order), or null for the first order.
     */
    public record Rejection(String origin, String event, String property, String how, String moved) {}

    /**
     * One log as written: its process, its header (its process removed) as written and as a JSON
     * value to compare with the other logs', and its events, each its object, its text and its line.
     */
    record Raw(String source, String process, String header, JsonNode sameHeader, List<ObjectNode> events, List<String> texts,
               List<Long> lines) {}

    /**
     * Reads one log by the reading rules of every trace line (strict UTF-8 without a byte-order
     * mark, lines that end with LF or CRLF, no blank line, one JSON object on each, a key once):
     * its header names the process and is a header by the reading rules itself.
     */
    static Raw read(byte[] bytes, String source) throws TraceFormatException {
        WrittenTrace.Text text = WrittenTrace.text(bytes, source);
        String[] lines = text.lines();
        ObjectNode header = null;
        String own = null;
        JsonNode same = null;
        String process = null;
        List<ObjectNode> events = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<Long> at = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            long n = i + 1;
            if (lines[i].isEmpty() && i == lines.length - 1) {
                break; // the line end after the last line
            }
            ObjectNode obj = WrittenTrace.line(lines, i, source);
            if (header == null) {
                if (!"header".equals(obj.path("type").asText()) || !obj.path("process").isTextual() || obj.path("process").asText().isEmpty()) {
                    throw new TraceFormatException(source, n, "a per-process log starts with a header that names its process"
                            + " (\"process\": \"gateway\" or \"worker-3\", ...)");
                }
                process = obj.get("process").asText();
                header = obj.deepCopy();
                header.remove("process");
                own = WrittenTrace.without(lines[i], "process");
                own = own.endsWith("\r") ? own.substring(0, own.length() - 1) : own;
                headerRules(own, source);
                try {
                    // the logs of one run share one header: compared as JSON values (1.0 and 10e-1 are one number)
                    same = JSON.readTree(own);
                } catch (JsonProcessingException ex) {
                    throw new TraceFormatException(source, n, "not a JSON object: " + ex.getOriginalMessage());
                }
                if (header.path("config").path("readings").path("citedLoads").asText("").endsWith("ms")) {
                    throw new TraceFormatException(source, n, "citedLoads=" + header.path("config").path("readings").path("citedLoads").asText()
                            + " measures staleness in one clock's milliseconds, which per-process logs do not share: declare stale:N (events)");
                }
                continue;
            }
            events.add(obj);
            texts.add(lines[i]);
            at.add(n);
        }
        if (text.fault() != null) {
            throw text.fault();
        }
        if (header == null) {
            throw new TraceFormatException(source, 1, "empty log: no header");
        }
        return new Raw(source, process, own, same, events, texts, at);
    }

    /** A log's header (its process removed) by the reading rules of a trace's header; its steps are judged with the merged trace. */
    private static void headerRules(String header, String source) throws TraceFormatException {
        // skew_ms (wall-clock logs) is the per-process logs' own field, judged with them
        String h = WrittenTrace.without(WrittenTrace.without(header, "steps"), "skew_ms");
        try (lumen.trace.TraceReader r = new lumen.trace.TraceReader(new java.io.ByteArrayInputStream(
                (h + "\n").getBytes(StandardCharsets.UTF_8)), source)) {
            r.next();
        } catch (TraceFormatException ex) {
            throw ex.at(source, 1);
        } catch (IOException ex) {
            throw new IllegalStateException("a header in memory is read", ex);
        }
    }

    /**
     * A log's events with their clocks checked, each at its own line: exactly one clock, of the
     * run's kind; a vector clock names processes that have logs, counts no more events of one than
     * its log has, counts its own process's events and never goes back along the log; a Lamport
     * clock grows along the log; and {@code t}, which the merge drops, is a finite number.
     */
    private static Log clocks(Raw l, Map<String, Integer> index, List<Raw> logs, boolean lamport, int proc) throws TraceFormatException {
        List<Ev> events = new ArrayList<>();
        for (int k = 0; k < l.events().size(); k++) {
            ObjectNode obj = l.events().get(k);
            String source = l.source();
            long n = l.lines().get(k);
            JsonNode vc = obj.get("vc");
            JsonNode lc = obj.get("lc");
            if ((vc == null) == (lc == null)) {
                throw new TraceFormatException(source, n, "every event of a per-process log carries exactly one clock: 'vc' (a vector"
                        + " clock, {process: count}) or 'lc' (a Lamport clock, an integer)");
            }
            if ((vc == null) != lamport) {
                throw new TraceFormatException(source, n, "the logs of one run use one kind of clock: vector ('vc') or Lamport ('lc'); this"
                        + " event carries " + (vc == null ? "'lc'" : "'vc'") + ", most of the run's carry " + (lamport ? "'lc'" : "'vc'"));
            }
            JsonNode t = obj.get("t");
            if (t != null && (!t.isNumber() || !Double.isFinite(t.asDouble()))) {
                throw new TraceFormatException(source, n, "field 't' must be a finite number (each process's own wall clock), found "
                        + Echo.cut(t.toString()));
            }
            Map<String, Long> v = null;
            long lamportClock = -1;
            if (vc != null) {
                if (!vc.isObject()) {
                    throw new TraceFormatException(source, n, "field 'vc' must be an object {process: count}, found " + Echo.cut(vc.toString()));
                }
                v = new TreeMap<>();
                for (var it = vc.fields(); it.hasNext();) {
                    var f = it.next();
                    if (!f.getValue().isIntegralNumber() || !f.getValue().canConvertToLong() || f.getValue().asLong() < 0
                            || f.getValue().asLong() > TraceFormat.MAX_INT) {
                        throw new TraceFormatException(source, n, "field 'vc." + Echo.cut(f.getKey()) + "' must be an integer from 0 to "
                                + TraceFormat.MAX_INT + ", found " + Echo.cut(f.getValue().toString()));
                    }
                    Integer p = index.get(f.getKey());
                    if (p == null) {
                        throw new TraceFormatException(source, n, "field 'vc' names process '" + Echo.cut(f.getKey()) + "', which has no log here");
                    }
                    if (f.getValue().asLong() > logs.get(p).events().size()) {
                        throw new TraceFormatException(source, n, "field 'vc' says " + f.getValue().asLong() + " events of '" + Echo.cut(f.getKey())
                                + "' happened before, but its log has " + logs.get(p).events().size());
                    }
                    v.put(f.getKey(), f.getValue().asLong());
                }
                long own = v.getOrDefault(l.process(), 0L);
                long expect = events.size() + 1;
                if (own != expect) {
                    throw new TraceFormatException(source, n, "field 'vc." + Echo.cut(l.process()) + "' must count this process's events: " + expect
                            + " for its event number " + expect + ", found " + own);
                }
                if (!events.isEmpty()) {
                    // what a process has seen of another it never unsees: every entry is monotone along a log
                    Ev prev = events.get(events.size() - 1);
                    for (var c : prev.vc().entrySet()) {
                        long now = v.getOrDefault(c.getKey(), 0L);
                        if (now < c.getValue()) {
                            throw new TraceFormatException(source, n, "field 'vc." + Echo.cut(c.getKey()) + "' goes back along this log: "
                                    + c.getValue() + " at line " + prev.line() + ", " + now + " here (a vector clock's entries never"
                                    + " decrease within one process's log)");
                        }
                    }
                }
            } else {
                if (!lc.isIntegralNumber() || !lc.canConvertToLong() || lc.asLong() < 0 || lc.asLong() > TraceFormat.MAX_INT) {
                    // every integer of a trace is within 32 bits (Numbers), a clock's too
                    throw new TraceFormatException(source, n, "field 'lc' must be an integer from 0 to " + TraceFormat.MAX_INT + ", found "
                            + Echo.cut(lc.toString()));
                }
                lamportClock = lc.asLong();
                if (!events.isEmpty() && lamportClock <= events.get(events.size() - 1).lc()) {
                    throw new TraceFormatException(source, n, "field 'lc' must grow along a process's log");
                }
            }
            // the event as written, less its clocks and its wall-clock time: every other byte is the reader's to judge
            String json = WrittenTrace.without(WrittenTrace.without(WrittenTrace.without(l.texts().get(k), "vc"), "lc"), "t");
            events.add(new Ev(json.endsWith("\r") ? json.substring(0, json.length() - 1) : json, v, lamportClock, source, n, proc, events.size()));
        }
        return new Log(l.source(), l.process(), l.header(), events);
    }

    /** Reads, merges and validates the logs of one run. */
    public static Result validate(List<byte[]> files, List<String> sources, Validator.Options opt) throws IOException, TraceFormatException {
        return validate(files, sources, opt, null);
    }

    /**
     * As {@link #validate(List, List, Validator.Options)}, the first order taking a ready event at
     * random ({@code shuffle}, for tests: any order the clocks allow must do) instead of the least clock sum.
     */
    public static Result validate(List<byte[]> files, List<String> sources, Validator.Options opt, java.util.Random shuffle)
            throws IOException, TraceFormatException {
        return validate(files, sources, opt, shuffle, WallClockLogs.DEFAULT_STATES);
    }

    /**
     * As {@link #validate(List, List, Validator.Options, java.util.Random)}; logs with wall-clock time
     * only keep at most {@code states} search states after each event ({@link WallClockLogs}).
     */
    public static Result validate(List<byte[]> files, List<String> sources, Validator.Options opt, java.util.Random shuffle, int states)
            throws IOException, TraceFormatException {
        List<Raw> raws = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < files.size(); i++) {
            Raw l = read(files.get(i), sources.get(i));
            if (seen.put(l.process(), l.source()) != null) {
                throw new TraceFormatException(l.source(), 1, "process '" + Echo.cut(l.process()) + "' has two logs: " + seen.get(l.process())
                        + " and " + l.source());
            }
            if (!raws.isEmpty() && !raws.get(0).sameHeader().equals(l.sameHeader())) {
                throw new TraceFormatException(l.source(), 1, "its header's config differs from " + raws.get(0).source() + "'s: the logs of one run share one header");
            }
            raws.add(l);
        }
        if (raws.get(0).sameHeader().has("skew_ms")) {
            // wall-clock time only: the orders the windows allow are searched
            return WallClockLogs.validate(raws, opt, states);
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < raws.size(); i++) {
            index.put(raws.get(i).process(), i);
        }
        // the run's kind of clock is the one most of its events carry: an event with the other is named
        long lamportEvents = 0;
        long all = 0;
        for (Raw l : raws) {
            for (ObjectNode e : l.events()) {
                all++;
                if (e.has("lc") && !e.has("vc")) {
                    lamportEvents++;
                }
            }
        }
        boolean lamport = 2 * lamportEvents > all;
        List<Log> logs = new ArrayList<>();
        for (Raw l : raws) {
            logs.add(clocks(l, index, raws, lamport, logs.size()));
        }
        if (lamport) {
            List<Ev> order = new ArrayList<>();
            logs.forEach(l -> order.addAll(l.events()));
            order.sort(java.util.Comparator.comparingLong(Ev::lc).thenComparing(e -> logs.get(e.proc()).process()));
            return run(logs, order, opt, 1, true);
        }
        List<Ev> first = linearise(logs, index, List.of(), shuffle, null);
        Result r = run(logs, first, opt, 1, false);
        if (r.result().verdict() != Verdict.REJECTED) {
            return r;
        }
        List<Rejection> rejections = new ArrayList<>();
        rejections.add(rejection(r, first, null, shuffle == null ? "the order the clocks give first" : "the first order", null));
        // bounded search, 1: another ready event at one of the last choices before the rejected one
        int tried = 1;
        int bad = (int) r.result().divergence().line() - 2;   // 0-based position in the merged order of the rejected event
        for (int k = Math.min(bad, first.size() - 1); k >= Math.max(0, bad - SEARCH_DEPTH) && tried < NEAR_ORDERS; k--) {
            List<Ev> prefix = first.subList(0, k);
            for (Ev alt : ready(logs, index, prefix)) {
                if (alt == first.get(k) || tried >= NEAR_ORDERS) {
                    continue;
                }
                List<Ev> forced = new ArrayList<>(prefix);
                forced.add(alt);
                List<Ev> order = linearise(logs, index, forced, null, null);
                tried++;
                Result other = run(logs, order, opt, tried, false);
                if (other.result().verdict() != Verdict.REJECTED) {
                    return other;
                }
                rejections.add(rejection(other, order, first, "with " + alt.where() + " taken before " + first.get(k).where(), alt));
            }
        }
        // bounded search, 2: an event placed before the rejected one that the clocks do not order
        // before it, put off until nothing else is ready; those that share a request or a worker
        // with the rejected event first, the latest first
        Ev rejected = bad < first.size() ? first.get(bad) : null;
        if (rejected != null) {
            List<Ev> concurrent = new ArrayList<>();
            for (int k = bad - 1; k >= 0; k--) {
                if (!before(first.get(k), rejected, index)) {
                    concurrent.add(first.get(k));
                }
            }
            List<String> ids = ids(rejected);
            Map<Ev, Boolean> apart = new HashMap<>();
            concurrent.forEach(e -> apart.put(e, java.util.Collections.disjoint(ids(e), ids)));
            concurrent.sort(java.util.Comparator.comparing(apart::get));
            for (Ev c : concurrent) {
                if (tried >= SEARCH_ORDERS) {
                    break;
                }
                int k = first.indexOf(c);
                List<Ev> order = linearise(logs, index, first.subList(0, k), null, c);
                if (order.equals(first)) {
                    continue;
                }
                tried++;
                Result other = run(logs, order, opt, tried, false);
                if (other.result().verdict() != Verdict.REJECTED) {
                    return other;
                }
                rejections.add(rejection(other, order, first, "with " + c.where() + " put off until nothing else was ready", c));
            }
        }
        List<String> blame = blame(rejections);
        List<String> notes = new ArrayList<>(r.result().notes());
        if (!blame.isEmpty()) {
            notes.add(ORDERS + " " + String.join(System.lineSeparator() + "    ", blame));
        }
        ValidationResult v = r.result();
        return new Result(v.with(v.verdict(), notes), r.origins(), tried, false, r.merged(),
                List.copyOf(rejections));
    }

    /** How far each search goes: the last choices before a rejection, and the orders those may take of {@link #SEARCH_ORDERS}. */
    static final int NEAR_ORDERS = 40;

    /** Whether the clocks order {@code a} before {@code b}. */
    private static boolean before(Ev a, Ev b, Map<String, Integer> index) {
        if (a.proc() == b.proc()) {
            return a.index() < b.index();
        }
        for (var c : b.vc().entrySet()) {
            if (index.get(c.getKey()) == a.proc()) {
                return c.getValue() > a.index();
            }
        }
        return false;
    }

    /** The requests and workers an event names. */
    private static List<String> ids(Ev e) {
        try {
            JsonNode o = JSON.readTree(e.json());
            List<String> k = keys(o);
            for (String f : new String[] {"interrupted", "orphaned", "promoted", "dropped"}) {
                for (JsonNode x : o.path(f)) {
                    k.add("r" + x.asInt());
                }
            }
            return k;
        } catch (JsonProcessingException ex) {
            return List.of();
        }
    }

    /**
     * A rejected order, for the report: where it failed and, for an order other than the first, the
     * moved event with the events it changed places with that share a request or a worker with it.
     */
    private static Rejection rejection(Result r, List<Ev> order, List<Ev> first, String how, Ev moved) {
        ValidationResult v = r.result();
        long line = v.divergence().line();
        String event = line >= 2 && line - 2 < order.size() ? order.get((int) line - 2).brief() : "(the end of the run)";
        String property = v.divergence().finding() == null ? "rejected" : v.divergence().finding().label();
        String movedText = null;
        if (moved != null) {
            Map<Ev, Integer> pos0 = new HashMap<>();
            for (int i = 0; i < first.size(); i++) {
                pos0.put(first.get(i), i);
            }
            Map<Ev, Integer> pos1 = new HashMap<>();
            for (int i = 0; i < order.size(); i++) {
                pos1.put(order.get(i), i);
            }
            List<String> ids = ids(moved);
            List<String> past = new ArrayList<>();
            for (Ev e : order) {
                boolean swapped = Integer.compare(pos0.get(e), pos0.get(moved)) != Integer.compare(pos1.get(e), pos1.get(moved));
                if (e != moved && swapped && !java.util.Collections.disjoint(ids(e), ids) && past.size() < 3) {
                    past.add((pos1.get(e) < pos1.get(moved) ? "now after " : "now before ") + e.where());
                }
            }
            movedText = moved.where() + (past.isEmpty() ? "" : ": " + String.join(", ", past));
        }
        return new Rejection(r.origin(line), event, property, how, movedText);
    }

    /** The events ready after {@code prefix}: the next of each log whose clock's predecessors are all taken. */
    private static List<Ev> ready(List<Log> logs, Map<String, Integer> index, List<Ev> prefix) {
        long[] taken = new long[logs.size()];
        for (Ev e : prefix) {
            taken[e.proc()]++;
        }
        List<Ev> out = new ArrayList<>();
        for (int p = 0; p < logs.size(); p++) {
            List<Ev> es = logs.get(p).events();
            if (taken[p] < es.size() && satisfied(es.get((int) taken[p]), index, taken, p)) {
                out.add(es.get((int) taken[p]));
            }
        }
        return out;
    }

    private static boolean satisfied(Ev e, Map<String, Integer> index, long[] taken, int self) {
        for (var c : e.vc().entrySet()) {
            int p = index.get(c.getKey());
            if (p != self && taken[p] < c.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * A linear extension of the clocks' order: {@code forced} first, then at each step the ready
     * event with the least clock sum (the earliest in causal depth), the gateway's first on a tie.
     */
    private static List<Ev> linearise(List<Log> logs, Map<String, Integer> index, List<Ev> forced, java.util.Random shuffle, Ev hold)
            throws TraceFormatException {
        List<Ev> out = new ArrayList<>(forced);
        int total = logs.stream().mapToInt(l -> l.events().size()).sum();
        long[] taken = new long[logs.size()];
        for (Ev e : forced) {
            taken[e.proc()]++;
        }
        while (out.size() < total) {
            Ev best = null;
            long bestSum = Long.MAX_VALUE;
            for (int p = 0; p < logs.size(); p++) {
                List<Ev> es = logs.get(p).events();
                if (taken[p] >= es.size()) {
                    continue;
                }
                Ev e = es.get((int) taken[p]);
                if (!satisfied(e, index, taken, p)) {
                    continue;
                }
                long sum = shuffle != null ? shuffle.nextInt(1 << 20) : e.vc().values().stream().mapToLong(Long::longValue).sum();
                if (e == hold) {
                    sum = Long.MAX_VALUE - 1;   // put off: taken only when nothing else is ready
                }
                if (sum < bestSum || sum == bestSum && GATEWAY.equals(logs.get(p).process())) {
                    best = e;
                    bestSum = sum;
                }
            }
            if (best == null) {
                // every log's next event waits for another's: the clocks contradict each other
                Ev stuck = null;
                for (int p = 0; p < logs.size() && stuck == null; p++) {
                    if (taken[p] < logs.get(p).events().size()) {
                        stuck = logs.get(p).events().get((int) taken[p]);
                    }
                }
                throw new TraceFormatException(stuck.source(), stuck.line(), "its vector clock waits for events that wait"
                        + " for it (a cycle in the clocks' order)");
            }
            out.add(best);
            taken[best.proc()]++;
        }
        return out;
    }

    static Result run(List<Log> logs, List<Ev> order, Validator.Options opt, int tried, boolean lamport) throws IOException {
        StringBuilder b = new StringBuilder(logs.get(0).header()).append('\n');
        List<String> origins = new ArrayList<>();
        origins.add(logs.get(0).source() + ":1");
        for (Ev e : order) {
            b.append(e.json()).append('\n');
            origins.add(e.source() + ":" + e.line());
        }
        byte[] merged = b.toString().getBytes(StandardCharsets.UTF_8);
        // the merged trace as written: a header that declares what the system observes, or begin and
        // end forms, is judged as such, and every line a verdict names is a line of the merged trace
        ValidationResult v = Validator.validate(merged, "merged", opt);
        Divergence d = v.divergence();
        if (d != null) {
            // the rejected line where it was written; and, with vector clocks, a behaviour of the spec in
            // this order only: the clocks allow others, which the search tries
            d = d.withEventNote("logged at " + (d.line() >= 1 && d.line() <= origins.size() ? origins.get((int) d.line() - 1) : "the end of the run"));
            if (d.matched() != null && !lamport) {
                d = d.withMatched("in the merged order shown (one of those the clocks allow), " + d.matched());
            }
            v = new ValidationResult(v.source(), v.verdict(), v.config(), v.version(), v.events(), v.byType(), v.done(), v.open(),
                    d, v.error(), v.unfinished(), v.reference(), v.notes());
        }
        if (v.error() != null && v.error().line() >= 1 && v.error().line() <= origins.size()) {
            // a malformed line is named where it was written: its own log and line
            String at = origins.get((int) v.error().line() - 1);
            int colon = at.lastIndexOf(':');
            TraceFormatException e = v.error().at(at.substring(0, colon), Long.parseLong(at.substring(colon + 1)));
            v = new ValidationResult(v.source(), v.verdict(), v.config(), v.version(), v.events(), v.byType(), v.done(), v.open(),
                    v.divergence(), e, v.unfinished(), v.reference(), v.notes());
        }
        return new Result(v, origins, tried, lamport, merged);
    }

    // ---- split: one trace as per-process logs ---------------------------------------------------

    /** The process that logs an event: the gateway decides (Arrive, Place, Route, Fail); workers do the rest. */
    static String processOf(JsonNode e) {
        String type = e.path("type").asText();
        return switch (type) {
            // a zombie's token is refused (or taken) by the gateway, its page by the holder it went to
            case "Arrive", "Place", "Route", "Fail", "ZombieToken", "ZombieAck" -> GATEWAY;
            case "ZombiePage" -> "worker-" + e.path("holder").asInt();
            // a size report (observes.StreamPage=sizes) is what the gateway learns of several copies
            case "StreamPage" -> e.has("sizes") ? GATEWAY : "worker-" + e.path("holder").asInt();
            default -> "worker-" + e.path("worker").asInt();
        };
    }

    /**
     * Whether an event orders everything around it: a decision, or an event whose effect a decision
     * or a guard reads. A Complete frees the room that makes a worker a holder candidate, which
     * re-protection (S14) reads before a request is served further; under budget=stored a
     * StreamPage changes that room too.
     */
    private static boolean global(JsonNode e, boolean budgetStored) {
        return switch (e.path("type").asText()) {
            case "Arrive", "Place", "Route", "Fail", "Assist", "DraftReady", "FullReady", "Complete" -> true;
            case "StreamPage" -> budgetStored || e.has("sizes");
            default -> false;
        };
    }

    /**
     * Splits a whole trace into per-process logs with vector clocks from the events' dependencies:
     * an event happens after its process's previous event, after every earlier event of its request
     * or of a worker it names, and after every decision (and every decision after everything
     * before it), so that two events are concurrent only when neither can change what the other
     * sees. Returns each process's log, by process name.
     */
    public static Map<String, String> split(byte[] trace) throws IOException {
        String[] lines = new String(trace, StandardCharsets.UTF_8).split("\n");
        ObjectNode header = (ObjectNode) JSON.readTree(lines[0]);
        boolean stored = "stored".equals(header.path("config").path("readings").path("budget").asText());
        Map<String, StringBuilder> out = new LinkedHashMap<>();
        Map<String, Map<String, Long>> lastOf = new HashMap<>();   // "r<id>" or "w<id>" -> vc of its last event
        Map<String, Long> all = new TreeMap<>();
        Map<String, Long> barrier = new TreeMap<>();
        Map<String, Long> counts = new HashMap<>();
        Map<String, Map<String, Long>> lastOwn = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            ObjectNode e = (ObjectNode) JSON.readTree(lines[i]);
            String p = processOf(e);
            Map<String, Long> vc = new TreeMap<>(lastOwn.getOrDefault(p, Map.of()));
            List<String> keys = keys(e);
            if (global(e, stored)) {
                join(vc, all);
            } else {
                join(vc, barrier);
                for (String k : keys) {
                    join(vc, lastOf.getOrDefault(k, Map.of()));
                }
            }
            long n = counts.merge(p, 1L, Long::sum);
            vc.put(p, n);
            lastOwn.put(p, vc);
            for (String k : keys) {
                lastOf.put(k, vc);
            }
            join(all, vc);
            if (global(e, stored)) {
                barrier = new TreeMap<>(vc);
            }
            e.set("vc", JSON.valueToTree(vc));
            append(out, header, p, e);
        }
        return texts(out);
    }

    /** Appends event {@code e} to process {@code p}'s log, begun with {@code header} and the process's name when it is the first. */
    private static void append(Map<String, StringBuilder> out, ObjectNode header, String p, ObjectNode e) {
        out.computeIfAbsent(p, q -> {
            ObjectNode h = header.deepCopy();
            h.put("process", q);
            return new StringBuilder(h.toString()).append('\n');
        }).append(e).append('\n');
    }

    private static Map<String, String> texts(Map<String, StringBuilder> out) {
        Map<String, String> logs = new LinkedHashMap<>();
        out.forEach((k, v) -> logs.put(k, v.toString()));
        return logs;
    }

    /**
     * Splits a whole trace into per-process logs with wall-clock time only, as processes whose clocks
     * differ would write them: event i of the trace happens at {@code i * msPerEvent} ms (the order of
     * the trace is the run's), each process's clock is off by its own offset, drawn in [0, skewMs], and
     * each event's window is drawn around its moment, up to {@code msPerEvent} each way (a point time
     * for about a third of them), widened where needed so that starts and ends never go back along a
     * log. Every header declares {@code skew_ms = skewMs}; the trace's order is one of those the windows allow.
     */
    public static Map<String, String> splitWallClock(byte[] trace, double skewMs, double msPerEvent, java.util.Random random)
            throws IOException {
        String[] lines = new String(trace, StandardCharsets.UTF_8).split("\n");
        ObjectNode header = (ObjectNode) JSON.readTree(lines[0]);
        header.put("skew_ms", skewMs);
        Map<String, Double> offset = new HashMap<>();
        Map<String, double[]> last = new HashMap<>();
        Map<String, StringBuilder> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            ObjectNode e = (ObjectNode) JSON.readTree(lines[i]);
            String p = processOf(e);
            double off = offset.computeIfAbsent(p, q -> random.nextDouble() * skewMs);
            double at = i * msPerEvent + off;
            double t0 = at;
            double t1 = at;
            if (random.nextInt(3) > 0) {
                t0 = at - random.nextDouble() * msPerEvent;
                t1 = at + random.nextDouble() * msPerEvent;
            }
            double[] prev = last.get(p);
            if (prev != null) {
                t0 = Math.max(t0, prev[0]);
                t1 = Math.max(t1, prev[1]);
            }
            last.put(p, new double[] {t0, t1});
            e.remove("vc");
            e.remove("lc");
            e.remove("t");
            if (t0 == t1) {
                e.put("t", round(t0));
            } else {
                e.putArray("t").add(round(t0)).add(round(t1));
            }
            append(out, header, p, e);
        }
        return texts(out);
    }

    /** A time to the microsecond, as a log would write it (rounded outwards never matters: windows only widen). */
    private static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }

    private static List<String> keys(JsonNode e) {
        List<String> k = new ArrayList<>();
        if (e.has("req")) {
            k.add("r" + e.get("req").asInt());
        }
        // a batch Decode line (observes.Decode=batch) is a step of each request it lists
        for (JsonNode en : e.path("batch")) {
            k.add("r" + en.path("req").asInt());
        }
        for (JsonNode en : e.path("sizes")) {
            k.add("r" + en.path("req").asInt());
            k.add("w" + en.path("holder").asInt());
        }
        for (String f : new String[] {"worker", "holder", "backup", "target"}) {
            if (e.has(f) && e.get(f).isIntegralNumber()) {
                k.add("w" + e.get(f).asInt());
            }
        }
        return k;
    }

    private static void join(Map<String, Long> into, Map<String, Long> other) {
        other.forEach((k, v) -> into.merge(k, v, Math::max));
    }
}
