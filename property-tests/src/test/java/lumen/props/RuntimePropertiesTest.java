package lumen.props;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import lumen.core.Policies;
import org.junit.jupiter.api.Test;

/**
 * Every property after every step of the runtime, over random failure schedules under every
 * registered reference policy. {@code -Dlumen.trials=N} sets the number of schedules;
 * {@code -Dlumen.seed=S} replays from seed S. The coverage shares are asserted, so the generator
 * cannot silently become trivial.
 */
class RuntimePropertiesTest {

    @Test
    void everyPropertyHoldsOnRandomFailureSchedules() {
        long trials = Long.getLong("lumen.trials", 10_000);
        ScheduleGenerator gen = new ScheduleGenerator(Policies.keys().stream().filter(k -> !k.startsWith("mutant-")).toList());
        long t0 = System.nanoTime();
        Harness.Result r = Harness.run(gen, Harness.firstSeed(1), trials);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%s%.1f s, %.0f schedules/s%n", r.coverageTable(), secs, r.schedules / secs);
        assertNull(r.failure, () -> r.failure.report());
        for (PropertyCheck.Feature f : PropertyCheck.Feature.values()) {
            assertTrue(r.share(f) >= 0.02, () -> "coverage of " + f + " fell to " + r.share(f) + "\n" + r.coverageTable());
        }
    }
}
