package lumen.props;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import lumen.core.ClusterState;
import lumen.core.Core;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PropertyId;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.core.Step;
import lumen.core.WorkerRec;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;

/**
 * Runs a schedule on the decision core alone, without the runtime's data plane and timing: at
 * every step one enabled action is chosen at random (seeded by the schedule), so checkpoints lag
 * by any amount, restarts and model loads interleave with serving in any order, and drafts agree
 * for any number of tokens. The schedule decides what the environment does: each arrival once
 * the step clock (1 ms per step) passes its time, each failure at its time or at the first step
 * from then on where its worker is in the named phase of work. Every step is checked as
 * {@link PropertyCheck} does (spec step, invariants on what it touched, action properties), and
 * the end state for every invariant, L1 and L2.
 */
public final class CoreRunner {
    private CoreRunner() {}

    public static PropertyCheck.Outcome run(Schedule sc) {
        return run(sc, sc.config().recoveryPolicy());
    }

    /** As {@link #run(Schedule)}, with the core deciding by {@code policy} (a seeded bug) while the checks hold it to the schedule's config. */
    public static PropertyCheck.Outcome run(Schedule sc, lumen.core.RecoveryPolicy policy) {
        long seed = sc.config().hashCode() * 31L + sc.arrivals().size() * 7L + sc.faults().size();
        for (Arrival a : sc.arrivals()) {
            seed = seed * 1_000_003L + a.seed();
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        ClusterState s = ClusterState.initial(sc.config(), policy);
        // the core alone schedules at random, unfairly on purpose: the bounded fairness checks are off
        lumen.validate.Mirror mirror = new lumen.validate.Mirror(sc.config(), 0);
        List<Arrival> pending = new ArrayList<>(sc.arrivals());
        pending.sort(java.util.Comparator.comparingDouble(Arrival::atMs));
        List<Fault> faults = new ArrayList<>(sc.faults());
        Set<PropertyCheck.Feature> features = EnumSet.noneOf(PropertyCheck.Feature.class);
        Set<Integer> assisting = new HashSet<>();
        // the paused workers that will wake as zombies: {worker, the zombie's epoch, the clock it wakes at}
        List<double[]> zombies = new ArrayList<>();
        long n = 0;
        long sinceReports = 0;
        for (double clock = 0; n < 2_000_000; clock += 1) {
            Supplier<Step> forced = environment(s, clock, pending, faults, sc.draftAgreement(), rnd, zombies);
            Supplier<Step> chosen = forced != null ? forced : choose(s, rnd, sc.draftAgreement());
            if (chosen == null) {
                double now = clock;
                if (pending.isEmpty() && faults.stream().noneMatch(f -> f.afterMs() > now) && zombies.isEmpty()) {
                    break;   // quiescent; a failure whose point of work never comes is skipped
                }
                continue;   // waiting for the clock to reach the next arrival or failure
            }
            Step st;
            try {
                st = chosen.get();
            } catch (IllegalStateException | IllegalArgumentException ex) {
                return new PropertyCheck.Outcome(Finding.of(null, "the core refused a step: " + ex.getMessage()), "step " + (n + 1), n, features);
            }
            n++;
            Event e = st.event();
            PropertyCheck.observe(mirror.state(), e, features, assisting);
            lumen.validate.Divergence d = mirror.step(e, n, s.citedFor(e), null, clock);
            if (d != null) {
                return new PropertyCheck.Outcome(d.finding(), "step " + n + " (clock " + clock + "): " + d.event(), n, features);
            }
            s = st.state();
            // citedLoads=stale:N: the monitor's reports come at random, at least once every N steps
            if (s.staleLoads()) {
                lumen.core.Readings.CitedLoads c = sc.config().readings().citedLoads();
                long bound = c.millis() ? 1 : (long) c.bound();
                if (++sinceReports >= bound || rnd.nextInt(3) == 0) {
                    s = s.heartbeat();
                    sinceReports = 0;
                }
            }
        }
        ClusterState end = mirror.state();
        List<Finding> all = Invariants.all(end);
        if (!all.isEmpty()) {
            return new PropertyCheck.Outcome(all.get(0), "final state", n, features);
        }
        for (Arrival a : sc.arrivals()) {
            RequestRec r = end.request(a.id());
            if (r == null || r.phase() != RequestPhase.DONE) {
                return new PropertyCheck.Outcome(Finding.of(PropertyId.L1, "request " + a.id() + " is " + (r == null ? "not arrived" : r.phase())
                        + " at the end"), "end of run", n, features);
            }
        }
        for (int w = 0; w < sc.config().workers(); w++) {
            if (!end.isUp(w)) {
                return new PropertyCheck.Outcome(Finding.of(PropertyId.L2, "worker " + w + " is " + end.worker(w).state() + " at the end"),
                        "end of run", n, features);
            }
        }
        return new PropertyCheck.Outcome(null, null, n, features);
    }

    /** The environment's next move, when one is due: an arrival or a failure. */
    private static Supplier<Step> environment(ClusterState s, double clock, List<Arrival> pending, List<Fault> faults,
                                              double agreement, SplittableRandom rnd, List<double[]> zombies) {
        Supplier<Step> z = zombieStep(s, clock, zombies);
        if (z != null) {
            return z;
        }
        if (!pending.isEmpty() && pending.get(0).atMs() <= clock && s.arriveTarget() >= 0) {
            Arrival a = pending.remove(0);
            int[] ref = new int[a.outLen()];
            SplittableRandom tok = new SplittableRandom(a.seed());
            for (int i = 0; i < ref.length; i++) {
                ref[i] = tok.nextInt(32_000);
            }
            return () -> Core.arrive(s, a.id(), a.promptLen(), ref);
        }
        for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            if (f.afterMs() <= clock && due(s, f)) {
                faults.remove(i);
                if (s.worker(f.worker()).state() == lumen.core.WorkerState.FAILED || !s.anotherUp(f.worker())) {
                    return null;   // the spec's guard: skipped, as the runtime skips it
                }
                if (f.paused()) {
                    // a gray failure: declared failed now, the zombie wakes pauseMs (here: steps) later
                    zombies.add(new double[] {f.worker(), s.worker(f.worker()).epoch(), clock + f.pauseMs()});
                }
                return () -> Core.fail(s, f.worker());
            }
        }
        return null;
    }

    /**
     * A woken zombie's next write (its next token to the gateway, or its next page to the holder,
     * for each request it served, each refused by the core's fences), then its stop; null when no
     * zombie is awake. A zombie a later failure of its worker replaced is gone.
     */
    private static Supplier<Step> zombieStep(ClusterState s, double clock, List<double[]> zombies) {
        for (int i = 0; i < zombies.size(); i++) {
            double[] zw = zombies.get(i);
            int w = (int) zw[0];
            lumen.core.Zombie z = s.worker(w).zombie();
            if (z == null || z.epoch() != (int) zw[1]) {
                zombies.remove(i--);
                continue;
            }
            if (clock < zw[2]) {
                continue;
            }
            for (int r : z.reqs().keys()) {
                lumen.core.Zombie.Req q = z.reqs().get(r);
                if (q.out() < q.refLen()) {
                    return () -> Core.zombieToken(s, w, r, q.out());
                }
                if (q.holder() >= 0 && q.next() <= q.kv().length()) {
                    return () -> Core.zombiePage(s, w, r, null);
                }
            }
            for (int r : z.held().keys()) {
                return () -> Core.zombieAck(s, w, r);
            }
            zombies.remove(i);
            return () -> Core.zombieStops(s, w);
        }
        return null;
    }

    /** Whether a failure's point of work has come for its worker. */
    private static boolean due(ClusterState s, Fault f) {
        int w = f.worker();
        WorkerRec rec = s.worker(w);
        return switch (f.point()) {
            case AT_TIME -> true;
            case MID_HANDOVER -> rec.state() == lumen.core.WorkerState.ASSISTING;
            case MID_VERIFY -> {
                boolean[] hit = {false};
                rec.runq().forEachKey(id -> hit[0] |= s.request(id).phase() == RequestPhase.DECODE && s.request(id).proposal() != null);
                yield hit[0];
            }
            case MID_PREFILL, MID_RESTORE, MID_DECODE -> {
                boolean[] hit = {false};
                rec.runq().forEachKey(id -> {
                    RequestRec r = s.request(id);
                    RequestPhase want = f.point() == Fault.Point.MID_DECODE ? RequestPhase.DECODE : RequestPhase.QUEUED;
                    boolean restoring = r.kv().length() > 0;
                    hit[0] |= r.phase() == want && (f.point() != Fault.Point.MID_RESTORE || restoring);
                });
                yield hit[0];
            }
            case MID_STREAM -> {
                boolean[] hit = {false};
                s.requests().forEachKey(id -> {
                    RequestRec r = s.request(id);
                    hit[0] |= (r.server() == w || r.holder() == w) && r.holder() >= 0 && r.ckpt().length() < r.kv().length();
                });
                yield hit[0];
            }
        };
    }

    /**
     * Where a stream from {@code have} positions may stop: a page boundary up to the written KV,
     * or the written KV itself (a copy takes pages as the server wrote them).
     */
    static int cut(int have, int kv, int pt, SplittableRandom rnd) {
        int boundaries = kv / pt - have / pt;
        int k = rnd.nextInt(boundaries + 1);
        int upTo = k < boundaries ? (have / pt + 1 + k) * pt : kv;
        return upTo > have ? upTo : kv;
    }

    /** One enabled step of the cluster itself, chosen at random; null when none is enabled. */
    private static Supplier<Step> choose(ClusterState s, SplittableRandom rnd, double agreement) {
        List<Supplier<Step>> options = new ArrayList<>();
        s.requests().forEachKey(id -> {
            RequestRec r = s.request(id);
            boolean live = r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.DECODE;
            boolean due = live && s.needsProtection(r);
            if (live && (!r.placed() || due) && s.isUp(r.server())) {
                options.add(() -> Core.place(s, id));
            }
            if (r.phase() == RequestPhase.QUEUED && r.placed() && !due && s.isUp(r.server())) {
                options.add(() -> Core.prefill(s, id));
            }
            if (r.phase() == RequestPhase.DECODE && r.outLen() < r.refLen() && r.kv().length() == r.kvLen() && !due) {
                options.add(() -> Core.decode(s, id));
            }
            if (r.phase() == RequestPhase.DECODE && r.outLen() == r.refLen()) {
                options.add(() -> Core.complete(s, id));
            }
            if (r.phase() == RequestPhase.INTERRUPTED && s.index().size() > 0) {
                options.add(() -> Core.route(s, id));
            }
            if (live && r.holder() >= 0 && r.ckpt().length() < r.kv().length()) {
                int upTo = s.streamUpTo(r.holder(), r.ckpt().length(), cut(r.ckpt().length(), r.kv().length(), s.config().pageTokens(), rnd));
                if (upTo > r.ckpt().length()) {
                    options.add(() -> Core.streamPage(s, id, upTo));
                }
            }
            if (live && r.backup() >= 0 && r.bckpt().length() < r.kv().length()) {
                int upTo = s.streamUpTo(r.backup(), r.bckpt().length(), cut(r.bckpt().length(), r.kv().length(), s.config().pageTokens(), rnd));
                if (upTo > r.bckpt().length()) {
                    options.add(() -> Core.streamBackupPage(s, id, upTo));
                }
            }
        });
        for (int w = 0; w < s.workerCount(); w++) {
            int ww = w;
            switch (s.worker(w).state()) {
                case FAILED -> options.add(() -> Core.restart(s, ww));
                case LOADING_DRAFT -> {
                    // the session target chosen at DraftReady, or left to the first proposal
                    boolean now = rnd.nextBoolean();
                    options.add(() -> Core.draftReady(s, ww, now));
                }
                case LOADING_FULL -> options.add(() -> Core.fullReady(s, ww));
                case ASSISTING -> {
                    options.add(() -> Core.fullReady(s, ww));
                    int r = Core.assistCandidate(s, ww);
                    if (r >= 0) {
                        int[] d = draft(s.request(r), s.config().k(), agreement, rnd);
                        options.add(() -> Core.assist(s, ww, r, d));
                    }
                }
                default -> { }
            }
        }
        return options.isEmpty() ? null : options.get(rnd.nextInt(options.size()));
    }

    /** A draft whose tokens each agree with the reference with probability {@code agreement}. */
    private static int[] draft(RequestRec r, int k, double agreement, SplittableRandom rnd) {
        int[] d = new int[1 + rnd.nextInt(k)];
        for (int i = 0; i < d.length; i++) {
            int pos = r.outLen() + i;
            int right = pos < r.refLen() ? r.ref()[pos] : 7;
            d[i] = rnd.nextDouble() < agreement ? right : right + 1;
        }
        return d;
    }
}
