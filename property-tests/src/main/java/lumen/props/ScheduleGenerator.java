package lumen.props;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.core.Readings;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;
import lumen.workload.Lengths;

/**
 * Seeded generator of failure schedules: 2 to 8 workers; arrivals whose (prompt, output) lengths
 * are drawn from the real traces shipped with the kit (ShareGPT, arXiv summarisation, Azure conv
 * and code; {@link Lengths}), scaled down by {@link #LENGTH_SCALE} so a schedule stays small, or
 * from a short synthetic distribution for tiny requests; failures of every kind the spec allows (single, concurrent up to |W|-1, of a
 * checkpoint holder, during recovery, during the handover, the same worker again, at any point
 * of its work); budgets from starved to ample; draft agreement from 0 to 1; one schedule in three
 * with load sustained through the reload (requests still decoding at the handover). The same seed gives
 * the same schedule.
 */
public final class ScheduleGenerator {
    /** The points of work the schedule's main failures are drawn from (a draft in flight is aimed at apart, last). */
    private static final Fault.Point[] POINTS = {Fault.Point.AT_TIME, Fault.Point.MID_PREFILL, Fault.Point.MID_DECODE,
        Fault.Point.MID_STREAM, Fault.Point.MID_RESTORE, Fault.Point.MID_HANDOVER};

    /**
     * Real lengths are divided by this: a request of 1,730 prompt tokens and 415 output tokens
     * (ShareGPT's medians) becomes 108 and 26 positions. The distribution's shape (tails, the
     * prompt/output correlation, each trace's ratio) is kept; only the unit changes.
     */
    public static final int LENGTH_SCALE = 16;

    private static final Lengths.Source[] SOURCES = Lengths.Source.values();

    private final List<String> policies;
    /** The readings every schedule is run under, or null: each schedule draws its own. */
    private final Readings readings;
    /** Whether a schedule's failures may be gray (a pause: the worker wakes a zombie), {@link #withGrayFailures}. */
    private boolean gray;

    /**
     * This generator, its schedules' failures gray one time in two ({@code on}): the worker
     * stalls, is declared failed, and wakes 20 to 520 ms later with its old state. Drawn from a
     * stream of the seed's own, so a seed's schedule is otherwise the same as without.
     */
    public ScheduleGenerator withGrayFailures(boolean on) {
        this.gray = on;
        return this;
    }

    /** Whether schedules may have gray failures. */
    public boolean grayFailures() {
        return gray;
    }

    /** Schedules under the default readings (what a conformance run claims unless told otherwise). */
    public ScheduleGenerator(List<String> policies) {
        this(policies, Readings.DEFAULT);
    }

    /** Schedules under the given readings, or, with null, each under readings drawn from its seed. */
    public ScheduleGenerator(List<String> policies, Readings readings) {
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("at least one policy");
        }
        this.policies = List.copyOf(policies);
        this.readings = readings;
    }

    /** A generator whose schedules draw their readings too: one in two keeps the default. */
    public static ScheduleGenerator withDrawnReadings(List<String> policies) {
        return new ScheduleGenerator(policies, null);
    }

    private static Readings drawReadings(SplittableRandom r) {
        if (r.nextBoolean()) {
            return Readings.DEFAULT;
        }
        return new Readings(r.nextBoolean() ? Readings.QueueDepth.RUN : Readings.QueueDepth.WAITING,
                r.nextBoolean() ? Readings.RingDirection.NEXT : Readings.RingDirection.PREVIOUS, r.nextBoolean(), r.nextBoolean(),
                r.nextBoolean() ? Readings.AssistTarget.SESSION : Readings.AssistTarget.PROPOSAL,
                r.nextBoolean() ? Readings.RouteLoads.RECOMPUTE : Readings.RouteLoads.INCREMENT,
                r.nextBoolean() ? Readings.Budget.RESERVE : Readings.Budget.STORED, drawCitedLoads(r),
                Readings.Arrival.SHORTEST);
    }

    /** Exact loads one time in two, else a monitor at most 1, 2 or 4 events or 50 ms behind. */
    private static Readings.CitedLoads drawCitedLoads(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0 -> new Readings.CitedLoads(1, false);
            case 1 -> new Readings.CitedLoads(2, false);
            case 2 -> new Readings.CitedLoads(4, false);
            case 3 -> new Readings.CitedLoads(50, true);
            default -> Readings.CitedLoads.EXACT;
        };
    }

    /** Log-normal-ish lengths: mostly short, sometimes long, as real prompts and outputs are. */
    private static int length(SplittableRandom r, int median, int max) {
        double x = median * Math.exp(0.8 * r.nextGaussian());
        return (int) Math.max(1, Math.min(max, Math.round(x)));
    }

    /** A (prompt, output) pair: from the real trace, scaled, or from the synthetic distribution. */
    private static int[] lengths(SplittableRandom r, Lengths real) {
        if (real == null) {
            int prompt = length(r, 40, 400);
            return new int[] {prompt, length(r, 40, 240)};
        }
        int[] pair = real.sample(r);
        return new int[] {Math.max(1, Math.min(512, Math.round(pair[0] / (float) LENGTH_SCALE))),
                Math.max(1, Math.min(256, Math.round(pair[1] / (float) LENGTH_SCALE)))};
    }

    public Schedule generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int w = 2 + r.nextInt(7);
        String policy = policies.get(r.nextInt(policies.size()));
        int n = 1 + r.nextInt(12);
        int src = r.nextInt(SOURCES.length + 1);
        Lengths real = src < SOURCES.length ? Lengths.of(SOURCES[src]) : null;
        List<Arrival> arrivals = new ArrayList<>();
        double t = 0;
        long total = 0;
        for (int i = 0; i < n; i++) {
            int[] po = lengths(r, real);
            total += po[0] + po[1];
            arrivals.add(new Arrival(i, t, po[0], po[1], r.nextLong()));
            t += r.nextDouble() * 40;
        }
        // budget pressure: from less than one request per holder to all of them
        long budget = switch (r.nextInt(4)) {
            case 0 -> total / Math.max(1, 2L * n);
            case 1 -> total / w;
            default -> total * 2;
        };
        double theta = r.nextInt(3) == 0 ? 0 : r.nextDouble() * 600;
        int tau = r.nextInt(3) == 0 ? 100_000 : r.nextInt(200);
        int pageTokens = new int[] {4, 8, 16}[r.nextInt(3)];
        Config cfg = new Config(policy, w, 1 + r.nextInt(2), 1 + r.nextInt(8), theta, tau, budget, pageTokens, 1 + r.nextInt(5));
        List<Fault> faults = new ArrayList<>();
        int kinds = r.nextInt(5);
        for (int k = 0; k < kinds; k++) {
            Fault.Point p = POINTS[r.nextInt(POINTS.length)];
            int victim = r.nextInt(w);
            double at = r.nextDouble() * 400;
            faults.add(new Fault(victim, at, p));
            if (r.nextInt(4) == 0 && w > 2) {
                // a concurrent failure of another worker at the same moment
                faults.add(new Fault((victim + 1 + r.nextInt(w - 1)) % w, at, Fault.Point.AT_TIME));
            }
            if (r.nextInt(4) == 0) {
                // the same worker again, later: during its recovery or after it
                faults.add(new Fault(victim, at + 50 + r.nextDouble() * 2000, r.nextBoolean() ? Fault.Point.MID_HANDOVER : Fault.Point.AT_TIME));
            }
        }
        double agreement = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> 1;
            default -> r.nextDouble();
        };
        if (r.nextInt(3) == 0) {
            // sustained load: requests keep arriving, about one per 200 ms for one to two seconds,
            // so requests are still decoding when a failed worker's full model is ready and the
            // handover meets drafts in flight (drawn last: the rest of the schedule is the same)
            int more = 4 + r.nextInt(9);
            for (int i = 0; i < more; i++) {
                t += r.nextDouble() * 400;
                int[] po = lengths(r, real);
                arrivals.add(new Arrival(n + i, t, po[0], po[1], r.nextLong()));
            }
        }
        // drawn after everything else, so a schedule's seed gives the same schedule as before
        Readings drawn = readings != null ? readings : drawReadings(r);
        if (r.nextInt(4) == 0) {
            // a failure of a worker while it verifies a draft (an assist target): the draft in flight is
            // dropped with the request it was made for (drawn last, after the readings)
            faults.add(new Fault(r.nextInt(w), r.nextDouble() * 2000, Fault.Point.MID_VERIFY));
        }
        if (readings == null && !drawn.equals(Readings.DEFAULT) && r.nextBoolean()) {
            // the arrival reading, drawn after everything else so that a seed's earlier draws stay
            // what they were before the reading existed
            drawn = drawn.with("arrival", "any");
        }
        cfg = cfg.withReadings(drawn);
        if (gray) {
            SplittableRandom g = new SplittableRandom(seed ^ 0x67A7F41L);
            for (int i = 0; i < faults.size(); i++) {
                if (g.nextBoolean()) {
                    // a gray failure: one in two a pause, else a partition from the gateway (one in two of those lossy)
                    Fault f = faults.get(i);
                    double forMs = 20 + g.nextDouble() * 500;
                    int kind = g.nextInt(4);
                    faults.set(i, new Fault(f.worker(), f.afterMs(), f.point(), forMs,
                            kind < 2 ? Fault.Partition.NONE : kind == 2 ? Fault.Partition.DELAYED : Fault.Partition.LOST));
                }
            }
        }
        return new Schedule(cfg, agreement, arrivals, faults,
                real == null ? "synthetic (log-normal, median 40)" : real.source().name().toLowerCase(java.util.Locale.ROOT) + " / " + LENGTH_SCALE);
    }
}
