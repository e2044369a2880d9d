package lumen.props;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import lumen.core.Policies;
import org.junit.jupiter.api.Test;

/**
 * Every property after every step of the runtime, over random failure schedules under every
 * registered reference policy. By default it runs for {@code lumen.runtimeSeconds} (100 s, and at
 * least 10,000 schedules); {@code -Dlumen.trials=N} runs exactly N schedules instead;
 * {@code -Dlumen.seed=S} replays from seed S. The coverage shares are asserted, so the generator
 * cannot silently become trivial.
 */
class RuntimePropertiesTest {

    @Test
    void everyPropertyHoldsOnRandomFailureSchedules() {
        ScheduleGenerator gen = new ScheduleGenerator(Policies.keys().stream().filter(k -> !k.startsWith("mutant-")).toList());
        long first = Harness.firstSeed(1);
        long t0 = System.nanoTime();
        Harness.Result r;
        String trials = System.getProperty("lumen.trials");
        if (trials != null && !trials.isBlank()) {
            r = Harness.run(gen, first, Long.parseLong(trials.trim()));
        } else {
            long budget = (long) (Double.parseDouble(System.getProperty("lumen.runtimeSeconds", "100")) * 1e9);
            r = Harness.run(gen, first, 1, Long.MAX_VALUE, t0 + budget, () -> false);
            if (r.failure == null && r.schedules < 10_000) {
                Harness.Result more = Harness.run(gen, first + r.schedules, 10_000 - r.schedules);
                r.schedules += more.schedules;
                r.events += more.events;
                more.coverage.forEach((k, v) -> r.coverage.merge(k, v, Long::sum));
                r.failure = more.failure;
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        Harness.Result res = r;
        System.out.printf("runtime: %s%.1f s, %.0f schedules/s%n", r.coverageTable(), secs, r.schedules / secs);
        assertNull(r.failure, () -> res.failure.report());
        for (PropertyCheck.Feature f : PropertyCheck.Feature.values()) {
            assertTrue(r.share(f) >= 0.02, () -> "coverage of " + f + " fell to " + res.share(f) + "\n" + res.coverageTable());
        }
    }
}
