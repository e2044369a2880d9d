package lumen.validate;

import java.util.ArrayDeque;
import java.util.Deque;
import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.PropertyId;
import lumen.core.Readings;

/**
 * The loads a decision could have seen under citedLoads=stale (docs/readings.md): the gateway's
 * monitor holds, for each worker, the load it last reported, so a decision's cited load for worker
 * w must be w's load (Eq. 4 from its counters) at one of the states the event's window reaches back
 * to, and never at a state earlier than the one w's previous cited load came from (reports arrive
 * in order). The window of event k (the state before it is state k) is states k-N..k under
 * {@code stale:N}, and under {@code stale:Tms} the states that were current at some time within T
 * ms before the event: state j, current until event j, when t_j >= t_k - T. TraceLumen's
 * {@code WindowOf} and {@code lfrom} are the same rule; the TLC trace module is given each event's
 * depth ({@link #depth}) by the same code.
 */
public final class LoadWindow {
    private record Past(long index, double time, double[] loads) {}

    private final Readings.CitedLoads bound;
    private final Deque<Past> past = new ArrayDeque<>();
    /** Per worker: the state its last cited load came from (1: none yet). */
    private final long[] from;
    private final Deque<double[]> times = new ArrayDeque<>();

    public LoadWindow(Readings.CitedLoads bound, int workers) {
        this.bound = bound;
        this.from = new long[workers];
        java.util.Arrays.fill(from, 1);
    }

    /**
     * Whether a decision may cite from every state this window lets {@code o} cite from, and more
     * or the same: each worker's reports resume here no later than there. With everything else
     * equal, this window then accepts every later citation {@code o} accepts, and stays so after
     * it (the first matching state from an earlier start is no later).
     */
    boolean resumesNoLaterThan(LoadWindow o) {
        for (int w = 0; w < from.length; w++) {
            if (from[w] > o.from[w]) {
                return false;
            }
        }
        return true;
    }

    /** An independent window with the same history, for a candidate state of a partial trace. */
    LoadWindow copy() {
        LoadWindow c = new LoadWindow(bound, from.length);
        c.past.addAll(past);
        System.arraycopy(from, 0, c.from, 0, from.length);
        c.times.addAll(times);
        return c;
    }

    /** The fingerprint of what the window holds that later events may read. */
    long fingerprint() {
        return fingerprint(true);
    }

    /** As {@link #fingerprint()}, with where each worker's reports resume ({@code from}) or without it. */
    long fingerprint(boolean fromToo) {
        long h = fromToo ? lumen.core.Fingerprint.of(from) : 0x5EE1L;
        for (Past q : past) {
            h = lumen.core.Fingerprint.add(h, lumen.core.Fingerprint.add(q.index(), lumen.core.Fingerprint.of(q.loads())));
        }
        return h;
    }

    /**
     * For a decision that rests on the monitor and cites no loads (a partial trace whose header
     * says loads are not observed): per worker, the distinct loads a report it could have cited
     * says (each UP worker's loads in the event's window, from the state its last cited load came
     * from; one 0 for a worker not UP, whose load the decision ignores). Event {@code k}, at time
     * {@code t}, on state {@code s}; nothing is remembered.
     */
    double[][] choices(long k, double t, ClusterState s) {
        return choicesFrom(k - reach(k, t), k, s);
    }

    /** Per worker, its distinct loads at states {@code oldest..k} of the window (k: state {@code s}), from where its last cited load came. */
    private double[][] choicesFrom(long oldest, long k, ClusterState s) {
        double[][] out = new double[s.workerCount()][];
        for (int w = 0; w < out.length; w++) {
            if (!s.isUp(w)) {
                out[w] = new double[] {0};
                continue;
            }
            java.util.LinkedHashSet<Double> vals = new java.util.LinkedHashSet<>();
            for (Past q : past) {
                if (q.index() >= Math.max(oldest, from[w])) {
                    vals.add(q.loads()[w]);
                }
            }
            if (k >= from[w]) {
                vals.add(s.load(w));
            }
            out[w] = vals.stream().mapToDouble(Double::doubleValue).toArray();
        }
        return out;
    }

    /**
     * For a Place the trace does not log (a partial trace), which rests on the monitor and so cites
     * loads the kit must choose: per worker, the distinct loads it could have said. The Place took
     * place after the last event stepped (k - 1) and before the next (k), so its window is k - 1's
     * reaching on to the state now (state {@code s}, k's state before it): each UP worker's loads
     * there from the state its last cited load came from (TraceLumen's WinStart).
     */
    double[][] hiddenChoices(long k, ClusterState s) {
        // every state past holds: k - 1's window
        return choicesFrom(Long.MIN_VALUE, k, s);
    }

    /**
     * A hidden Place (state {@code s} before it, which will be event k's state: a Place changes no
     * UP worker's load) on the loads {@code cited} its search chose from {@link #hiddenChoices}:
     * remembers where each came from, as {@link #observe} does for a logged decision, without
     * making the Place a state of any window. Returns the finding when a load is not one of those
     * choices (never, for a search that chose among them).
     */
    Finding observeHidden(long k, ClusterState s, Event e, double[] cited) {
        if (!usesView(s, e)) {
            return null;
        }
        if (cited == null) {
            throw new IllegalArgumentException("a hidden " + e.action().specName() + " that rests on the monitor is stepped on loads its search chose");
        }
        for (int w = 0; w < cited.length; w++) {
            if (!s.isUp(w)) {
                continue;
            }
            long at = -1;
            for (Past q : past) {
                if (q.index() >= from[w] && q.loads()[w] == cited[w]) {
                    at = q.index();
                    break;
                }
            }
            if (at < 0 && k >= from[w] && s.load(w) == cited[w]) {
                at = k;
            }
            if (at < 0) {
                return new Finding(propertyOf(e), "the hidden placement's search chose a load for worker " + w
                        + " outside its window (citedLoads=" + bound + ")", "a load in the window", "L=" + trim(cited[w]));
            }
            from[w] = at;
        }
        return null;
    }

    /**
     * How many states event {@code k} (at time {@code t}) may reach back: N under stale:N; under
     * stale:Tms, k minus the first state j whose event's time t_j >= t - T. Call once per event, in
     * order; {@link #observe} calls it.
     */
    public long depth(long k, double t) {
        if (bound.millis()) {
            times.addLast(new double[] {k, t});
            while (times.peekFirst()[1] < t - bound.bound()) {
                times.removeFirst();
            }
        }
        return reach(k, t);
    }

    /** How many states event k (at time t) may reach back, from the events remembered; nothing is remembered. */
    private long reach(long k, double t) {
        if (!bound.millis()) {
            return (long) bound.bound();
        }
        for (double[] q : times) {
            if (q[1] >= t - bound.bound()) {
                return k - (long) q[0];
            }
        }
        return 0;
    }

    /** Whether event e's decision rests on the gateway's monitor ({@code UsesView} in TraceLumen). */
    public static boolean usesView(ClusterState s, Event e) {
        return s.staleLoads() && s.usesMonitor(e);
    }

    /** The property a decision's loads belong to: A1 for a Place, A2 for a Route, A3 for an assist. */
    static PropertyId propertyOf(Event e) {
        return switch (e.action()) {
            case PLACE -> PropertyId.A1;
            case ROUTE -> PropertyId.A2;
            default -> PropertyId.A3;
        };
    }

    /**
     * Event k (state {@code s} before it, time {@code t}, NaN when none): judges the loads a decision
     * cites against the window, returns the finding (null when they could have been seen), and
     * remembers state k's loads. A decision that rests on the monitor and cites nothing is a finding:
     * the kit cannot know which reports it saw.
     */
    public Finding observe(long k, double t, ClusterState s, Event e, double[] cited) {
        long d = depth(k, t);
        double[] now = new double[s.workerCount()];
        for (int w = 0; w < now.length; w++) {
            now[w] = s.load(w);
        }
        past.addLast(new Past(k, t, now));
        long oldest = k - d;
        while (past.peekFirst().index() < oldest) {
            past.removeFirst();
        }
        if (!usesView(s, e)) {
            return null;
        }
        PropertyId p = propertyOf(e);
        if (cited == null) {
            return new Finding(p, "under citedLoads=" + bound + " a " + e.action().specName() + " rests on the loads the gateway's monitor"
                    + " reported, and must cite them ('loads', docs/readings.md#citedloads)", "'loads' on the event", "none");
        }
        for (int w = 0; w < now.length; w++) {
            if (!s.isUp(w)) {
                continue;
            }
            long at = -1;
            StringBuilder seen = new StringBuilder();
            for (Past q : past) {
                if (q.index() >= from[w]) {
                    if (seen.length() < 160) {
                        seen.append(seen.length() == 0 ? "" : ", ").append(trim(q.loads()[w]));
                    }
                    if (at < 0 && q.loads()[w] == cited[w]) {
                        at = q.index();
                    }
                }
            }
            if (at < 0) {
                return new Finding(p, "the decision cites a load for worker " + w + " that it did not have within the last "
                        + (bound.millis() ? trim(bound.bound()) + " ms" : (long) bound.bound() + (bound.bound() == 1 ? " event" : " events"))
                        + (from[w] > oldest ? " since the report its previous decision cited (reports arrive in order)" : "")
                        + " (citedLoads=" + bound + ", Eq. 4 derived from the trace)",
                        "one of L=" + seen, "L=" + trim(cited[w]));
            }
            from[w] = at;
        }
        return null;
    }

    /**
     * Whether UP worker u is most loaded by every report the monitor could hold for the current
     * event (TraceLumen's {@code MayPropose} without a kept target): its least load in the window is
     * at least every UP worker's greatest. A bounded fairness obligation (L4) counts only such
     * opportunities, since the trace does not show which reports the system had.
     */
    boolean robustlyMostLoaded(ClusterState s, int u) {
        double least = Double.POSITIVE_INFINITY;
        for (Past q : past) {
            least = Math.min(least, q.loads()[u]);
        }
        for (int v = 0; v < s.workerCount(); v++) {
            if (!s.isUp(v)) {
                continue;
            }
            for (Past q : past) {
                if (q.loads()[v] > least) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The monitor's loads after a decision citing {@code cited}: the cited loads of the UP workers. */
    static double[] view(ClusterState s, double[] cited) {
        double[] v = new double[s.workerCount()];
        for (int w = 0; w < v.length; w++) {
            v[w] = s.isUp(w) ? cited[w] : s.seen(w);
        }
        return v;
    }

    private static String trim(double x) {
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
    }
}
