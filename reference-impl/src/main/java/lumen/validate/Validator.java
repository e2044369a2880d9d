package lumen.validate;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lumen.core.ActionProperties;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PageSeq;
import lumen.core.PropertyId;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.core.SpecStep;
import lumen.core.Transition;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;
import lumen.trace.TraceWriter;

/**
 * The Java mirror of the spec: replays a trace event by event on the decision core's state and
 * decides whether it is a behaviour of the composed spec.
 *
 * <p>For each event it checks whether the event is a step of the spec from the state before it
 * ({@link SpecStep}), applies the event as reported ({@link Transition}), checks the invariants
 * (S1 to S11) on what the event touched, and checks the action properties (A1 to A3) on the
 * step. The first event with any finding is the divergence. Invariants are reported before
 * action properties, and both before a bare "not a step of the spec", so a wrong step is named
 * by the most specific property it breaks.
 *
 * <p>Memory is bounded by the live requests and the longest line, not by the trace's length, nor
 * by what the header or an event claims: the reader bounds the header's sizes, and an event that
 * claims a run of positions the request never had ({@link #MAX_CLAIMED_HOLES}) is judged without
 * being applied.
 */
public final class Validator {
    private Validator() {}

    public static ValidationResult validate(InputStream in, String source) throws IOException {
        Map<String, Long> byType = new LinkedHashMap<>();
        TraceReader reader;
        try {
            reader = new TraceReader(in, source);
        } catch (TraceFormatException ex) {
            return new ValidationResult(source, Verdict.MALFORMED, null, 0, byType, 0, 0, null, ex);
        }
        Config config = reader.config();
        ClusterState s = ClusterState.initial(config);
        long events = 0;
        long done = 0;
        long arrived = 0;
        try (reader) {
            Event e;
            while ((e = reader.next()) != null) {
                events++;
                byType.merge(e.action().specName(), 1L, Long::sum);
                knownRequests(s, e, source, reader.line());
                Replayed o = replay(s, e, reader.line(), reader.citedLoads());
                if (o.divergence() != null) {
                    return new ValidationResult(source, Verdict.REJECTED, config, events, byType, done, arrived - done, o.divergence(), null);
                }
                if (e instanceof Event.Arrive) {
                    arrived++;
                }
                if (e instanceof Event.Complete) {
                    done++;
                }
                s = o.post();
            }
        } catch (TraceFormatException ex) {
            return new ValidationResult(source, Verdict.MALFORMED, config, events, byType, done, arrived - done, null, ex);
        }
        return new ValidationResult(source, Verdict.ACCEPTED, config, events, byType, done, arrived - done, null, null);
    }

    /** Every request an event names must have arrived (and only Arrive may name a new one). */
    private static void knownRequests(ClusterState s, Event e, String source, long line) throws TraceFormatException {
        for (int id : namedRequests(e)) {
            if (s.request(id) == null) {
                throw new TraceFormatException(source, line, e.action().specName() + ": unknown request " + id + " (no Arrive for it before this line)");
            }
        }
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

    /** A decision that cites loads other than the derived ones decided on stale loads. */
    static Finding staleLoads(ClusterState s, Event e, double[] cited) {
        lumen.core.PropertyId p = switch (e.action()) {
            case PLACE -> lumen.core.PropertyId.A1;
            case ROUTE -> lumen.core.PropertyId.A2;
            default -> lumen.core.PropertyId.A3;
        };
        for (int w = 0; w < cited.length; w++) {
            if (s.isUp(w) && cited[w] != s.load(w)) {
                return new Finding(p, "the decision cites a stale load for worker " + w + " (Eq. 4 derived from the trace)",
                        "L=" + s.load(w), "L=" + cited[w]);
            }
        }
        return null;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** The divergence at this event, or null when it is a step of the spec that breaks nothing. */
    public static Divergence check(ClusterState s, Event e, long line) {
        return check(s, e, line, null);
    }

    /**
     * As {@link #check(ClusterState, Event, long)}, with the loads the event's decision cites
     * (null for none): each UP worker's cited load must equal the load derived from the trace.
     */
    public static Divergence check(ClusterState s, Event e, long line, double[] cited) {
        return replay(s, e, line, cited).divergence();
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

    /** One replayed event: the state after it (as the event reports it), and its divergence (null when none). */
    public record Replayed(ClusterState post, Divergence divergence) {}

    /**
     * Checks one event as {@link #check(ClusterState, Event, long, double[])} does, and returns the
     * state after it too (the state before it when the event claims too much to apply; there is
     * a divergence then).
     */
    public static Replayed replay(ClusterState s, Event e, long line, double[] cited) {
        List<Finding> found = new ArrayList<>(0);
        if (cited != null) {
            Finding stale = staleLoads(s, e, cited);
            if (stale != null) {
                found.add(stale);
            }
        }
        Finding step = SpecStep.check(s, e);
        Finding huge = hugeClaim(s, e);
        ClusterState post;
        if (huge != null) {
            post = s;
            found.add(huge);
        } else {
            post = Transition.apply(s, e);
            found.addAll(Invariants.touched(s, post, e));
        }
        Finding a = ActionProperties.check(s, e);
        if (a != null) {
            found.add(a);
        }
        if (step != null) {
            found.add(step);
        }
        if (found.isEmpty()) {
            return new Replayed(post, null);
        }
        Finding first = found.get(0);
        if (first.property() != null && step != null && step.property() == null && first.expected() == null && step.expected() != null) {
            // name the property, but keep the spec's expected/actual for the step
            first = new Finding(first.property(), first.message(), step.expected(), step.actual());
        }
        List<Finding> others = new ArrayList<>(found.subList(1, found.size()));
        int[] reqs = e.req() >= 0 ? new int[] {e.req()} : new int[0];
        if (e instanceof Event.Fail f) {
            reqs = concat(f.interrupted(), f.orphaned());
        }
        return new Replayed(post, new Divergence(line, TraceWriter.toJson(e), first, others, StateView.describe(s, e, reqs)));
    }

}
