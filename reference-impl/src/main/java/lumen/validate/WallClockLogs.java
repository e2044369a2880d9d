package lumen.validate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.RequestRec;
import lumen.trace.Echo;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;
import lumen.trace.WrittenTrace;

/**
 * Per-process logs with wall-clock time only (docs/trace-format.md, Per-process logs with wall-clock
 * time): each event carries {@code t}, its process's own clock in ms, a number or a window
 * {@code [start, end]}, and the header declares {@code skew_ms}, a bound on the difference between
 * any two processes' clocks. Event b then happened after event a when b's log puts it later, when
 * {@code b.start > a.end + skew_ms} (the windows, widened by the skew, do not overlap), or when the
 * protocol says so: a request's events after its Arrive, and a worker's steps on a request (Prefill,
 * Decode, StreamPage, Complete, ZombiePage) after the gateway's first event that names that worker
 * for it (an Arrive, Place or Route). A worker's steps after the Restart that began its incarnation
 * follow from its own log's order. Any total order these allow may be the run's.
 *
 * <p>The search: breadth first over the orders, one layer per event taken, each state a mirror
 * stepped along one order, deduplicated by (events taken from each log, mirror fingerprint; of two
 * that differ only in L3's stream counters the more lenient is kept, {@link Mirror#streamsAsLenientAs}), at most
 * {@link #DEFAULT_STATES} states a layer unless told otherwise. A rejected step ends its order. Orders that differ only in
 * events that commute are one behaviour, and only one of them is followed (a reduction by persistent
 * sets of one event): where an enabled event is independent of every event of another log that may
 * still come before it ({@link #independent}), it alone is taken. The verdict:
 * <ul>
 *   <li>ACCEPTED (or INCOMPLETE) when some order is, judged again as a whole trace in that order;</li>
 *   <li>REJECTED when every order is rejected and the bound cut none: the order that went furthest
 *       is reported, and the events at which the orders were rejected are listed;</li>
 *   <li>UNDECIDED when every order kept was rejected but the bound cut others;</li>
 *   <li>a located error (MALFORMED) when the clocks contradict the declared skew: an event the
 *       protocol puts after another begins, by the clocks, more than {@code skew_ms} before that
 *       other ends. That is not a property of the spec broken, and is never reported as one.</li>
 * </ul>
 */
public final class WallClockLogs {
    /** By default at most this many states are kept after each event; past it the search is cut (UNDECIDED, never REJECTED). */
    public static final int DEFAULT_STATES = 256;

    private WallClockLogs() {}

    /**
     * For the tests: every event dependent on every other, and no state kept for being as lenient as
     * another, so the reduced search's verdicts can be held to the full search's.
     */
    private static final ThreadLocal<Boolean> NO_REDUCTION = ThreadLocal.withInitial(() -> false);

    static <T> T unreduced(java.util.concurrent.Callable<T> c) throws Exception {
        NO_REDUCTION.set(true);
        try {
            return breadthFirst(c);
        } finally {
            NO_REDUCTION.set(false);
        }
    }

    /** For the tests: the breadth-first search alone, without the clock-first search before it. */
    private static final ThreadLocal<Boolean> NO_CLOCK_FIRST = ThreadLocal.withInitial(() -> false);

    static <T> T breadthFirst(java.util.concurrent.Callable<T> c) throws Exception {
        boolean was = NO_CLOCK_FIRST.get();
        NO_CLOCK_FIRST.set(true);
        try {
            return c.call();
        } finally {
            NO_CLOCK_FIRST.set(was);
        }
    }

    /** What the search did, for the verdict and {@code lumen bench}. */
    public record Search(double skewMs, long events, long states, int peak, long branchPoints, long orders, boolean cut, long cutAfter,
                         boolean reduced, int bound, boolean clockFirst) {
        /** The verdict's note. */
        String note() {
            return String.format(java.util.Locale.ROOT, "wall-clock logs (skew_ms=%s): %d orders of the %d events followed to their end or"
                    + " their first rejection, %d search states (%.2f per event, at most %d after one event), %d branch points%s%s",
                    num(skewMs), orders, events, states, events == 0 ? 0.0 : (double) states / events, peak, branchPoints,
                    reduced ? "; orders that differ only in commuting events were followed once" : "; every order followed (no"
                            + " reduction: under citedLoads=stale every event moves the load window)",
                    cut ? "; the bound of " + bound + " states after an event cut the search after event " + cutAfter : "")
                    + (clockFirst ? "; the accepted order was found by following the clocks (the earliest window first)" + (orders > 1
                            ? ", returning " + (orders - 1) + (orders == 2 ? " time" : " times") + " to a branch point where an order failed"
                            : "") : "");
        }
    }

    public static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /** One line of a log: its steps (one, or a composed line's), its window and where it came from. */
    static final class Item {
        final ProcessLogs.Ev ev;
        final Event[] steps;
        final double[][] loads;
        final long[][] reserved;
        final double t0;
        final double t1;
        /** Per log: how many of its items must be taken before this one. */
        int[] need;
        /** Per log: how many of its items may be taken before this one (the others start too late). */
        int[] may;
        /** Whether it is dependent on every event, whatever the state (a decision, a failure, a zombie's step ...). */
        boolean global;
        /** The causal edges' sources, for the report: item and why. */
        List<Item> causes = List.of();
        List<String> causeWhy = List.of();

        Item(ProcessLogs.Ev ev, Event[] steps, double[][] loads, long[][] reserved, double t0, double t1) {
            this.ev = ev;
            this.steps = steps;
            this.loads = loads;
            this.reserved = reserved;
            this.t0 = t0;
            this.t1 = t1;
        }

        /** Its log. */
        int proc() {
            return ev.proc();
        }

        /** Its place in its log. */
        int index() {
            return ev.index();
        }

        /** Its time as written: a number, or [start, end]. */
        String time() {
            return t0 == t1 ? num(t0) : "[" + num(t0) + ", " + num(t1) + "]";
        }

        String where() {
            return ev.where() + " (t=" + time() + ")";
        }
    }

    /** One order followed so far: its events (newest first) and its mirror. */
    private static final class State {
        final int[] pos;
        Mirror m;
        final Node path;
        final int depth;
        /** Its mirror's fingerprint without L3's stream counters, once computed. */
        long fp;
        boolean hasFp;

        long fp(java.util.IdentityHashMap<Object, Long> memo) {
            if (!hasFp) {
                fp = m.fingerprint(memo, true, false);
                hasFp = true;
            }
            return fp;
        }

        State(int[] pos, Mirror m, Node path, int depth) {
            this.pos = pos;
            this.m = m;
            this.path = path;
            this.depth = depth;
        }
    }

    private record Node(Item item, Node parent) {}

    /** An order ended by a rejection: its events, through the rejected one, and what was found. */
    private record Dead(Node path, int depth, Item at, Finding finding) {}

    /** Validates wall-clock logs (read by {@link ProcessLogs#read}, their headers with {@code skew_ms}). */
    static ProcessLogs.Result validate(List<ProcessLogs.Raw> raws, Validator.Options opt, int bound) throws IOException, TraceFormatException {
        if (bound < 1) {
            throw new IllegalArgumentException("the bound on states after an event is at least 1, not " + bound);
        }
        ProcessLogs.Raw first = raws.get(0);
        JsonNode skewNode = first.sameHeader().get("skew_ms");
        if (!skewNode.isNumber() || !Double.isFinite(skewNode.asDouble()) || skewNode.asDouble() < 0) {
            throw new TraceFormatException(first.source(), 1, "field 'skew_ms' must be a non-negative finite number (ms, the bound on the"
                    + " difference between any two processes' clocks), found " + Echo.cut(skewNode.toString()));
        }
        double skew = skewNode.asDouble();
        String header = WrittenTrace.without(first.header(), "skew_ms");
        List<List<Item>> logs = new ArrayList<>();
        TraceReader probe = new TraceReader(new java.io.ByteArrayInputStream((header + "\n").getBytes(StandardCharsets.UTF_8)), first.source());
        Config config = probe.config();
        lumen.trace.Observation obs = probe.observation();
        if (obs.searches()) {
            throw new TraceFormatException(first.source(), 1, "wall-clock logs are judged with every step logged (a partial trace's hidden"
                    + " steps are not searched for in them): observes may say Decode=batch or StreamPage=sizes only, found "
                    + obs.describe());
        }
        if (first.sameHeader().path("steps").asText("").equals("begin-end")) {
            throw new TraceFormatException(first.source(), 1, "wall-clock logs give a step's start and end as its window, t: [start, end],"
                    + " not as begin and end forms: drop \"steps\": \"begin-end\"");
        }
        for (int p = 0; p < raws.size(); p++) {
            logs.add(items(raws.get(p), p, header, opt));
        }
        int n = 0;
        for (List<Item> l : logs) {
            n += l.size();
        }
        edges(logs, raws, skew);
        boolean reduce = !config.readings().staleLoads() && !NO_REDUCTION.get();
        boolean budgetStored = config.readings().budget() == lumen.core.Readings.Budget.STORED;
        for (List<Item> l : logs) {
            for (Item it : l) {
                it.global = !reduce || staticallyGlobal(it, budgetStored);
            }
        }
        check(logs, skew);
        return search(logs, raws, config, obs, opt, skew, n, reduce, bound);
    }

    /** A log's items: each line read by the reading rules of a trace line (its {@code t} taken off and checked). */
    private static List<Item> items(ProcessLogs.Raw l, int proc, String header, Validator.Options opt) throws IOException, TraceFormatException {
        List<Item> out = new ArrayList<>();
        double[] t0 = new double[l.events().size()];
        double[] t1 = new double[l.events().size()];
        StringBuilder text = new StringBuilder(header).append('\n');
        List<String> jsons = new ArrayList<>();
        for (int k = 0; k < l.events().size(); k++) {
            ObjectNode o = l.events().get(k);
            long line = l.lines().get(k);
            if (o.has("vc") || o.has("lc")) {
                throw new TraceFormatException(l.source(), line, "a log with wall-clock time only (its header declares skew_ms) carries no"
                        + " logical clock: drop '" + (o.has("vc") ? "vc" : "lc") + "', or drop skew_ms from the headers");
            }
            JsonNode t = o.get("t");
            if (t == null) {
                throw new TraceFormatException(l.source(), line, "missing field 't': every event of a log with wall-clock time only carries"
                        + " its process's clock, in ms: a number, or [start, end] for a step with a start and an end");
            }
            if (t.isArray() && t.size() == 2 && t.get(0).isNumber() && t.get(1).isNumber()) {
                t0[k] = t.get(0).asDouble();
                t1[k] = t.get(1).asDouble();
            } else if (t.isNumber()) {
                t0[k] = t.asDouble();
                t1[k] = t0[k];
            } else {
                throw new TraceFormatException(l.source(), line, "field 't' must be a number or [start, end] (ms, this process's clock), found "
                        + Echo.cut(t.toString()));
            }
            if (!Double.isFinite(t0[k]) || !Double.isFinite(t1[k]) || t0[k] > t1[k]) {
                throw new TraceFormatException(l.source(), line, "field 't' must be finite, with start <= end, found " + Echo.cut(t.toString()));
            }
            if (k > 0 && (t0[k] < t0[k - 1] || t1[k] < t1[k - 1])) {
                throw new TraceFormatException(l.source(), line, "time goes backwards along this log: t=" + Echo.cut(t.toString()) + " after"
                        + " t=" + Echo.cut(l.events().get(k - 1).get("t").toString()) + " at line " + l.lines().get(k - 1)
                        + " (a process's starts and ends never go back; one clock per process)");
            }
            String json = WrittenTrace.without(l.texts().get(k), "t");
            json = json.endsWith("\r") ? json.substring(0, json.length() - 1) : json;
            jsons.add(json);
            text.append(json).append('\n');
        }
        // every line by the reading rules of a trace line: the reader's line k+2 is the log's event k
        List<List<Event>> steps = new ArrayList<>();
        List<List<double[]>> loads = new ArrayList<>();
        List<List<long[]>> reserved = new ArrayList<>();
        for (int k = 0; k < jsons.size(); k++) {
            steps.add(new ArrayList<>(1));
            loads.add(new ArrayList<>(1));
            reserved.add(new ArrayList<>(1));
        }
        try (TraceReader r = new TraceReader(new java.io.ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)), l.source())) {
            Event e;
            while ((e = r.next()) != null) {
                int k = (int) r.line() - 2;
                steps.get(k).add(Validator.withReference(e, opt, l.source(), l.lines().get(k)));
                loads.get(k).add(r.citedLoads());
                reserved.get(k).add(r.citedReserved());
            }
        } catch (TraceFormatException ex) {
            long k = ex.line() - 2;
            throw ex.at(l.source(), k >= 0 && k < l.lines().size() ? l.lines().get((int) k) : 1);
        }
        for (int k = 0; k < jsons.size(); k++) {
            ProcessLogs.Ev ev = new ProcessLogs.Ev(jsons.get(k), Map.of(), -1, l.source(), l.lines().get(k), proc, k);
            out.add(new Item(ev, steps.get(k).toArray(new Event[0]), loads.get(k).toArray(new double[0][]),
                    reserved.get(k).toArray(new long[0][]), t0[k], t1[k]));
        }
        return out;
    }

    /**
     * Each item's predecessors: by the clocks (an item of another log that ends more than the skew
     * before it starts) and by the protocol (its requests' Arrive; for a worker's step on a request,
     * the gateway's first event that names the worker for it). An edge the clocks contradict (its
     * source starts more than the skew after its target ends) is a located error.
     */
    private static void edges(List<List<Item>> logs, List<ProcessLogs.Raw> raws, double skew) throws TraceFormatException {
        int procs = logs.size();
        Map<Integer, Item> arrive = new HashMap<>();
        Map<Long, Item> introduced = new HashMap<>();
        for (List<Item> l : logs) {
            for (Item it : l) {
                for (Event e : it.steps) {
                    if (e instanceof Event.Arrive a) {
                        arrive.putIfAbsent(a.req(), it);
                        introduce(introduced, a.req(), a.worker(), it);
                    } else if (e instanceof Event.Place pl) {
                        introduce(introduced, pl.req(), pl.holder(), it);
                        introduce(introduced, pl.req(), pl.backup(), it);
                    } else if (e instanceof Event.Route rt) {
                        introduce(introduced, rt.req(), rt.worker(), it);
                    }
                }
            }
        }
        for (int p = 0; p < procs; p++) {
            String name = raws.get(p).process();
            // "worker-W", or "worker-W-PID" (lumen serve: a restarted worker is another process)
            java.util.regex.Matcher wm = WORKER.matcher(name);
            int self = wm.matches() ? Integer.parseInt(wm.group(1)) : -1;
            for (Item it : logs.get(p)) {
                it.need = new int[procs];
                it.may = new int[procs];
                for (int q = 0; q < procs; q++) {
                    if (q == p) {
                        continue;
                    }
                    it.need[q] = prefix(logs.get(q), y -> y.t1 < it.t0 - skew);
                    it.may[q] = prefix(logs.get(q), y -> y.t0 <= it.t1 + skew);
                }
                List<Item> causes = new ArrayList<>(2);
                List<String> why = new ArrayList<>(2);
                for (Event e : it.steps) {
                    for (int r : Validator.namedRequests(e)) {
                        cause(causes, why, arrive.get(r), it, "the Arrive of request " + r);
                    }
                    if (self >= 0 && ownStep(e, self)) {
                        cause(causes, why, introduced.get(key(e.req(), self)), it, "the gateway's first event that names worker " + self
                                + " for request " + e.req());
                    }
                }
                for (int c = 0; c < causes.size(); c++) {
                    Item a = causes.get(c);
                    if (a.t0 > it.t1 + skew) {
                        throw skew(it, a, why.get(c), skew);
                    }
                    it.need[a.proc()] = Math.max(it.need[a.proc()], a.index() + 1);
                }
                it.causes = causes;
                it.causeWhy = why;
            }
        }
    }

    private static final java.util.regex.Pattern WORKER = java.util.regex.Pattern.compile("worker-([0-9]{1,9})(?:-.*)?");

    private static long key(int req, int worker) {
        return (long) req << 32 | (worker & 0xffffffffL);
    }

    private static void introduce(Map<Long, Item> m, int req, int worker, Item it) {
        if (worker >= 0) {
            m.putIfAbsent(key(req, worker), it);
        }
    }

    /** A worker's own step on a request, which it can take only once the gateway has named it for the request. */
    private static boolean ownStep(Event e, int self) {
        return switch (e.action()) {
            case PREFILL, DECODE, COMPLETE -> e.worker() == self;
            case STREAM_PAGE -> ((Event.StreamPage) e).holder() == self;
            case ZOMBIE_PAGE -> ((Event.ZombiePage) e).holder() == self;
            default -> false;
        };
    }

    private static void cause(List<Item> causes, List<String> why, Item a, Item it, String what) {
        if (a != null && a.proc() != it.proc() && !causes.contains(a)) {
            causes.add(a);
            why.add(what);
        }
    }

    private static TraceFormatException skew(Item b, Item a, String why, double skew) {
        return new TraceFormatException(b.ev.source(), b.ev.line(), "the clocks contradict the declared skew_ms=" + num(skew) + ": this event "
                + b.ev.brief() + " (t=" + b.time() + ") comes after " + why + ", " + a.where() + ", yet ends " + num(a.t0 - b.t1)
                + " ms before that begins by the two processes' clocks; they differ by more than " + num(skew) + " ms. That is not a"
                + " property of the spec broken: declare a skew_ms that holds (at least " + num(a.t0 - b.t1) + "), or fix the clocks");
    }

    /**
     * How many of a log's first items satisfy {@code p}, which holds of a prefix of the log (starts
     * and ends never go back along it): those that end before a time, or start at or before one.
     */
    private static int prefix(List<Item> l, java.util.function.Predicate<Item> p) {
        int lo = 0;
        int hi = l.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (p.test(l.get(mid))) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Whether an item is dependent on every other, whatever the state: every step but a Prefill, a
     * Decode or a StreamPage (decisions read every worker's load; a failure, a restart, a completion
     * and a zombie's step change what others read), and a StreamPage that changes the room others
     * read (budget=stored) or reports several copies.
     */
    private static boolean staticallyGlobal(Item it, boolean budgetStored) {
        for (Event e : it.steps) {
            switch (e.action()) {
                case PREFILL, DECODE -> { }
                case STREAM_PAGE -> {
                    if (budgetStored || it.steps.length > 1) {
                        return true;
                    }
                }
                default -> {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * What an item reads and writes in state {@code s}, as keys (request r: 2r, worker w: 2w+1), or
     * null when it reads every worker's load there: a step of a request that has no holder (or, under
     * rebackup, no backup) reads the least loaded eligible worker (S14). A StreamPage writes its
     * request's server's stream count too, which that server's decodes read (L3); what it writes on
     * its holder (stored positions, Eq. 4) only decisions read, and its holder logs it.
     */
    private static long[] keys(Item it, ClusterState s) {
        long[] k = new long[it.steps.length * 3];
        int n = 0;
        for (Event e : it.steps) {
            RequestRec r = s.request(e.req());
            if (r == null) {
                return null;
            }
            k[n++] = 2L * e.req();
            if (e instanceof Event.StreamPage) {
                // its holder's stored positions change, which only decisions read (under budget=stored it is one)
                if (r.server() >= 0) {
                    k[n++] = 2L * r.server() + 1;
                }
            } else {
                if (r.holder() < 0 ? s.policy().loadAwarePlacement() : r.backup() < 0 && s.config().readings().rebackup()) {
                    return null;
                }
                k[n++] = 2L * e.worker() + 1;
            }
        }
        return java.util.Arrays.copyOf(k, n);
    }

    private static boolean disjoint(long[] a, long[] b) {
        for (long x : a) {
            for (long y : b) {
                if (x == y) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Whether item {@code e}, enabled in {@code st}, commutes with every item of another log that may
     * still be taken before it: then every order that takes those first is the same behaviour as one
     * that takes {@code e} first, and only that one is followed.
     */
    private static boolean independent(Item e, int[] pos, List<List<Item>> logs, ClusterState s) {
        if (e.global) {
            return false;
        }
        long[] ke = keys(e, s);
        if (ke == null) {
            return false;
        }
        for (int q = 0; q < logs.size(); q++) {
            if (q == e.proc()) {
                continue;
            }
            List<Item> l = logs.get(q);
            for (int j = pos[q]; j < e.may[q]; j++) {
                Item y = l.get(j);
                if (y.global) {
                    return false;
                }
                long[] ky = keys(y, s);
                if (ky == null || !disjoint(ke, ky)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean enabled(Item e, int[] pos) {
        for (int q = 0; q < pos.length; q++) {
            if (q != e.proc() && pos[q] < e.need[q]) {
                return false;
            }
        }
        return true;
    }

    /** The events taken from each log, as a map key. */
    private record Pos(int[] pos) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Pos k && java.util.Arrays.equals(k.pos, pos);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(pos);
        }
    }

    /**
     * The events to take next from a state: an enabled event that commutes with every event that may
     * still come before it, alone; else every enabled event, the earliest window first (so that the
     * order by the clocks comes first).
     */
    private static List<Item> choices(int[] pos, Mirror m, List<List<Item>> logs) {
        List<Item> out = new ArrayList<>(logs.size());
        ClusterState s = null;
        for (int p = 0; p < logs.size(); p++) {
            List<Item> l = logs.get(p);
            if (pos[p] < l.size() && enabled(l.get(pos[p]), pos)) {
                Item e = l.get(pos[p]);
                if (!e.global) {   // without the reduction every item is global
                    if (s == null) {
                        s = m.state();
                    }
                    if (independent(e, pos, logs, s)) {
                        return List.of(e);
                    }
                }
                out.add(e);
            }
        }
        out.sort(java.util.Comparator.comparingDouble(i -> i.t0 + i.t1));
        return out;
    }

    /** At most this many branch points are kept to return to, by the clock-first search. */
    static final int BACKTRACK = 64;

    /** A branch point of the clock-first search: the state before it and the choices left. */
    private record Frame(int[] pos, Mirror m, List<Item> choices, int next, Node path, int depth) {}

    /**
     * The clock-first search: one order, the earliest window first where events do not commute,
     * returning to the latest of its last {@link #BACKTRACK} branch points when a step is rejected,
     * within a budget of steps. An accepted order is the verdict; else null, and the breadth-first
     * search decides. {@code stats}: states stepped, branch points, orders ended.
     */
    private static List<Item> clockFirst(List<List<Item>> logs, Mirror m0, int total, long budget, long[] stats,
            java.util.function.Predicate<List<Item>> accepted) {
        java.util.ArrayDeque<Frame> frames = new java.util.ArrayDeque<>();
        int[] pos = new int[logs.size()];
        Mirror m = m0.copy();
        Node path = null;
        int depth = 0;
        while (stats[0] < budget) {
            boolean dead;
            if (depth == total) {
                stats[2]++;
                if (accepted.test(order(path))) {
                    return order(path);
                }
                dead = true;
            } else {
                List<Item> cs = choices(pos, m, logs);
                if (cs.size() > 1) {
                    stats[1]++;
                    if (frames.size() == BACKTRACK) {
                        frames.removeFirst();
                    }
                    frames.addLast(new Frame(pos.clone(), m.copy(), cs, 1, path, depth));
                }
                stats[0] += cs.isEmpty() ? 0 : 1;
                dead = cs.isEmpty() || take(cs.get(0), m) != null;
                if (!dead) {
                    pos[cs.get(0).proc()]++;
                    path = new Node(cs.get(0), path);
                    depth++;
                } else {
                    stats[2]++;
                }
            }
            // rejected, or ended and not accepted: the next choice at the latest branch point that has one
            while (dead) {
                if (frames.isEmpty() || stats[0] >= budget) {
                    return null;
                }
                Frame f = frames.removeLast();
                Item e = f.choices().get(f.next());
                Mirror mm = f.m();
                if (f.next() + 1 < f.choices().size()) {
                    frames.addLast(new Frame(f.pos(), f.m(), f.choices(), f.next() + 1, f.path(), f.depth()));
                    mm = f.m().copy();
                }
                pos = f.pos().clone();
                stats[0]++;
                if (take(e, mm) == null) {
                    m = mm;
                    pos[e.proc()]++;
                    path = new Node(e, f.path());
                    depth = f.depth() + 1;
                    dead = false;
                } else {
                    stats[2]++;
                }
            }
        }
        return null;
    }

    /** Steps one item on {@code m}: the divergence of its first step that is not a step of the spec breaking nothing, or null. */
    private static Divergence take(Item e, Mirror m) {
        for (int k = 0; k < e.steps.length; k++) {
            Divergence d = m.step(e.steps[k], e.ev.line(), e.loads[k], e.reserved[k], Double.NaN);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    private static ProcessLogs.Result search(List<List<Item>> logs, List<ProcessLogs.Raw> raws, Config config, lumen.trace.Observation obs,
            Validator.Options opt, double skew, int total, boolean reduce, int bound) throws IOException, TraceFormatException {
        int procs = logs.size();
        Mirror m0 = new Mirror(config, opt.fairnessSteps(), !obs.streamSizes()).quiet();
        if (opt.pages() != null) {
            m0.withPageOracle(opt.pages());
        }
        // first, the order the clocks suggest, with backtracking: an accepted run is usually found there in one pass
        long[] first = new long[3];
        ProcessLogs.Result[] found = new ProcessLogs.Result[1];
        List<Item> quick = NO_CLOCK_FIRST.get() ? null : clockFirst(logs, m0, total, 4L * total + 1000, first, order -> {
            try {
                ProcessLogs.Result r = judge(logs, raws, order, opt, new Search(skew, total, first[0], 1, first[1], first[2], false, -1,
                        reduce, bound, true), null);
                found[0] = r;
                return r.result().verdict() == Verdict.ACCEPTED;
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
        });
        if (quick != null) {
            return found[0];
        }
        List<State> layer = new ArrayList<>();
        layer.add(new State(new int[procs], m0, null, 0));
        long states = 1;
        int peak = 1;
        long branchPoints = 0;
        long orders = 0;
        boolean cut = false;
        long cutAfter = -1;
        Dead deepest = null;
        Map<String, Integer> deadAt = new LinkedHashMap<>();
        Map<String, String> deadWhy = new LinkedHashMap<>();
        Map<String, Integer> deadDepth = new HashMap<>();
        List<State> ended = new ArrayList<>();
        boolean lenient = !NO_REDUCTION.get();
        // fingerprints of the state's records, by identity, shared by the states as Candidates' are (the mirrors here never update in place)
        java.util.IdentityHashMap<Object, Long> memo = new java.util.IdentityHashMap<>();
        for (int depth = 0; depth < total && !layer.isEmpty(); depth++) {
            // states by the events taken from each log; a fingerprint only where two share those
            Map<Pos, Object> next = new LinkedHashMap<>();
            int kept = 0;
            if (memo.size() > 1 << 20) {
                memo.clear();   // the records of states long gone
            }
            for (State st : layer) {
                List<Item> choices = choices(st.pos, st.m, logs);
                if (choices.isEmpty()) {
                    // the search's orders are closed under the windows' and the protocol's order, which check() found acyclic
                    throw new IllegalStateException("the wall-clock search found no event to take after " + st.depth + " events");
                }
                if (choices.size() > 1) {
                    branchPoints++;
                }
                for (int c = 0; c < choices.size(); c++) {
                    Item e = choices.get(c);
                    Mirror m = c == choices.size() - 1 ? st.m : st.m.copy();
                    Divergence d = take(e, m);
                    Node path = new Node(e, st.path);
                    if (d != null) {
                        orders++;
                        Finding f = d.finding();
                        String at = e.ev.source() + ":" + e.ev.line();
                        deadAt.merge(at, 1, Integer::sum);
                        deadDepth.merge(at, depth + 1, Math::max);
                        deadWhy.putIfAbsent(at, e.ev.brief() + ": " + (f == null ? "not a step of the spec" : f.label()));
                        if (deepest == null || depth + 1 > deepest.depth || depth + 1 == deepest.depth && deepest.finding() != null
                                && deepest.finding().property() == null && f != null && f.property() != null) {
                            deepest = new Dead(path, depth + 1, e, f);
                        }
                        continue;
                    }
                    int[] pos = st.pos.clone();
                    pos[e.proc()]++;
                    State ns = new State(pos, m, path, depth + 1);
                    states++;
                    Pos key = new Pos(pos);
                    Object there = next.get(key);
                    List<State> same = null;
                    if (there instanceof State one) {
                        same = new ArrayList<>(2);
                        same.add(one);
                        next.put(key, same);
                    } else if (there != null) {
                        @SuppressWarnings("unchecked")
                        List<State> l2 = (List<State>) there;
                        same = l2;
                    }
                    // the same events taken in another order: one state is kept where one is as lenient as the
                    // other (the same but for L3's stream counters, none nearer a finding), both where neither is
                    boolean dominated = false;
                    for (java.util.Iterator<State> it = same == null ? java.util.Collections.<State>emptyIterator() : same.iterator();
                            it.hasNext() && !dominated;) {
                        State o = it.next();
                        if (o.fp(memo) != ns.fp(memo)) {
                            continue;
                        }
                        if (!lenient) {
                            // the tests' reference search: only a state equal in everything is one
                            dominated = o.m.fingerprint(memo) == ns.m.fingerprint(memo);
                        } else if (o.m.streamsAsLenientAs(ns.m)) {
                            dominated = true;
                        } else if (ns.m.streamsAsLenientAs(o.m)) {
                            it.remove();
                            kept--;
                        }
                    }
                    if (dominated) {
                        continue;
                    }
                    if (kept >= bound) {
                        if (!cut) {
                            cutAfter = depth + 1;
                        }
                        cut = true;
                        continue;
                    }
                    if (same == null) {
                        next.put(key, ns);   // alone: no fingerprint taken
                    } else {
                        same.add(ns);
                    }
                    kept++;
                }
            }
            layer = new ArrayList<>(kept);
            for (Object o : next.values()) {
                if (o instanceof State one) {
                    layer.add(one);
                } else {
                    @SuppressWarnings("unchecked")
                    List<State> l2 = (List<State>) o;
                    layer.addAll(l2);
                }
            }
            peak = Math.max(peak, layer.size());
        }
        for (State st : layer) {
            if (st.depth == total) {
                ended.add(st);
            }
        }
        Search search = new Search(skew, total, states + first[0], peak, branchPoints + first[1], orders + ended.size() + first[2], cut, cutAfter,
                reduce, bound, false);
        // the orders that took every event: the best of them, judged again as a whole trace in that order
        ProcessLogs.Result best = null;
        for (State st : ended) {
            ProcessLogs.Result r = judge(logs, raws, order(st.path), opt, search, null);
            ValidationResult v = r.result();
            if (v.verdict() == Verdict.ACCEPTED) {
                return r;
            }
            if (v.divergence() != null && !v.divergence().event().startsWith("(the end")) {
                throw new IllegalStateException("the wall-clock search took every event of an order that the whole-trace validator rejects at "
                        + r.origin(v.divergence().line()));
            }
            if (best == null || v.verdict() == Verdict.INCOMPLETE && (best.result().verdict() != Verdict.INCOMPLETE
                    || v.unfinished().size() < best.result().unfinished().size())) {
                best = r;
            }
        }
        if (best != null && (best.result().verdict() == Verdict.INCOMPLETE || deepest == null)) {
            return best;
        }
        // every order was rejected: the one that went furthest (every event, rejected at the end of the run; or the deepest)
        ProcessLogs.Result r = best != null ? best : judge(logs, raws, complete(order(deepest.path()), logs), opt, search, deepest.at());
        List<String> notes = new ArrayList<>(r.result().notes());
        if (!deadAt.isEmpty() && !cut) {
            List<String> blame = new ArrayList<>();
            blame.add("every order the windows allow was rejected (" + search.orders() + " orders), at " + deadAt.size()
                    + (deadAt.size() == 1 ? " event" : " events") + (best != null ? " (and " + ended.size() + " at the end of the run)" : "")
                    + ", those the furthest orders reached first:");
            List<Map.Entry<String, Integer>> groups = new ArrayList<>(deadAt.entrySet());
            groups.sort(java.util.Comparator.comparing((Map.Entry<String, Integer> g) -> -deadDepth.get(g.getKey())));
            int shown = 0;
            for (var g : groups) {
                if (shown++ == ProcessLogs.MAX_BLAME) {
                    blame.add("  ... and " + (deadAt.size() - ProcessLogs.MAX_BLAME) + " more");
                    break;
                }
                blame.add("  " + g.getKey() + " " + deadWhy.get(g.getKey()) + ", in " + g.getValue() + (g.getValue() == 1 ? " order" : " orders"));
            }
            notes.add(ProcessLogs.ORDERS + " " + String.join(System.lineSeparator() + "    ", blame));
        }
        ValidationResult v = r.result();
        Verdict verdict = cut ? Verdict.UNDECIDED : v.verdict();
        if (cut) {
            notes.add("the search was cut short by its bound (" + bound + " states after one event, first after event " + cutAfter
                    + "): every order kept was rejected, but not every order the windows allow was tried, so the verdict is UNDECIDED"
                    + " rather than REJECTED");
        }
        return new ProcessLogs.Result(v.with(verdict, notes), r.origins(), r.ordersTried(), false, r.merged(), List.of(), search);
    }

    private static List<Item> order(Node path) {
        List<Item> out = new ArrayList<>();
        for (Node n = path; n != null; n = n.parent()) {
            out.add(n.item());
        }
        java.util.Collections.reverse(out);
        return out;
    }

    /** {@code taken}, then every other item in an order the clocks allow (the earliest start first, log order kept). */
    private static List<Item> complete(List<Item> taken, List<List<Item>> logs) {
        List<Item> out = new ArrayList<>(taken);
        int[] pos = new int[logs.size()];
        for (Item i : taken) {
            pos[i.proc()]++;
        }
        earliestFirst(out, pos, logs);
        return out;
    }

    /**
     * Takes, after {@code pos}, the enabled item that starts first while there is one, into
     * {@code out}, {@code pos} following; whether every item was taken (else the windows and the
     * protocol's order have a cycle, and {@code pos} is where it stopped).
     */
    private static boolean earliestFirst(List<Item> out, int[] pos, List<List<Item>> logs) {
        while (true) {
            Item best = null;
            boolean left = false;
            for (int p = 0; p < logs.size(); p++) {
                if (pos[p] < logs.get(p).size()) {
                    left = true;
                    Item i = logs.get(p).get(pos[p]);
                    if (enabled(i, pos) && (best == null || i.t0 < best.t0)) {
                        best = i;
                    }
                }
            }
            if (best == null) {
                return !left;
            }
            out.add(best);
            pos[best.proc()]++;
        }
    }

    /** Before the search: some order takes every event (else the clocks contradict the declared skew, which is said where). */
    private static void check(List<List<Item>> logs, double skew) throws TraceFormatException {
        int[] pos = new int[logs.size()];
        if (!earliestFirst(new ArrayList<>(), pos, logs)) {
            throw deadlock(pos, logs, skew);
        }
    }

    /**
     * The merged trace in {@code order}, judged as a whole trace: the verdict reported is the
     * whole-trace validator's on the order the search settled on, so the two never differ; a
     * difference where the search rejected at {@code rejectedAt} is a bug of the kit and said so.
     */
    private static ProcessLogs.Result judge(List<List<Item>> logs, List<ProcessLogs.Raw> raws, List<Item> order, Validator.Options opt,
            Search search, Item rejectedAt) throws IOException {
        // the merged trace's header is the logs' (their skew_ms, the logs' own field, left out), named as the first log's
        List<ProcessLogs.Log> ls = List.of(new ProcessLogs.Log(raws.get(0).source(), raws.get(0).process(),
                WrittenTrace.without(raws.get(0).header(), "skew_ms"), List.of()));
        List<ProcessLogs.Ev> evs = new ArrayList<>();
        order.forEach(i -> evs.add(i.ev));
        ProcessLogs.Result r = ProcessLogs.run(ls, evs, opt, (int) Math.min(Integer.MAX_VALUE, search.orders()), false);
        ValidationResult v = r.result();
        if (rejectedAt != null && (v.divergence() == null || !r.origin(v.divergence().line()).equals(rejectedAt.ev.source() + ":"
                + rejectedAt.ev.line()))) {
            throw new IllegalStateException("the wall-clock search rejected an order at " + rejectedAt.where() + " that the whole-trace"
                    + " validator judges " + v.verdict() + (v.divergence() == null ? "" : " at " + r.origin(v.divergence().line())));
        }
        List<String> notes = new ArrayList<>(v.notes());
        notes.add(0, search.note());
        return new ProcessLogs.Result(v.with(v.verdict(), notes), r.origins(), r.ordersTried(), false, r.merged(), List.of(), search);
    }

    /** No order goes on: each log's next event waits for one that, by the clocks or the protocol, waits for it. */
    private static TraceFormatException deadlock(int[] pos, List<List<Item>> logs, double skew) {
        Item worst = null;
        Item cause = null;
        String why = null;
        for (int p = 0; p < logs.size(); p++) {
            if (pos[p] >= logs.get(p).size()) {
                continue;
            }
            Item b = logs.get(p).get(pos[p]);
            for (int c = 0; c < b.causes.size(); c++) {
                Item a = b.causes.get(c);
                if (pos[a.proc()] <= a.index() && (worst == null || a.t0 - b.t1 > cause.t0 - worst.t1)) {
                    worst = b;
                    cause = a;
                    why = b.causeWhy.get(c);
                }
            }
        }
        if (worst == null) {
            Item b = null;
            for (int p = 0; p < logs.size() && b == null; p++) {
                if (pos[p] < logs.get(p).size()) {
                    b = logs.get(p).get(pos[p]);
                }
            }
            return new TraceFormatException(b.ev.source(), b.ev.line(), "no order of the logs is allowed by their windows widened by"
                    + " skew_ms=" + num(skew) + ": each log's next event waits for another's");
        }
        return new TraceFormatException(worst.ev.source(), worst.ev.line(), "the clocks contradict the declared skew_ms=" + num(skew)
                + ": this event " + worst.ev.brief() + " (t=" + worst.time() + ") comes after " + why + ", " + cause.where() + ", which by"
                + " the clocks comes after events that come after this one (a chain of windows more than " + num(skew) + " ms apart)."
                + " That is not a property of the spec broken: declare a skew_ms that holds, or fix the clocks");
    }
}
