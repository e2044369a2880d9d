package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.runtime.Arrival;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import lumen.workload.Lengths;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimulatorTest {

    @ParameterizedTest
    @CsvSource({"lumen,0", "lumen,1000", "lumen-dual,0", "lumen-dual,1000", "stop-and-restart,0", "stop-and-restart,1000",
            "fixed-checkpointing,0", "fixed-checkpointing,1000", "lumen-no-routing,1000"})
    void aSimulatedFailureIsAValidTraceAndEveryRequestCompletes(String policy, double detectMs) {
        Preset p = Preset.QWEN3_32B_4W;
        Config c = new Config(policy, p.defaultWorkers, 1, 1, 2_000, 256, p.budgetPositions(), 16, 4);
        List<Arrival> arrivals = new SyntheticWorkload(3, 1, Lengths.Source.SHAREGPT).arrivals(30_000, new SplittableRandom(1));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        SimResult r;
        try (TraceWriter w = new TraceWriter(buf, c)) {
            r = new Simulator(new Simulator.Options(c, p.costModel(), 512, 64, 0.7, 0.35, 50, detectMs, 1), (e, t) -> {
                try {
                    w.write(e, t);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }).run(arrivals, List.of(new SimResult.Failure(10_000, new int[] {0})));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        ValidationResult v;
        try {
            v = Validator.validate(new ByteArrayInputStream(buf.toByteArray()), policy);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        assertThat(v.verdict()).as(() -> String.valueOf(v.divergence())).isEqualTo(Verdict.ACCEPTED);
        assertThat(r.requests).hasSize(arrivals.size());
        assertThat(r.requests).as("every request completes").allMatch(q -> !Double.isNaN(q.doneMs));
        long interrupted = r.requests.stream().filter(q -> q.interrupted).count();
        assertThat(interrupted).as("the failure interrupted someone").isGreaterThan(0);
        double ttft = r.requests.stream().mapToDouble(SimResult.Req::ttftMs).average().orElseThrow();
        if (detectMs > 0) {
            double earliest = r.requests.stream().filter(q -> q.interrupted).mapToDouble(SimResult.Req::replayTtftMs).min().orElseThrow();
            assertThat(earliest).as("no replay before the failure is detected: " + earliest + " ms").isGreaterThanOrEqualTo(detectMs);
        }
        System.out.printf("%s: %d requests, %d interrupted, %d restored, mean TTFT %.0f ms, %d events, %d drafts, %.2f s wall%n", policy,
                r.requests.size(), interrupted, r.requests.stream().filter(q -> q.restored).count(), ttft, r.events, r.drafts.size(), r.wallSeconds);
    }

    /** Most requests admitted (first token given, not done) at once over the run. */
    private static int mostAdmitted(SimResult r) {
        int most = 0;
        for (SimResult.Req a : r.requests) {
            int n = 0;
            for (SimResult.Req b : r.requests) {
                if (b.firstMs <= a.firstMs && a.firstMs < b.doneMs) {
                    n++;
                }
            }
            most = Math.max(most, n);
        }
        return most;
    }

    @Test
    void aFullBatchHoldsNewRequestsInTheQueue() {
        Preset p = Preset.QWEN3_32B_4W;
        Config c = new Config("stop-and-restart", 2, 1, 1, 2_000, 256, p.budgetPositions(), 16, 4);
        List<Arrival> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            burst.add(new Arrival(i, 0, 200, 50, i));
        }
        SimResult capped = new Simulator(new Simulator.Options(c, p.costModel(), 4_096, 3, 0.7, 1), null).run(burst, List.of());
        SimResult wide = new Simulator(new Simulator.Options(c, p.costModel(), 4_096, 64, 0.7, 1), null).run(burst, List.of());
        assertThat(mostAdmitted(capped) <= 2 * 3).as("at most max_batch running per worker, saw " + mostAdmitted(capped)).isTrue();
        assertThat(mostAdmitted(wide) > 2 * 3).as("without the cap the burst runs at once, saw " + mostAdmitted(wide)).isTrue();
        double ttftCapped = capped.requests.stream().mapToDouble(SimResult.Req::ttftMs).max().orElseThrow();
        double firstDone = capped.requests.stream().mapToDouble(q -> q.doneMs).min().orElseThrow();
        assertThat(ttftCapped)
                .as("the last request waits for a slot: TTFT " + ttftCapped + " ms, first done at " + firstDone + " ms").isGreaterThanOrEqualTo(firstDone);
    }

    @Test
    void theKvPoolHoldsNewRequestsInTheQueueWhenTheirPositionsDoNotFit() {
        Preset p = Preset.QWEN3_32B_4W;
        Config c = new Config("stop-and-restart", 2, 1, 1, 2_000, 256, p.budgetPositions(), 16, 4);
        List<Arrival> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            burst.add(new Arrival(i, 0, 200, 50, i));
        }
        // two A100s whose pool holds 1,250 positions: five requests of 200 + 50 positions
        double f = (p.model.weightBytes() + 1_250.5 * p.kvBytesPerToken()) / (2 * ProfiledCostModel.GPU_BYTES);
        ProfiledCostModel small = p.costModel("a100-80gb", 2).withKvMemFraction(f);
        assertThat(small.kvCapacityPositions()).isEqualTo(1_250);
        SimResult pooled = new Simulator(new Simulator.Options(c, small, 4_096, 0, 0.7, 1), null).run(burst, List.of());
        SimResult wide = new Simulator(new Simulator.Options(c, p.costModel("a100-80gb", 2), 4_096, 0, 0.7, 1), null).run(burst, List.of());
        assertThat(mostAdmitted(pooled)).as("at most five per worker by the pool").isLessThanOrEqualTo(2 * 5);
        assertThat(mostAdmitted(wide)).as("no cap and a pool of 268,848 positions: the burst runs at once").isEqualTo(20);
        assertThat(pooled.requests).as("every request is served in the end").allMatch(q -> q.doneMs > 0);
    }
}
