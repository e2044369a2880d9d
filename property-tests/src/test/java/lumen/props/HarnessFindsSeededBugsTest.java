package lumen.props;

import static org.assertj.core.api.Assertions.assertThat;

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
        Harness.Result r = Harness.run(new ScheduleGenerator(m.policies(), m.claims()).withGrayFailures(m.gray()), 1, 1, 2_000, Long.MAX_VALUE, () -> false,
                sc -> PropertyCheck.run(sc, m));
        assertThat(r.failure).as(m + ": the harness found nothing in " + r.schedules + " schedules").isNotNull();
        System.out.printf("%-28s %-4s found at seed %d, shrunk to %d requests and %d failures%n%s%n", m.programName(), m.expected(),
                r.failure.seed(), r.failure.minimal().arrivals().size(), r.failure.minimal().faults().size(), r.failure.report());
        // in process, an unfinished trace is an unfinished run: L1 (conformance names it INCOMPLETE)
        String want = switch (m.expected()) {
            case "INCOMPLETE" -> "L1";
            case "step" -> "null";
            default -> m.expected();
        };
        assertThat(String.valueOf(r.failure.property())).as(r.failure::report).isEqualTo(want);
        // an assist left undone shows only over recoveries long enough to hold F decode steps of one request
        int failures = m == Mutants.NEVER_ASSISTS ? 3 : 2;
        // a backup lags its holder only while the server's stream queue is busy with other requests' pages;
        // a ring neighbour is full only once several requests hold their checkpoints on it;
        // an assist target stops being the most loaded only once other requests load another worker;
        // a re-prefill has a loaded worker to go to only once other requests load it
        int requests = m == Mutants.FC_REPREFILL_ANYWHERE ? 8
                : m == Mutants.PROMOTES_HOLDER_COPY || m == Mutants.RING_NO_FALL_THROUGH || m == Mutants.ASSIST_RETARGETS ? 6 : 4;
        assertThat(r.failure.minimal().arrivals().size() <= requests && r.failure.minimal().faults().size() <= failures)
                .as(() -> "not shrunk far enough: " + r.failure.report()).isTrue();
    }
}
