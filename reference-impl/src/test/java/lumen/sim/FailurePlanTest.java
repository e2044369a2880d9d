package lumen.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import lumen.core.Event;
import org.junit.jupiter.api.Test;

/** The failure plans of {@code lumen simulate}: repeated, random, same-worker and holder failures. */
class FailurePlanTest {

    private static SimConfig.Experiment exp(String... sets) throws IOException {
        return SimConfig.load(null, null, List.of(sets)).expand().get(0);
    }

    @Test
    void fixedEventsComeEveryIntervalAndDrawFreshWorkers() throws IOException {
        List<SimResult.Failure> fs = exp("fail_events=3", "fail_every_s=20", "workers=8", "fail_fraction=0.25").failures();
        assertEquals(3, fs.size());
        assertEquals(List.of(100_000.0, 120_000.0, 140_000.0), fs.stream().map(SimResult.Failure::atMs).toList());
        fs.forEach(f -> assertEquals(2, f.workers().length));
        assertTrue(fs.stream().map(f -> Arrays.toString(f.workers())).distinct().count() > 1, "fresh draws differ across events");
        assertTrue(exp("fail_events=0").failures().isEmpty());
    }

    @Test
    void sameRepeatsTheFirstEventsWorkers() throws IOException {
        List<SimResult.Failure> fs = exp("fail_events=4", "fail_every_s=10", "fail_workers=same", "workers=8").failures();
        for (SimResult.Failure f : fs) {
            assertArrayEquals(fs.get(0).workers(), f.workers());
        }
        assertArrayEquals(exp("workers=8").failures().get(0).workers(), fs.get(0).workers(), "the first event is the single failure's");
    }

    @Test
    void randomTimesArePoissonGapsFixedBySeed() throws IOException {
        List<SimResult.Failure> a = exp("fail_events=50", "fail_every_s=30", "fail_times=random").failures();
        List<SimResult.Failure> b = exp("fail_events=50", "fail_every_s=30", "fail_times=random").failures();
        List<SimResult.Failure> c = exp("fail_events=50", "fail_every_s=30", "fail_times=random", "seed=2").failures();
        assertEquals(a.stream().map(SimResult.Failure::atMs).toList(), b.stream().map(SimResult.Failure::atMs).toList());
        assertNotEquals(a.stream().map(SimResult.Failure::atMs).toList(), c.stream().map(SimResult.Failure::atMs).toList());
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < a.size(); i++) {
            gaps.add(a.get(i).atMs() - a.get(i - 1).atMs());
        }
        assertTrue(gaps.stream().allMatch(g -> g > 0));
        double mean = gaps.stream().mapToDouble(g -> g).average().orElseThrow() / 1000;
        assertTrue(mean > 15 && mean < 60, "mean gap near 30 s, was " + mean);
        assertTrue(gaps.stream().distinct().count() > 40, "gaps vary");
    }

    @Test
    void badFailureKeysNameWhereTheValueCameFrom() {
        SimConfig.BadValue e = assertThrows(SimConfig.BadValue.class, () -> exp("fail_times=sometimes").failures());
        assertEquals("--set fail_times=sometimes: key 'fail_times' must be fixed or random, found 'sometimes'", e.getMessage());
        e = assertThrows(SimConfig.BadValue.class, () -> exp("fail_events=2", "fail_every_s=0").failures());
        assertTrue(e.getMessage().startsWith("--set fail_every_s=0: key 'fail_every_s' must be positive"), e.getMessage());
        e = assertThrows(SimConfig.BadValue.class, () -> exp("fail_holder=true", "fail_fraction=0.75").failures());
        assertTrue(e.getMessage().contains("would leave none up"), e.getMessage());
    }

    /** The Fail events of one run, in order. */
    private static List<Event.Fail> fails(SimConfig.Experiment e, String policy) {
        List<Event.Fail> out = new ArrayList<>();
        new Simulator(e.options(policy), (ev, t) -> {
            if (ev instanceof Event.Fail f) {
                out.add(f);
            }
        }).run(e.arrivals(), e.failures());
        return out;
    }

    @Test
    void aHolderFailureTakesTheHolderOfTheFailedWorkersRequests() throws IOException {
        SimConfig.Experiment e = exp("fail_holder=true", "rate_scale=3", "duration_s=60", "fail_at_s=30", "theta=1000000000", "tau=0", "seed=3");
        SimResult.Failure plan = e.failures().get(0);
        List<Event.Fail> lumen = fails(e, "lumen");
        assertEquals(2, lumen.size(), "the planned worker and its busiest holder");
        assertEquals(plan.workers()[0], lumen.get(0).worker());
        int holder = lumen.get(1).worker();
        assertNotEquals(plan.workers()[0], holder);
        assertNotEquals(plan.fallback(), holder, "in this setup the holder is not the fallback, so the test tells them apart");
        // failing with them, before their routing, the holder takes their checkpoints with it: they are orphaned
        List<Integer> first = Arrays.stream(lumen.get(0).interrupted()).boxed().toList();
        assertTrue(Arrays.stream(lumen.get(1).orphaned()).anyMatch(first::contains),
                "the holder's failure orphans checkpoints of the failed worker's requests: " + first + " vs " + Arrays.toString(lumen.get(1).orphaned()));
        List<Event.Fail> sr = fails(e, "stop-and-restart");
        assertEquals(2, sr.size(), "without checkpoints the fallback fails, so every policy loses as many workers");
        assertEquals(plan.fallback(), sr.get(1).worker());
    }
}
