package lumen.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals(35_000, SimMetrics.recoveryMs(hit, base, 20_000), 1e-9);
        assertEquals(0, SimMetrics.recoveryMs(base, base, 20_000), 1e-9);
        assertTrue(Double.isNaN(SimMetrics.recoveryMs(run(20_000, 1e9), base, 20_000)), "never recovers");
        // one degraded blip later on does not undo a recovery that held for 30 s
        SimResult blip = run(20_000, 47_000);
        for (SimResult.Req q : blip.requests) {
            if (q.arriveMs >= 90_000 && q.arriveMs < 92_000) {
                q.firstMs = q.arriveMs + 400;
            }
        }
        assertEquals(35_000, SimMetrics.recoveryMs(blip, base, 20_000), 1e-9);
    }

    @Test
    void windowStatsSeparateInterruptedFromSurvivors() {
        SimMetrics.Summary s = SimMetrics.summarize("x", run(20_000, 47_000), run(Double.NaN, 0));
        assertEquals(400, s.ttftInterrupted().mean(), 1e-9);
        assertTrue(s.ttftSurvivors().mean() < 400 && s.ttftSurvivors().mean() > 100, s.ttftSurvivors().toString());
        assertEquals(6, s.interrupted());
        assertEquals(40, s.tpotInterrupted().p50(), 0.1);
        SimMetrics.Stats none = SimMetrics.stats(List.of(), SimResult.Req::ttftMs);
        assertEquals(0, none.n());
        assertEquals("-", none.text());
    }
}
