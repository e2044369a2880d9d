package lumen.validate;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PageSeq;
import lumen.core.PropertyId;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.trace.Observation;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;

/**
 * Trace validation on the Java mirror of the spec ({@link Mirror}): replays a trace event by event
 * and decides whether it is a behaviour of the composed spec in which every property holds.
 *
 * <p>For each event the mirror checks whether it is a step of the spec from the state before it,
 * the KV content it reports (v2), the invariants on what it touched, the action properties, and
 * the bounded fairness of the mechanisms; the first event with any finding is the divergence, named
 * by the highest-ranked property it breaks. At the end it checks every invariant on the whole state
 * and, when asked ({@link Options#complete}), that the run is finished.
 *
 * <p>Outputs are judged (S7) against a reference: the kit's own when one is given
 * ({@link Options#reference}), else the system's self-reported {@code Arrive.ref}, and the verdict
 * says which. Memory is bounded by the live requests and the longest line, not by the trace's
 * length, nor by what the header or an event claims: the reader bounds the header's sizes, and
 * an event that claims a run of positions the request never had ({@link #MAX_CLAIMED_HOLES}) is
 * judged without being applied.
 */
public final class Validator {
    private Validator() {}

    /**
     * How to judge.
     *
     * @param complete        an unfinished run (a request not DONE, a failed worker not UP at the
     *                        end) is INCOMPLETE rather than ACCEPTED
     * @param reference       the kit's reference output of each request, replacing the trace's
     *                        self-reported {@code Arrive.ref}; null to use the trace's
     * @param referenceSource where that reference came from, for the verdict
     * @param fairnessSteps   the bound of the finite-trace fairness checks L3 and L4
     */
    /**
     * @param pages what every page digest the trace reports is held to ({@link PageOracle}: the kit's
     *              KV content model for a system on the kit's token model, or the same system's
     *              failure-free run), under {@code lumen conform}; null: digests are only compared
     *              with each other, so a system may use any hash of its bytes
     */
    public record Options(boolean complete, Map<Integer, int[]> reference, String referenceSource, int fairnessSteps,
                          PageOracle pages) {
        public Options(boolean complete, Map<Integer, int[]> reference, String referenceSource, int fairnessSteps) {
            this(complete, reference, referenceSource, fairnessSteps, null);
        }

        public static Options defaults() {
            return new Options(false, null, null, Mirror.DEFAULT_FAIRNESS_STEPS);
        }

        public Options withComplete(boolean c) {
            return new Options(c, reference, referenceSource, fairnessSteps, pages);
        }

        public Options withReference(Map<Integer, int[]> ref, String source) {
            return new Options(complete, ref, source, fairnessSteps, pages);
        }

        public Options withFairnessSteps(int n) {
            return new Options(complete, reference, referenceSource, n, pages);
        }

        /** Every page digest held to the kit's KV content model, with each request's seed. */
        public Options withKvModel(Map<Integer, Long> seeds) {
            return withPages(PageOracle.kitModel(seeds));
        }

        /** Every page digest held to {@code o} where it says what the digest must be. */
        public Options withPages(PageOracle o) {
            return new Options(complete, reference, referenceSource, fairnessSteps, o);
        }
    }

    /** What a result says of the outputs' reference when the trace's own was used. */
    public static final String SELF_REPORTED = "the system's self-reported reference (Arrive.ref)";

    public static ValidationResult validate(InputStream in, String source) throws IOException {
        return validate(in, source, Options.defaults());
    }

    /**
     * A whole trace in memory, with begin and end forms when its header declares them
     * ({@code "steps":"begin-end"}, {@link lumen.trace.Linearize}) and what it observes when it is a
     * partial trace ({@code "observes"}, {@link Observation}): begin and end forms are validated as
     * the atomic trace their ends make, batch lines as their Decode steps, hidden steps are searched
     * for ({@link Candidates}), and every line a verdict names is the line of the trace as written.
     */
    public static ValidationResult validate(byte[] trace, String source, Options opt) throws IOException {
        if (!lumen.trace.Linearize.declared(trace)) {
            return validateStream(new java.io.ByteArrayInputStream(trace), source, opt);
        }
        lumen.trace.WrittenTrace w;
        try {
            w = lumen.trace.WrittenTrace.of(trace, source);
        } catch (TraceFormatException ex) {
            return new ValidationResult(source, Verdict.MALFORMED, null, 0, 0, new LinkedHashMap<>(), 0, 0, null, ex, List.of(),
                    opt.reference() == null ? SELF_REPORTED : opt.referenceSource(), List.of());
        }
        ValidationResult r = validateStream(new java.io.ByteArrayInputStream(w.trace()), source, opt);
        Divergence d = r.divergence() == null ? null : r.divergence().withLine(w.lineOf(r.divergence().line()));
        TraceFormatException e = r.error() == null ? null : w.remap(r.error(), source);
        List<String> notes = new ArrayList<>(r.notes());
        notes.addAll(w.notes());
        Verdict v = r.verdict();
        List<String> unfinished = r.unfinished();
        if (opt.complete() && v == Verdict.ACCEPTED && !w.unfinished().isEmpty()) {
            // a complete run ends every step it began (a failure or a restart ends those of the failed worker)
            v = Verdict.INCOMPLETE;
            unfinished = new ArrayList<>(unfinished);
            for (String step : w.unfinished()) {
                unfinished.add(step + ": begun and never ended");
            }
        }
        return new ValidationResult(r.source(), v, r.config(), r.version(), r.events(), r.byType(), r.done(), r.open(), d, e,
                unfinished, r.reference(), notes);
    }

    /**
     * A trace read as it streams, in memory bounded by the requests in flight and the longest line,
     * a partial trace too (the reader takes its declaration and reads a composed line as its steps);
     * only a trace with begin and end forms, which are paired across it, is read whole.
     */
    public static ValidationResult validate(InputStream in, String source, Options opt) throws IOException {
        java.io.BufferedInputStream b = in instanceof java.io.BufferedInputStream bi ? bi : new java.io.BufferedInputStream(in, 1 << 16);
        b.mark(1 << 16);
        byte[] head = b.readNBytes(1 << 16);
        b.reset();
        return lumen.trace.Linearize.declared(head) ? validate(b.readAllBytes(), source, opt) : validateStream(b, source, opt);
    }

    /**
     * The next few events of a trace and what the reader said of each, read before the first of
     * them is stepped ({@link Mirror#prefetch}). An error the reader finds while reading ahead is
     * kept until the events before it are stepped, so a divergence before it is still the verdict.
     */
    private static final class Ahead {
        static final int SIZE = 16;
        final TraceReader reader;
        final Event[] events = new Event[SIZE];
        final long[] lines = new long[SIZE];
        final double[][] loads = new double[SIZE][];
        final long[][] reserved = new long[SIZE][];
        final double[] times = new double[SIZE];
        final String[] entries = new String[SIZE];
        int n;
        int next;
        /** The event {@link #advance} moved to. */
        int at;
        TraceFormatException error;

        Ahead(TraceReader reader) {
            this.reader = reader;
        }

        /**
         * Moves to the next event, reading ahead when none is left (and touching the new events'
         * held requests in {@code mirror}, if any); false at the end, or throws the error the
         * reader found after the events before it.
         */
        boolean advance(Mirror mirror) throws IOException, TraceFormatException {
            if (next == n) {
                fill();
                if (mirror != null) {
                    mirror.prefetch(events, 0, n);
                }
                if (n == 0) {
                    if (error != null) {
                        throw error;
                    }
                    return false;
                }
            }
            at = next++;
            return true;
        }

        private void fill() throws IOException {
            n = 0;
            next = 0;
            if (error != null) {
                return;
            }
            try {
                Event e;
                while (n < SIZE && (e = reader.next()) != null) {
                    events[n] = e;
                    lines[n] = reader.line();
                    loads[n] = reader.citedLoads();
                    reserved[n] = reader.citedReserved();
                    times[n] = reader.time();
                    entries[n] = reader.entry();
                    n++;
                }
            } catch (TraceFormatException ex) {
                error = ex;
            }
        }
    }

    /** A trace without begin and end forms, as it streams. */
    private static ValidationResult validateStream(InputStream in, String source, Options opt) throws IOException {
        Map<String, Long> byType = new LinkedHashMap<>();
        String refSource = opt.reference() == null ? SELF_REPORTED : opt.referenceSource();
        TraceReader reader;
        try {
            reader = new TraceReader(in, source);
        } catch (TraceFormatException ex) {
            return new ValidationResult(source, Verdict.MALFORMED, null, 0, 0, byType, 0, 0, null, ex, List.of(), refSource, List.of());
        }
        Config config = reader.config();
        int version = reader.version();
        Observation obs = reader.observation();
        List<String> notes = notes(version, opt);
        notes.addAll(obs.notes());
        // one state for a full trace; a set of candidates when steps are hidden
        Mirror mirror = obs.searches() ? null
                : opt.pages() != null ? new Mirror(config, opt.fairnessSteps(), !obs.streamSizes()).withPageOracle(opt.pages()).inPlace()
                : new Mirror(config, opt.fairnessSteps(), !obs.streamSizes()).withHotRequests().inPlace();
        Candidates cands = obs.searches() ? new Candidates(config, opt.fairnessSteps(), obs) : null;
        long events = 0;
        long done = 0;
        long arrived = 0;
        long line = 1;
        long[] counts = new long[lumen.core.Action.values().length];
        // the reader runs a few events ahead, so that a full trace's mirror can start the first reads of their requests
        Ahead ahead = new Ahead(reader);
        try (reader) {
            while (ahead.advance(mirror)) {
                int k = ahead.at;
                Event e = ahead.events[k];
                line = ahead.lines[k];
                double[] citedLoads = ahead.loads[k];
                long[] citedReserved = ahead.reserved[k];
                double time = ahead.times[k];
                String entry = ahead.entries[k];
                events++;
                if (counts[e.action().ordinal()]++ == 0) {
                    byType.put(e.action().specName(), 0L); // first seen: the map keeps the order types appear in
                }
                knownRequests(mirror != null ? mirror::knows : id -> cands.state().request(id) != null, e, source, line);
                e = withReference(e, opt, source, line);
                int before = cands == null ? 1 : cands.size();
                Divergence d = mirror != null ? mirror.step(e, line, citedLoads, citedReserved, time)
                        : cands.step(e, line, citedLoads, citedReserved, time);
                if (d != null) {
                    counted(byType, counts);
                    if (cands != null) {
                        notes.addAll(0, searched(obs, cands, line));
                    }
                    d = d.withMatched(matched(events - 1, before)).withEventNote(entry);
                    if (version < 2) {
                        d = v1(d, notes);
                    }
                    Verdict v = cands != null && cands.cut() >= 0 ? Verdict.UNDECIDED : Verdict.REJECTED;
                    return new ValidationResult(source, v, config, version, events, byType, done, arrived - done, d, null,
                            List.of(), refSource, notes);
                }
                if (e instanceof Event.Arrive) {
                    arrived++;
                }
                if (e instanceof Event.Complete) {
                    done++;
                }
            }
        } catch (TraceFormatException ex) {
            return new ValidationResult(source, Verdict.MALFORMED, config, version, events, counted(byType, counts), done, arrived - done,
                    null, ex, List.of(), refSource, notes);
        }
        counted(byType, counts);
        List<ClusterState> ends = mirror != null ? List.of(mirror.state()) : cands.states();
        if (cands != null) {
            notes.addAll(0, searched(obs, cands, -1));
        }
        // the end: some candidate with every invariant, and (with --complete) finished
        List<Finding> whole = null;
        ClusterState end = null;
        List<String> unfinished = null;
        for (ClusterState s : ends) {
            List<Finding> f = Invariants.all(s);
            if (!f.isEmpty()) {
                if (whole == null) {
                    whole = f;
                    end = s;
                }
                continue;
            }
            List<String> u = opt.complete() ? unfinished(s) : List.of();
            if (unfinished == null || u.size() < unfinished.size()) {
                unfinished = u;
            }
        }
        if (unfinished == null) {
            Divergence d = new Divergence(line, "(the end of the trace)", whole.get(0), whole.subList(1, whole.size()),
                    StateView.describe(end, null, new int[0]));
            if (version < 2) {
                d = v1(d, notes);
            }
            Verdict v = cands != null && cands.cut() >= 0 ? Verdict.UNDECIDED : Verdict.REJECTED;
            return new ValidationResult(source, v, config, version, events, byType, done, arrived - done, d, null,
                    List.of(), refSource, notes);
        }
        Verdict v = unfinished.isEmpty() ? Verdict.ACCEPTED : Verdict.INCOMPLETE;
        return new ValidationResult(source, v, config, version, events, byType, done, arrived - done, null, null, unfinished, refSource, notes);
    }

    /** {@code byType} with each type's count from {@code counts} (by action ordinal). */
    private static Map<String, Long> counted(Map<String, Long> byType, long[] counts) {
        for (lumen.core.Action a : lumen.core.Action.values()) {
            if (counts[a.ordinal()] > 0) {
                byType.put(a.specName(), counts[a.ordinal()]);
            }
        }
        return byType;
    }

    /** The longest matched prefix, for a rejection's report. */
    private static String matched(long events, int candidates) {
        return "the " + events + " events before this one are a behaviour of the spec in which every property holds"
                + (candidates > 1 ? "; " + candidates + " candidate states before this event, none of which takes it (the state shown is"
                        + " the one whose finding ranks first)" : "");
    }

    /** What a partial trace's search inferred and what it could not judge, for the verdict. */
    private static List<String> searched(Observation obs, Candidates c, long line) {
        List<String> out = new ArrayList<>();
        out.add(String.format(java.util.Locale.ROOT, "partial trace (%s): %d candidate states at most between two events (mean %.2f),"
                + " %d tries of an observed event%s", obs.describe(), c.peak(), c.meanSize(), c.tried(),
                line < 0 ? "; " + c.size() + " candidates at the end, the closest to the trace with " + c.fewestHidden() + " hidden steps" : ""));
        if (obs.hiddenPlace()) {
            out.add("Place not logged: each placement was inferred (every placement the spec allows, at every state up to "
                    + obs.hiddenSteps() + " hidden steps before an observed event); A1 and Eq. 5 were judged on the inferred placements,"
                    + " and a Place's cited loads and reservations (S15 on a placement) could not be judged");
        }
        if (obs.hiddenLoads()) {
            out.add(c.hiddenViews() == 0 ? "loads never cited: every decision was judged on the loads derived from the trace (citedLoads=exact)"
                    : "loads never cited: " + c.hiddenViews() + " decisions resting on the monitor were judged on every report it could"
                    + " have held (A1-A3 hold for at least one of them), not on the one it held");
        }
        if (c.cut() >= 0) {
            out.add("the search was cut short at line " + c.cut() + " by the declared bound (observes.candidates=" + obs.candidates()
                    + "): a rejection then rests on the candidates kept, so the verdict is UNDECIDED rather than REJECTED");
        }
        return out;
    }

    /** How a rejected v1 trace's note on the break of its KV convention begins. */
    static final String V1_BREAK = "v1 break:";

    /** The KV properties a v1 trace may break only by counting positions as v1 did. */
    private static final java.util.Set<PropertyId> KV_COUNTS = java.util.EnumSet.of(PropertyId.S6, PropertyId.S8, PropertyId.S9,
            PropertyId.S12, PropertyId.S13, PropertyId.S15);

    /**
     * A v1 trace's rejection, said as v1 can show it: a v1 trace has no content, so a hole in a copy
     * is a position never written, not "other content"; and when the property is one of the KV's
     * counts, the verdict names the deliberate break of contract v2's KV convention and what to change.
     */
    static Divergence v1(Divergence d, List<String> notes) {
        Finding f = d.finding();
        if (f == null || !KV_COUNTS.contains(f.property())) {
            return d;
        }
        notes.add(0, V1_BREAK + " this is a trace of contract v1, judged by the KV convention of contract v2 (a deliberate break,"
                + " since 2026-12-01): a server has written KvLen = promptLen + |output| - 1 positions of a request, as a real decoder writes a token's KV"
                + " in the forward pass after it. Contract v1 counted the last emitted token's position as written, so a v1 trace whose"
                + " checkpoint, restore or freed count includes it is rejected here; count positions as v2 does, or write a v2 trace"
                + " (docs/trace-format.md, Version 1 traces)");
        String m = f.message().replace("with holes (never written, or other content) at", "with positions never written at");
        return m.equals(f.message()) ? d : new Divergence(d.line(), d.event(), new Finding(f.property(), m, f.expected(), f.actual()),
                d.others(), d.state(), d.matched());
    }

    /** What a trace of this version, judged with these options, cannot show. */
    static List<String> notes(int version, Options opt) {
        List<String> out = new ArrayList<>();
        if (version < 2) {
            out.add("trace contract v1 shows no KV content: S6, S9, S12 and S13 were judged on the positions the events claim,"
                    + " not on the bytes written, streamed and restored");
        }
        if (opt.reference() == null) {
            out.add("outputs (S7, S1) were judged against " + SELF_REPORTED + "; give the kit's own reference"
                    + " (--reference FILE, or lumen conform) to judge them against an oracle the system does not supply");
        }
        if (!opt.complete()) {
            out.add("completeness was not required: a run that stops with requests unfinished or workers down is not rejected"
                    + " for it (--complete requires it)");
        }
        if (opt.fairnessSteps() <= 0) {
            out.add("the bounded fairness of streaming (L3) and assist (L4) was not checked");
        }
        return out;
    }

    /** Each request not DONE and each worker not UP, in words. */
    static List<String> unfinished(ClusterState s) {
        List<String> out = new ArrayList<>();
        for (int id : s.requests().keys()) {
            lumen.core.RequestRec r = s.request(id);
            if (r.phase() != lumen.core.RequestPhase.DONE) {
                out.add("request " + id + " is " + r.phase() + " with " + r.outLen() + " of " + r.refLen() + " tokens");
            }
        }
        for (int w = 0; w < s.workerCount(); w++) {
            if (!s.isUp(w)) {
                out.add("worker " + w + " is " + s.worker(w).state());
            }
        }
        return out;
    }

    /** Every request an event names must have arrived (and only Arrive may name a new one). */
    private static void knownRequests(java.util.function.IntPredicate arrived, Event e, String source, long line) throws TraceFormatException {
        lumen.core.Action a = e.action();
        if (a != lumen.core.Action.ARRIVE && a != lumen.core.Action.FAIL && a != lumen.core.Action.FULL_READY) {
            // one request at most: no list of names to build
            if (e.req() >= 0 && !arrived.test(e.req())) {
                throw unknownRequest(e, e.req(), source, line);
            }
            return;
        }
        for (int id : namedRequests(e)) {
            if (!arrived.test(id)) {
                throw unknownRequest(e, id, source, line);
            }
        }
    }

    private static TraceFormatException unknownRequest(Event e, int id, String source, long line) {
        return new TraceFormatException(source, line, e.action().specName() + ": unknown request " + id + " (no Arrive for it before this line)");
    }

    /**
     * Event {@code e} (at {@code line} of {@code source}) with the kit's reference output in place of
     * the system's self-reported one when the options give a reference: an Arrive the reference has no
     * output for is an error on its line.
     */
    static Event withReference(Event e, Options opt, String source, long line) throws TraceFormatException {
        if (!(e instanceof Event.Arrive a) || opt.reference() == null) {
            return e;
        }
        int[] ref = opt.reference().get(a.req());
        if (ref == null) {
            throw new TraceFormatException(source, line, "Arrive: the reference (" + opt.referenceSource() + ") has no output for request " + a.req());
        }
        return a.withRef(ref);
    }

    /** The requests an event names that must have arrived before it: none for Arrive, which introduces one. */
    public static int[] namedRequests(Event e) {
        return switch (e.action()) {
            case ARRIVE -> new int[0];
            case FAIL -> concat(concat(((Event.Fail) e).interrupted(), ((Event.Fail) e).orphaned()), ((Event.Fail) e).promoted());
            case FULL_READY -> ((Event.FullReady) e).dropped();
            default -> e.req() >= 0 ? new int[] {e.req()} : new int[0];
        };
    }

    /**
     * A decision (under citedLoads=exact) that cites loads other than those of the state it is taken
     * in: its rule's property (a placement's A1 or A4, a route's A2 or A5, an assist's A3). The
     * message says how the cited load differs from Eq. 4 derived from the trace (queued requests,
     * stored positions), and never calls it stale: under this reading a decision cites the loads of
     * its own state, and a monitor whose reports lag is the citedLoads=stale reading.
     */
    static Finding staleLoads(ClusterState s, Event e, double[] cited) {
        lumen.core.PropertyId p = switch (e.action()) {
            case PLACE -> s.policy().loadAwarePlacement() ? lumen.core.PropertyId.A1 : lumen.core.PropertyId.A4;
            case ROUTE -> s.policy().eq6Routing() ? lumen.core.PropertyId.A2 : lumen.core.PropertyId.A5;
            default -> lumen.core.PropertyId.A3;
        };
        boolean route = e.action() == lumen.core.Action.ROUTE;
        for (int w = 0; w < cited.length; w++) {
            // a route decides on Algorithm 2's loads (routeLoads reading), the others on Eq. 4 now
            double l = route ? s.routeLoad(w) : s.load(w);
            if (s.isUp(w) && cited[w] != l) {
                return new Finding(p, "the decision cites for worker " + w + " a load that is not Eq. 4 on the state it is taken in ("
                        + (route && s.routeIncrement() ? "as Algorithm 2 updates it, routeLoads=increment" : "L = alpha * stored + beta * Q_w, derived from the trace")
                        + ")" + loadGap(s, w, cited[w] - l) + "; under citedLoads=exact a decision cites the loads of its own state",
                        "L=" + l, "L=" + cited[w]);
            }
        }
        return null;
    }

    /** What a cited load's difference from Eq. 4 amounts to, when it is a whole number of queued requests or stored positions. */
    private static String loadGap(ClusterState s, int w, double d) {
        double beta = s.config().beta();
        double alpha = s.config().alpha();
        if (beta > 0 && d % beta == 0) {
            long k = Math.round(d / beta);
            return ": it counts " + Math.abs(k) + (k > 0 ? " more" : " fewer") + " request" + (Math.abs(k) == 1 ? "" : "s") + " in Q_w than the "
                    + s.depth(w) + " the trace has queued on worker " + w + (k > 0 ? " (a request counted twice, or one that left, still counted?)" : "");
        }
        if (alpha > 0 && d % alpha == 0) {
            long k = Math.round(d / alpha);
            return ": it counts " + Math.abs(k) + (k > 0 ? " more" : " fewer") + " checkpoint position" + (Math.abs(k) == 1 ? "" : "s")
                    + " than the " + s.worker(w).stored() + " the trace has streamed to worker " + w;
        }
        return "";
    }

    static int[] concat(int[] a, int[] b) {
        int[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /**
     * The most positions one event may claim past what its request has and still be applied: a
     * restore resuming past its checkpoint, a re-prefill resuming past nothing, a stream past the
     * KV. The mirror holds such positions one by one as holes, so a claim of 2^31-1 would take
     * gigabytes; past this many the event is judged unapplied, by the property the holes break
     * (S9 for the KV, S6 for a checkpoint), its spec step and its action properties.
     */
    public static final int MAX_CLAIMED_HOLES = 1 << 16;

    /** The S6 or S9 finding of an event claiming more than {@link #MAX_CLAIMED_HOLES} positions its request lacks, or null. */
    static Finding hugeClaim(ClusterState s, Event e) {
        if (e instanceof Event.Route rt) {
            RequestRec r = s.request(rt.req());
            int have = rt.mode() == RouteMode.RESTORE ? r.ckpt().length() : 0;
            if ((long) rt.resumed() - have > MAX_CLAIMED_HOLES) {
                return new Finding(PropertyId.S9, "request " + r.id() + "'s KV would have holes at positions " + (have + 1) + ".." + rt.resumed()
                        + ", " + ((long) rt.resumed() - have) + " positions it never had", "resumed <= " + have, Integer.toString(rt.resumed()));
            }
        } else if (e instanceof Event.StreamPage sp) {
            RequestRec r = s.request(sp.req());
            boolean toBackup = r.backup() >= 0 && sp.holder() == r.backup() && sp.holder() != r.holder();
            PageSeq copy = toBackup ? r.bckpt() : r.ckpt();
            int from = Math.max(copy.length(), r.kv().length());
            if ((long) sp.ckpt() - from > MAX_CLAIMED_HOLES) {
                return new Finding(PropertyId.S6, "request " + r.id() + "'s " + (toBackup ? "backup checkpoint" : "checkpoint")
                        + " would have holes at positions " + (from + 1) + ".." + sp.ckpt() + ", " + ((long) sp.ckpt() - from)
                        + " positions its KV never had", "ckpt <= " + r.kv().length(), Integer.toString(sp.ckpt()));
            }
        }
        return null;
    }
}
