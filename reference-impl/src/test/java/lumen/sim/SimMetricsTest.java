package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class SimMetricsTest {

    /** Two requests a second; those arriving in [failAt, degradedUntil) wait 400 ms for a first token (else 100) and decode at 40 ms a token (else 20). */
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
            for (int k = 1; k <= 10; k++) {
                r.tpotSteps.add(q.firstMs + k * (slow ? 40 : 20), slow ? 40 : 20, 1);
            }
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
    void recoveryEndsWhereTheMetricsAreBackAndStayBack() {
        SimResult base = run(Double.NaN, 0);
        SimResult hit = run(20_000, 47_000);
        // the last slow request's first token comes at 46.9 s: the second of 46 s is degraded, and the
        // five seconds averaged around each of the next two still are; from there on every second is good
        double rec = SimMetrics.recoveryMs(hit, base, 20_000);
        assertThat(rec).isBetween(27_000.0, 27_000.0 + 1_000 * (SimMetrics.HALF_WINDOW_S + 1));
        assertThat(SimMetrics.recoveryMs(base, base, 20_000)).isCloseTo(0, within(1e-9));
        assertThat(SimMetrics.recoveryMs(run(20_000, 1e9), base, 20_000)).as("never recovers").isNaN();
        // a relapse within the 30 s after the metrics came back means they had not stayed back
        assertThat(SimMetrics.recoveryMs(slowAt(70_000, 75_000), base, 20_000)).isGreaterThan(50_000);
        // one after they stayed back for 30 s does not undo the recovery
        assertThat(SimMetrics.recoveryMs(slowAt(85_000, 90_000), base, 20_000)).isEqualTo(rec);
    }

    /** The degraded run, with the requests arriving in [from, to) slow again. */
    private static SimResult slowAt(double from, double to) {
        SimResult r = run(20_000, 47_000);
        for (SimResult.Req q : r.requests) {
            if (q.arriveMs >= from && q.arriveMs < to) {
                q.firstMs = q.arriveMs + 400;
            }
        }
        return r;
    }

    /** One slow request among the ten of five seconds is noise, not a degradation: the band allows for the few requests behind the mean. */
    @Test
    void oneSlowRequestIsWithinTheNoiseBand() {
        SimResult base = run(Double.NaN, 0);
        SimResult blip = run(20_000, 47_000);
        for (SimResult.Req q : blip.requests) {
            if (q.arriveMs == 90_000) {
                q.firstMs = q.arriveMs + 400;
            }
        }
        assertThat(SimMetrics.recoveryMs(blip, base, 20_000)).isEqualTo(SimMetrics.recoveryMs(run(20_000, 47_000), base, 20_000));
    }

    /**
     * The paper's reading ("back within 10% of the failure-free run") allows no noise: the same blip
     * 13 s after the metrics came back counts as degraded and restarts the 30 s, where the
     * noise-aware reading lets it pass; on a clean run it never recovers before the noise-aware one.
     */
    @Test
    void thePapersReadingCountsEverySecondPastTenPercentAsDegraded() {
        SimResult base = run(Double.NaN, 0);
        SimResult clean = run(20_000, 47_000);
        SimResult blip = run(20_000, 47_000);
        for (SimResult.Req q : blip.requests) {
            if (q.arriveMs == 60_000) {
                q.firstMs = q.arriveMs + 400;
            }
        }
        double noise = SimMetrics.recoveryMs(blip, base, 20_000);
        assertThat(noise).isEqualTo(SimMetrics.recoveryMs(clean, base, 20_000));
        assertThat(SimMetrics.paperRecoveryMs(blip, base, 20_000)).as("the blip restarts the paper's 30 s").isGreaterThan(noise + 10_000);
        assertThat(SimMetrics.paperRecoveryMs(clean, base, 20_000)).isGreaterThanOrEqualTo(SimMetrics.recoveryMs(clean, base, 20_000));
        assertThat(SimMetrics.paperRecoveryMs(base, base, 20_000)).isCloseTo(0, within(1e-9));
        SimMetrics.Summary sum = SimMetrics.summarize("lumen", blip, base);
        assertThat(sum.paperRecoveryMs()).isEqualTo(SimMetrics.paperRecoveryMs(blip, base, 20_000));
        assertThat(sum.recoveryMs()).isEqualTo(noise);
    }

    @Test
    void excessTtftPairsRequestsAndAddsTheStalls() {
        SimResult base = run(Double.NaN, 0);
        SimResult hit = run(20_000, 47_000);
        // 54 slow requests, each 300 ms later, and 6 of them interrupted with a 400 ms stall
        assertThat(SimMetrics.excessTtftS(hit, base)).isCloseTo((54 * 300 + 6 * 400) / 1000.0, within(1e-9));
        assertThat(SimMetrics.excessTtftS(base, base)).isZero();
    }

    @Test
    void windowStatsSeparateInterruptedFromSurvivors() {
        SimMetrics.Summary s = SimMetrics.summarize("x", run(20_000, 47_000), run(Double.NaN, 0));
        assertThat(s.windowMs()).isEqualTo(s.recoveryMs());
        assertThat(s.ttftInterrupted().mean()).isCloseTo(400, within(1e-9));
        assertThat(s.ttftSurvivors().mean() < 400 && s.ttftSurvivors().mean() > 100).as(s.ttftSurvivors().toString()).isTrue();
        assertThat(s.interrupted()).isEqualTo(6);
        assertThat(s.tpotInterrupted().p50()).isCloseTo(40, within(0.1));
        SimMetrics.Stats none = SimMetrics.stats(List.of(), SimResult.Req::ttftMs);
        assertThat(none.n()).isEqualTo(0);
        assertThat(none.text()).isEqualTo("-");
    }
}
