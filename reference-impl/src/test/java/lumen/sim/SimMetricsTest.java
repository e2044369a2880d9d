package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class SimMetricsTest {

    private static SimResult run(double failAt, double degradedUntil) {
        SimResult r = new SimResult();
        if (!Double.isNaN(failAt)) {
            r.failures.add(new SimResult.Failure(failAt, new int[] {0}));
        }
        for (int i = 0; i < 200; i++) {
            double at = i * 500.0;
            SimResult.Req q = new SimResult.Req(i, at, 100, 11);
            boolean slow = at >= failAt && at < degradedUntil;
            q.firstMs = at + (slow ? 400 : 100);
            q.doneMs = q.firstMs + 10 * (slow ? 40 : 20);
            q.interrupted = slow && i % 10 == 0;
            if (q.interrupted) {
                q.interruptedMs = at;
                q.replayFirstMs = at + 400;
            }
            r.requests.add(q);
        }
        return r;
    }

    @Test
    void recoveryEndsWithTheLastDegradedBin() {
        SimResult base = run(Double.NaN, 0);
        SimResult hit = run(20_000, 47_000);
        // bins of 5 s: the last degraded bin is [45 s, 50 s); smoothed over its neighbours it also lifts
        // [50 s, 55 s) above 1.1x, so recovery ends at 55 s, 35 s after the failure
        assertThat(SimMetrics.recoveryMs(hit, base, 20_000)).isCloseTo(35_000, within(1e-9));
        assertThat(SimMetrics.recoveryMs(base, base, 20_000)).isCloseTo(0, within(1e-9));
        assertThat(SimMetrics.recoveryMs(run(20_000, 1e9), base, 20_000)).as("never recovers").isNaN();
        // one degraded blip later on does not undo a recovery that held for 30 s
        SimResult blip = run(20_000, 47_000);
        for (SimResult.Req q : blip.requests) {
            if (q.arriveMs >= 90_000 && q.arriveMs < 92_000) {
                q.firstMs = q.arriveMs + 400;
            }
        }
        assertThat(SimMetrics.recoveryMs(blip, base, 20_000)).isCloseTo(35_000, within(1e-9));
    }

    @Test
    void windowStatsSeparateInterruptedFromSurvivors() {
        SimMetrics.Summary s = SimMetrics.summarize("x", run(20_000, 47_000), run(Double.NaN, 0));
        assertThat(s.ttftInterrupted().mean()).isCloseTo(400, within(1e-9));
        assertThat(s.ttftSurvivors().mean() < 400 && s.ttftSurvivors().mean() > 100).as(s.ttftSurvivors().toString()).isTrue();
        assertThat(s.interrupted()).isEqualTo(6);
        assertThat(s.tpotInterrupted().p50()).isCloseTo(40, within(0.1));
        SimMetrics.Stats none = SimMetrics.stats(List.of(), SimResult.Req::ttftMs);
        assertThat(none.n()).isEqualTo(0);
        assertThat(none.text()).isEqualTo("-");
    }
}
