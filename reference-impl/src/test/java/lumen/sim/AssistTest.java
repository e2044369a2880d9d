package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.core.Event;
import lumen.runtime.Arrival;
import lumen.workload.Lengths;
import org.junit.jupiter.api.Test;

/**
 * The assist as the driver runs it: rounds of drafts for every decoding request on the target,
 * verified in the target's next iteration as extra tokens of its forward pass, and credited when
 * that iteration ends. A draft that is never accepted costs time and gains none; a draft that is
 * always accepted gains it.
 */
class AssistTest {
    private static final Preset PRESET = Preset.QWEN3_32B_4W;
    private static final List<Arrival> ARRIVALS = new SyntheticWorkload(3, 1, Lengths.Source.SHAREGPT).arrivals(30_000, new SplittableRandom(1));

    private record Run(SimResult result, List<Event> events, List<Double> times) {
        /** Mean time from arrival to the last token, ms. */
        double meanLatency() {
            return result.requests.stream().mapToDouble(q -> q.doneMs - q.arriveMs).average().orElseThrow();
        }

        long count(Class<? extends Event> type) {
            return events.stream().filter(type::isInstance).count();
        }
    }

    private static Run run(String policy, double acceptance) {
        Config c = new Config(policy, PRESET.defaultWorkers, 1, 1, 2_000, 256, PRESET.budgetPositions(), 16, 4);
        List<Event> events = new ArrayList<>();
        List<Double> times = new ArrayList<>();
        SimResult r = new Simulator(new Simulator.Options(c, PRESET.costModel(), 512, 64, acceptance, acceptance, 1, 0, 1), (e, t) -> {
            events.add(e);
            times.add(t);
        }).run(ARRIVALS, List.of(new SimResult.Failure(10_000, new int[] {0})));
        return new Run(r, events, times);
    }

    @Test
    void aDraftNeverAcceptedCostsTimeAndGainsNoToken() {
        Run none = run("lumen-no-assist", 0);
        Run zero = run("lumen", 0);
        assertThat(zero.count(Event.Assist.class)).as("the recovering worker proposed drafts").isGreaterThan(100);
        assertThat(none.count(Event.Assist.class)).isZero();
        assertThat(zero.result().drafts).as("every draft was verified and none of its tokens kept")
                .isNotEmpty().allMatch(d -> d.accepted() == 0);
        assertThat(zero.meanLatency()).as("verifying drafts that are all rejected slows the target")
                .isGreaterThan(none.meanLatency());
    }

    @Test
    void aDraftAlwaysAcceptedSpeedsTheTargetUp() {
        Run none = run("lumen-no-assist", 0);
        Run full = run("lumen", 1);
        assertThat(full.result().drafts).as("every token of every draft kept, unless the output ended first")
                .isNotEmpty().anyMatch(d -> d.accepted() == d.proposed());
        assertThat(full.meanLatency()).isLessThan(none.meanLatency());
    }

    /**
     * A draft becomes a step when its target starts an iteration, and the Decode that credits it
     * ends that iteration: at least a whole decode step later. A draft that landed in an iteration
     * already running, and was credited when it ended, would come sooner.
     */
    @Test
    void aDraftIsCreditedOnlyByTheIterationThatVerifiesIt() {
        Run full = run("lumen", 1);
        double step = PRESET.costModel().decodeMs(1, 0);
        Map<Integer, Double> proposedAt = new HashMap<>();
        int credited = 0;
        for (int i = 0; i < full.events().size(); i++) {
            Event e = full.events().get(i);
            double t = full.times().get(i);
            if (e instanceof Event.Assist a) {
                proposedAt.put(a.req(), t);
            } else if (e instanceof Event.Decode d && proposedAt.containsKey(d.req())) {
                double at = proposedAt.remove(d.req());
                assertThat(t - at).as("request " + d.req() + "'s draft, proposed at " + at + " ms, credited at " + t + " ms")
                        .isGreaterThanOrEqualTo(step);
                credited++;
            }
        }
        assertThat(credited).isGreaterThan(100);
    }
}
