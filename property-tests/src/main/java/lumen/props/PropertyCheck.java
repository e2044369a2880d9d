package lumen.props;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import lumen.conform.sut.Bug;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PropertyId;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.SimpleCostModel;

/**
 * Runs one schedule through the cluster runtime and checks every property after every step:
 * each event is checked by the validator's checks on a mirrored spec state (the spec step, the
 * invariants S1-S11 on what it touched, the action properties A1-A3); at the end every invariant
 * is checked on the whole state, every client's output is compared with its failure-free
 * reference (S7, L1) and every failed worker must have rejoined (L2).
 */
public final class PropertyCheck {

    /** What a run exercised, for coverage statistics. */
    public enum Feature {
        HOLDER_FAILURE, RESTORE, REPREFILL, DEGRADED_PLACEMENT, FAILURE_DURING_HANDOVER, HANDOVER_DROPS_DRAFTS, ACCEPTED_ASSIST,
        REJECTED_ASSIST,
        /** A failure interrupts a request with a draft in flight for it: the draft must die with it (S17). */
        FAILURE_DROPS_DRAFTS,
        /** The rebackup reading at work: a Place that keeps a request's holder and gives it a new backup. */
        REBACKUP,
        /** The ringFallThrough reading at work: a ring placement past a neighbour without room. */
        RING_FALL_THROUGH,
        /** A gray failure's zombie wrote a token, which reached the gateway's fence. */
        ZOMBIE_TOKEN,
        /** A gray failure's zombie streamed a page, which reached a holder's fence. */
        ZOMBIE_PAGE;

        /** Whether a run under policy {@code p} and readings {@code rd} can exercise this feature at all. */
        public boolean possibleUnder(RecoveryPolicy p, lumen.core.Readings rd) {
            return switch (this) {
                case REBACKUP -> p.dualPlacement() && rd.rebackup();
                case RING_FALL_THROUGH -> p.ringPlacement() && rd.ringFallThrough();
                default -> possibleUnder(p);
            };
        }

        /**
         * Whether a run under policy {@code p} can exercise this feature at all: checkpoints
         * (holder failure, restore, degraded placement) need a policy that places them, and the
         * assist features a policy whose recovering workers load a draft.
         */
        public boolean possibleUnder(RecoveryPolicy p) {
            return switch (this) {
                case HOLDER_FAILURE, RESTORE, DEGRADED_PLACEMENT -> p.placesCheckpoints();
                case FAILURE_DURING_HANDOVER, HANDOVER_DROPS_DRAFTS, ACCEPTED_ASSIST, REJECTED_ASSIST, FAILURE_DROPS_DRAFTS ->
                        p.restartState() == lumen.core.WorkerState.LOADING_DRAFT;
                case REPREFILL -> true;
                case REBACKUP, RING_FALL_THROUGH -> false;   // a reading decides: possibleUnder(p, readings)
                case ZOMBIE_TOKEN -> true;
                case ZOMBIE_PAGE -> p.placesCheckpoints();
            };
        }
    }

    /** The outcome of one run: the first violation (null when none), and what it exercised. */
    public record Outcome(Finding violation, String where, long events, Set<Feature> features) {
        public boolean passed() {
            return violation == null;
        }
    }

    private PropertyCheck() {}

    public static Outcome run(Schedule sc) {
        return run(sc, null);
    }

    /**
     * As {@link #run(Schedule)}, on an implementation with a seeded {@link Bug} (null: none): the
     * runtime takes the bug's policy, and each event passes through the bug before it is checked.
     */
    public static Outcome run(Schedule sc, Bug bug) {
        // the runtime keeps the kit's KV content, so every digest it reports is predicted, as lumen conform does
        Map<Integer, Long> seeds = new java.util.HashMap<>();
        for (lumen.runtime.Arrival a : sc.arrivals()) {
            seeds.put(a.id(), a.seed());
        }
        lumen.validate.Mirror mirror = new lumen.validate.Mirror(sc.config()).withKvModel(seeds);
        final Finding[] bad = {null};
        final String[] where = {null};
        final long[] n = {0};
        Set<Feature> features = EnumSet.noneOf(Feature.class);
        Set<Integer> assisting = new HashSet<>();
        Config run = Bug.running(bug, sc.config());
        if (bug != null) {
            bug.reset();
            sc.arrivals().forEach(a -> bug.arrived(a.id(), a.seed()));
        }
        ClusterRuntime.Options options = bug == null ? sc.options() : bug.options(sc.options());
        ClusterRuntime[] self = {null};
        ClusterRuntime rt = new ClusterRuntime(run, Bug.deciding(bug, run), SimpleCostModel.fastReload(), options, (orig, t) -> {
            n[0]++;
            if (bad[0] != null) {
                return;
            }
            for (Event reported : bug == null ? List.of(orig) : bug.rewriteAll(mirror.state(), orig, sc.config())) {
                // the kit owns the reference: an arrival is judged against the kit's token model, not the system's claim
                Event e = reported instanceof Event.Arrive a ? a.withRef(kitReference(sc, a.req()))
                        : reported;
                ClusterState s = mirror.state();
                long[] cited = e instanceof Event.Place && bug != null ? bug.citedReservations(s, sc.config()) : null;
                observe(s, e, features, assisting);
                // under citedLoads=stale a decision cites the loads the runtime's monitor gave it
                lumen.validate.Divergence d = mirror.step(e, n[0], self[0].before().citedFor(e), cited, t);
                if (d != null && bad[0] == null) {
                    bad[0] = d.finding();
                    where[0] = "event " + n[0] + " at " + t + " ms: " + d.event();
                }
            }
        });
        self[0] = rt;
        try {
            rt.run(sc.arrivals(), sc.faults());
        } catch (IllegalStateException | IllegalArgumentException ex) {
            // the core refused a step: the implementation tried something the spec forbids
            return new Outcome(Finding.of(null, "the runtime attempted a step the core refuses: " + ex.getMessage()),
                    "event " + (n[0] + 1), n[0], features);
        }
        if (bad[0] != null) {
            return new Outcome(bad[0], where[0], n[0], features);
        }
        ClusterState end = mirror.state();
        List<Finding> all = Invariants.all(end);
        if (!all.isEmpty()) {
            return new Outcome(all.get(0), "final state", n[0], features);
        }
        for (Map.Entry<Integer, int[]> o : rt.outputs().entrySet()) {
            if (!Arrays.equals(o.getValue(), rt.references().get(o.getKey()))) {
                return new Outcome(Finding.of(PropertyId.S7, "request " + o.getKey() + "'s output differs from its failure-free reference"),
                        "end of run", n[0], features);
            }
        }
        long done = sc.arrivals().stream().filter(a -> end.request(a.id()) != null
                && end.request(a.id()).phase() == lumen.core.RequestPhase.DONE).count();
        if (done != sc.arrivals().size()) {
            return new Outcome(Finding.of(PropertyId.L1, done + " of " + sc.arrivals().size() + " requests completed in the trace"),
                    "end of run", n[0], features);
        }
        for (int w = 0; w < sc.config().workers(); w++) {
            if (!end.isUp(w)) {
                return new Outcome(Finding.of(PropertyId.L2, "worker " + w + " is " + end.worker(w).state() + " at the end"),
                        "end of run", n[0], features);
            }
        }
        return new Outcome(null, null, n[0], features);
    }

    /** The kit's reference output of request {@code id} of the schedule (its token model). */
    static int[] kitReference(Schedule sc, int id) {
        for (lumen.runtime.Arrival a : sc.arrivals()) {
            if (a.id() == id) {
                return lumen.core.KitTokens.reference(a.seed(), a.outLen(), sc.options().vocab());
            }
        }
        throw new IllegalStateException("request " + id + " is not in the schedule");
    }

    /**
     * Adds to {@code f} what event {@code e} exercises, given the state before it;
     * {@code assisting} tracks the workers with a draft loaded, across calls.
     */
    public static void observe(ClusterState s, Event e, Set<Feature> f, Set<Integer> assisting) {
        switch (e.action()) {
            case FAIL -> {
                Event.Fail x = (Event.Fail) e;
                if (x.orphaned().length > 0) {
                    f.add(Feature.HOLDER_FAILURE);
                }
                if (assisting.contains(x.worker())) {
                    f.add(Feature.FAILURE_DURING_HANDOVER);
                }
                // judged on the state: a request the failure interrupts had a draft in flight
                for (int id : s.worker(x.worker()).runq().keys()) {
                    if (s.request(id).proposal() != null) {
                        f.add(Feature.FAILURE_DROPS_DRAFTS);
                        break;
                    }
                }
                assisting.remove(x.worker());
            }
            case ROUTE -> {
                Event.Route x = (Event.Route) e;
                if (x.mode() == RouteMode.REPREFILL) {
                    f.add(Feature.REPREFILL);
                } else if (x.resumed() > 0) {
                    f.add(Feature.RESTORE);
                }
            }
            case PLACE -> {
                Event.Place p = (Event.Place) e;
                RequestRec r = s.request(p.req());
                if (p.holder() < 0 && s.policy().placesCheckpoints()) {
                    f.add(Feature.DEGRADED_PLACEMENT);
                }
                if (r != null && p.keepsHolderOf(r) && p.backup() >= 0) {
                    f.add(Feature.REBACKUP);
                }
                if (r != null && s.policy().ringPlacement() && p.holder() >= 0 && r.server() >= 0 && p.holder() != s.ringNext(r.server())) {
                    f.add(Feature.RING_FALL_THROUGH);
                }
            }
            case ZOMBIE_TOKEN -> f.add(Feature.ZOMBIE_TOKEN);
            case ZOMBIE_PAGE -> f.add(Feature.ZOMBIE_PAGE);
            case DRAFT_READY -> assisting.add(e.worker());
            case FULL_READY -> {
                assisting.remove(e.worker());
                // judged on the state, not on the event's claim: a draft of this worker is in flight
                for (int id : s.requests().keys()) {
                    RequestRec r = s.request(id);
                    if (r.proposal() != null && r.proposal().src() == e.worker()) {
                        f.add(Feature.HANDOVER_DROPS_DRAFTS);
                        break;
                    }
                }
            }
            case DECODE -> {
                RequestRec r = s.request(e.req());
                if (r != null && r.proposal() != null) {
                    f.add(((Event.Decode) e).tokens().length > 1 ? Feature.ACCEPTED_ASSIST : Feature.REJECTED_ASSIST);
                }
            }
            default -> { }
        }
    }
}
