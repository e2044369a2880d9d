package lumen.props;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import lumen.conform.sut.Mutants;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seeded bugs in the Java implementation, in process: the harness must find each with its
 * property ID and shrink it to a small schedule. The same bugs, as separate programs, are the
 * mutant implementations that lumen conform catches through the process boundary.
 */
class HarnessFindsSeededBugsTest {

    @ParameterizedTest
    @EnumSource(Mutants.class)
    void eachSeededBugIsFoundWithItsPropertyAndShrunk(Mutants m) {
        Harness.Result r = Harness.run(new ScheduleGenerator(List.of("lumen")), 1, 1, 2_000, Long.MAX_VALUE, () -> false,
                sc -> PropertyCheck.run(sc, m));
        assertNotNull(r.failure, m + ": the harness found nothing in " + r.schedules + " schedules");
        System.out.printf("%-28s %-4s found at seed %d, shrunk to %d requests and %d failures%n%s%n", m.programName(), m.expected(),
                r.failure.seed(), r.failure.minimal().arrivals().size(), r.failure.minimal().faults().size(), r.failure.report());
        assertEquals(m.expected(), String.valueOf(r.failure.property()), r.failure::report);
        assertTrue(r.failure.minimal().arrivals().size() <= 4 && r.failure.minimal().faults().size() <= 2,
                () -> "not shrunk far enough: " + r.failure.report());
    }
}
