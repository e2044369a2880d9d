package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
        assertThat(fs).hasSize(3);
        assertThat(fs.stream().map(SimResult.Failure::atMs).toList()).isEqualTo(List.of(100_000.0, 120_000.0, 140_000.0));
        fs.forEach(f -> assertThat(f.workers()).hasSize(2));
        assertThat(fs.stream().map(f -> Arrays.toString(f.workers())).distinct().count()).as("fresh draws differ across events").isGreaterThan(1);
        assertThat(exp("fail_events=0").failures()).isEmpty();
    }

    @Test
    void sameRepeatsTheFirstEventsWorkers() throws IOException {
        List<SimResult.Failure> fs = exp("fail_events=4", "fail_every_s=10", "fail_workers=same", "workers=8").failures();
        for (SimResult.Failure f : fs) {
            assertThat(f.workers()).isEqualTo(fs.get(0).workers());
        }
        assertThat(fs.get(0).workers()).as("the first event is the single failure's").isEqualTo(exp("workers=8").failures().get(0).workers());
    }

    @Test
    void randomTimesArePoissonGapsFixedBySeed() throws IOException {
        List<SimResult.Failure> a = exp("fail_events=50", "fail_every_s=30", "fail_times=random").failures();
        List<SimResult.Failure> b = exp("fail_events=50", "fail_every_s=30", "fail_times=random").failures();
        List<SimResult.Failure> c = exp("fail_events=50", "fail_every_s=30", "fail_times=random", "seed=2").failures();
        assertThat(b.stream().map(SimResult.Failure::atMs).toList()).isEqualTo(a.stream().map(SimResult.Failure::atMs).toList());
        assertThat(c.stream().map(SimResult.Failure::atMs).toList()).isNotEqualTo(a.stream().map(SimResult.Failure::atMs).toList());
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < a.size(); i++) {
            gaps.add(a.get(i).atMs() - a.get(i - 1).atMs());
        }
        assertThat(gaps).allMatch(g -> g > 0);
        double mean = gaps.stream().mapToDouble(g -> g).average().orElseThrow() / 1000;
        assertThat(mean > 15 && mean < 60).as("mean gap near 30 s, was " + mean).isTrue();
        assertThat(gaps.stream().distinct().count()).as("gaps vary").isGreaterThan(40);
    }

    @Test
    void badFailureKeysNameWhereTheValueCameFrom() {
        SimConfig.BadValue e = assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> exp("fail_times=sometimes").failures()).actual();
        assertThat(e.getMessage()).isEqualTo("--set fail_times=sometimes: key 'fail_times' must be fixed or random, found 'sometimes'");
        e = assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> exp("fail_events=2", "fail_every_s=0").failures()).actual();
        assertThat(e.getMessage()).startsWith("--set fail_every_s=0: key 'fail_every_s' must be positive");
        e = assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> exp("fail_holder=true", "fail_fraction=0.75").failures()).actual();
        assertThat(e.getMessage()).contains("would leave none up");
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
        assertThat(lumen).as("the planned worker and its busiest holder").hasSize(2);
        assertThat(lumen.get(0).worker()).isEqualTo(plan.workers()[0]);
        int holder = lumen.get(1).worker();
        assertThat(holder).isNotEqualTo(plan.workers()[0]);
        assertThat(holder).as("in this setup the holder is not the fallback, so the test tells them apart").isNotEqualTo(plan.fallback());
        // failing with them, before their routing, the holder takes their checkpoints with it: they are orphaned
        List<Integer> first = Arrays.stream(lumen.get(0).interrupted()).boxed().toList();
        assertThat(Arrays.stream(lumen.get(1).orphaned()).anyMatch(first::contains))
                .as("the holder's failure orphans checkpoints of the failed worker's requests: " + first + " vs " + Arrays.toString(lumen.get(1).orphaned())).isTrue();
        List<Event.Fail> sr = fails(e, "stop-and-restart");
        assertThat(sr).as("without checkpoints the fallback fails, so every policy loses as many workers").hasSize(2);
        assertThat(sr.get(1).worker()).isEqualTo(plan.fallback());
    }
}
