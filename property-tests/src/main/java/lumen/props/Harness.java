package lumen.props;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import lumen.core.PropertyId;

/**
 * Runs schedules from consecutive seeds, checks each with {@link PropertyCheck}, keeps coverage
 * statistics, and on the first failure shrinks it and reports the seed and the minimal schedule.
 * {@code -Dlumen.seed=N} makes {@link #seeds} start at N, to replay one case exactly.
 */
public final class Harness {

    /** A failure found: its seed, its property, the shrunk schedule and what failed there. */
    public record Failure(long seed, PropertyCheck.Outcome outcome, Schedule minimal, PropertyCheck.Outcome minimalOutcome) {
        public PropertyId property() {
            return minimalOutcome.violation().property();
        }

        public String report() {
            return String.format(Locale.ROOT, "property failed: %s%n  seed: %d (replay with -Dlumen.seed=%d)%n  at: %s%n"
                            + "  minimal schedule (%d requests, %d failures):%n%s",
                    minimalOutcome.violation(), seed, seed, minimalOutcome.where(), minimal.arrivals().size(), minimal.faults().size(),
                    minimal.describe().indent(4));
        }
    }

    /** What a run of many schedules found. */
    public static final class Result {
        public long schedules;
        public long events;
        public final Map<PropertyCheck.Feature, Long> coverage = new EnumMap<>(PropertyCheck.Feature.class);
        public Failure failure;

        public double share(PropertyCheck.Feature f) {
            return schedules == 0 ? 0 : coverage.getOrDefault(f, 0L) / (double) schedules;
        }

        public String coverageTable() {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d schedules, %d events%n", schedules, events));
            for (PropertyCheck.Feature f : PropertyCheck.Feature.values()) {
                b.append(String.format(Locale.ROOT, "  %-26s %5.1f%%%n", f.name().toLowerCase(Locale.ROOT).replace('_', ' '), 100 * share(f)));
            }
            return b.toString();
        }
    }

    private Harness() {}

    /** The first seed: {@code -Dlumen.seed} when set, else {@code dflt}. */
    public static long firstSeed(long dflt) {
        String s = System.getProperty("lumen.seed");
        return s == null || s.isBlank() ? dflt : Long.parseLong(s.trim());
    }

    /** Runs {@code count} schedules from seed {@code first} on, stopping at the first failure. */
    public static Result run(ScheduleGenerator gen, long first, long count) {
        return run(gen, first, 1, count, Long.MAX_VALUE, () -> false);
    }

    /** As {@link #run(ScheduleGenerator, long, long)}, checking each schedule with {@code check}. */
    public static Result run(ScheduleGenerator gen, long first, long count, Function<Schedule, PropertyCheck.Outcome> check) {
        return run(gen, first, 1, count, Long.MAX_VALUE, () -> false, check);
    }

    /**
     * Runs schedules from seed {@code first} on, every {@code stride}-th seed (so that parallel
     * runs shard the seeds), until {@code count} schedules, the {@code deadlineNanos} of
     * {@link System#nanoTime()}, the first failure, or {@code stop} says so.
     */
    public static Result run(ScheduleGenerator gen, long first, long stride, long count, long deadlineNanos,
                             java.util.function.BooleanSupplier stop) {
        return run(gen, first, stride, count, deadlineNanos, stop, PropertyCheck::run);
    }

    /**
     * Runs schedules for {@code seconds}, and at least {@code atLeast} of them (so that coverage
     * shares stay meaningful on a slow machine), stopping at the first failure.
     */
    public static Result runFor(ScheduleGenerator gen, long first, double seconds, long atLeast,
                                Function<Schedule, PropertyCheck.Outcome> check) {
        Result r = run(gen, first, 1, Long.MAX_VALUE, System.nanoTime() + (long) (seconds * 1e9), () -> false, check);
        if (r.failure == null && r.schedules < atLeast) {
            Result more = run(gen, first + r.schedules, 1, atLeast - r.schedules, Long.MAX_VALUE, () -> false, check);
            r.schedules += more.schedules;
            r.events += more.events;
            more.coverage.forEach((k, v) -> r.coverage.merge(k, v, Long::sum));
            r.failure = more.failure;
        }
        return r;
    }

    /**
     * The general form: {@code check} runs one schedule and checks it, on the runtime
     * ({@link PropertyCheck#run}) or on the decision core alone ({@link CoreRunner#run}).
     */
    public static Result run(ScheduleGenerator gen, long first, long stride, long count, long deadlineNanos,
                             java.util.function.BooleanSupplier stop, Function<Schedule, PropertyCheck.Outcome> check) {
        Result res = new Result();
        for (long i = 0, seed = first; i < count && System.nanoTime() < deadlineNanos && !stop.getAsBoolean(); i++, seed += stride) {
            Schedule sc = gen.generate(seed);
            PropertyCheck.Outcome o = check.apply(sc);
            res.schedules++;
            res.events += o.events();
            for (PropertyCheck.Feature f : o.features()) {
                res.coverage.merge(f, 1L, Long::sum);
            }
            if (!o.passed()) {
                PropertyId id = o.violation().property();
                String msg = o.violation().message();
                Schedule min = Shrinker.shrink(sc, c -> {
                    PropertyCheck.Outcome x = check.apply(c);
                    return !x.passed() && x.violation().property() == id
                            && (id != null || x.violation().message().equals(msg));
                });
                res.failure = new Failure(seed, o, min, check.apply(min));
                return res;
            }
        }
        return res;
    }
}
