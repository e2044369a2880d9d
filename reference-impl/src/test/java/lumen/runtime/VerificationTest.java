package lumen.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.SplittableRandom;
import org.apache.commons.math3.stat.inference.ChiSquareTest;
import org.junit.jupiter.api.Test;

/**
 * Verification keeps the target's output: greedy token for token, rejection sampling in
 * distribution. The distribution tests are chi-square goodness-of-fit tests at significance
 * level alpha = 0.001 with fixed seeds (so they are reproducible); a sampler that skips the
 * rejection step must fail the same test, which shows the test has the power to notice.
 */
class VerificationTest {
    private static final double ALPHA = 0.001;
    private static final int V = 6;
    private static final int TRIALS = 200_000;

    private static double[] dist(Random r, boolean peaked) {
        double[] d = new double[V];
        double s = 0;
        for (int i = 0; i < V; i++) {
            d[i] = peaked && i == 0 ? 5 + r.nextDouble() : 0.2 + r.nextDouble();
            s += d[i];
        }
        for (int i = 0; i < V; i++) {
            d[i] /= s;
        }
        return d;
    }

    @Test
    void greedyAcceptsTheAgreeingPrefixPlusOne() {
        int[] target = {5, 6, 7, 8, 9};
        assertThat(Verification.greedy(new int[] {5, 6, 1}, 5, i -> target[i])).containsExactly(5, 6, 7);
        assertThat(Verification.greedy(new int[] {4, 6}, 5, i -> target[i])).containsExactly(5);
        assertThat(Verification.greedy(new int[] {5, 6}, 5, i -> target[i])).containsExactly(5, 6, 7);
        assertThat(Verification.greedy(new int[] {5, 6, 7}, 2, i -> target[i])).as("never past the output's end").containsExactly(5, 6);
        assertThat(Verification.greedy(new int[0], 5, i -> target[i])).containsExactly(5);
    }

    @Test
    void greedyOutputEqualsTheTargetAloneForAnyDraft() {
        Random r = new Random(7);
        int[] target = new int[40];
        for (int i = 0; i < target.length; i++) {
            target[i] = r.nextInt(4);
        }
        for (int trial = 0; trial < 2000; trial++) {
            int pos = 0;
            int[] out = new int[target.length];
            while (pos < target.length) {
                int[] d = new int[1 + r.nextInt(4)];
                for (int i = 0; i < d.length; i++) {
                    d[i] = r.nextBoolean() && pos + i < target.length ? target[pos + i] : r.nextInt(4);
                }
                int base = pos;
                int[] got = Verification.greedy(d, target.length - pos, i -> target[base + i]);
                System.arraycopy(got, 0, out, pos, got.length);
                pos += got.length;
            }
            assertThat(out).isEqualTo(target);
        }
    }

    /** Empirical counts of the first two emitted tokens (a pair index) over many verifications. */
    private static long[] pairCounts(double[][] p, double[][] q, boolean skipRejection, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        long[] counts = new long[V * V];
        for (int t = 0; t < TRIALS; t++) {
            int[] draft = new int[2];
            for (int i = 0; i < 2; i++) {
                draft[i] = Verification.sample(q[i], 1.0, rng);
            }
            int[] out = skipRejection ? new int[] {draft[0], draft[1], 0} : Verification.rejectionSample(p, q, draft, rng);
            int second = out.length > 1 ? out[1] : Verification.sample(p[1], 1.0, rng);
            counts[out[0] * V + second]++;
        }
        return counts;
    }

    private static double[] expectedPairs(double[][] p) {
        double[] e = new double[V * V];
        for (int a = 0; a < V; a++) {
            for (int b = 0; b < V; b++) {
                e[a * V + b] = p[0][a] * p[1][b] * TRIALS;
            }
        }
        return e;
    }

    @Test
    void rejectionSamplingKeepsTheTargetDistribution() {
        Random r = new Random(11);
        for (int c = 0; c < 3; c++) {
            double[][] p = {dist(r, false), dist(r, true), dist(r, false)};
            double[][] q = {dist(r, true), dist(r, false)};
            long[] counts = pairCounts(p, q, false, 100 + c);
            double pValue = new ChiSquareTest().chiSquareTest(expectedPairs(p), counts);
            assertThat(pValue > ALPHA).as("case " + c + ": chi-square p-value " + pValue + " <= alpha " + ALPHA).isTrue();
        }
    }

    @Test
    void theDistributionTestNoticesASamplerThatSkipsRejection() {
        Random r = new Random(11);
        double[][] p = {dist(r, false), dist(r, true), dist(r, false)};
        double[][] q = {dist(r, true), dist(r, false)};
        long[] counts = pairCounts(p, q, true, 100);
        double pValue = new ChiSquareTest().chiSquareTest(expectedPairs(p), counts);
        assertThat(pValue).as("accepting every draft token must change the distribution; p-value " + pValue).isLessThan(ALPHA);
    }
}
