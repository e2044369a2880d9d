package lumen.runtime;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import java.util.random.RandomGenerator;

/**
 * Speculative verification of a draft by the target model, in its two forms.
 *
 * <p><b>Greedy</b>: accept the longest prefix of the draft that agrees with the target's own
 * tokens, then add one target token. The output is the target's output, token for token; this
 * is the spec's {@code Verified(r, d)} and the form the runtime and the trace use.
 *
 * <p><b>Rejection sampling</b> (Leviathan et al. 2023, Chen et al. 2023): draft token x_i drawn
 * from q_i is kept with probability min(1, p_i(x)/q_i(x)); at the first rejection a token is
 * drawn from the residual norm(max(0, p_i - q_i)) and verification stops; if all k are kept, one
 * more token is drawn from p_k. Every emitted token is then distributed exactly as the target's
 * p, whatever q is.
 */
public final class Verification {
    private Verification() {}

    /**
     * Greedy verification. {@code target.applyAsInt(i)} is the target's token at offset i (0-based)
     * past the current output, computed after the first i tokens are accepted; {@code remaining}
     * is how many tokens the output still lacks.
     */
    public static int[] greedy(int[] draft, int remaining, IntUnaryOperator target) {
        int[] out = new int[Math.min(draft.length + 1, remaining)];
        int n = 0;
        while (n < remaining) {
            int t = target.applyAsInt(n);
            out[n++] = t;
            if (n > draft.length || draft[n - 1] != t) {
                break;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * Rejection-sampling verification of {@code draft} (k tokens, x_i drawn from q[i]) against
     * target distributions p[0..k]. Returns the emitted tokens: the kept draft prefix plus one.
     */
    public static int[] rejectionSample(double[][] p, double[][] q, int[] draft, RandomGenerator rng) {
        int k = draft.length;
        if (p.length < k + 1 || q.length < k) {
            throw new IllegalArgumentException("need p for k+1 positions and q for k");
        }
        int[] out = new int[k + 1];
        for (int i = 0; i < k; i++) {
            int x = draft[i];
            double ratio = q[i][x] == 0 ? 1 : p[i][x] / q[i][x];
            if (rng.nextDouble() < Math.min(1.0, ratio)) {
                out[i] = x;
                continue;
            }
            double[] residual = new double[p[i].length];
            double sum = 0;
            for (int v = 0; v < residual.length; v++) {
                residual[v] = Math.max(0, p[i][v] - q[i][v]);
                sum += residual[v];
            }
            out[i] = sample(residual, sum, rng);
            return Arrays.copyOf(out, i + 1);
        }
        out[k] = sample(p[k], 1.0, rng);
        return out;
    }

    /** A draw from the unnormalised distribution w (summing to {@code sum}). */
    public static int sample(double[] w, double sum, RandomGenerator rng) {
        double u = rng.nextDouble() * sum;
        double acc = 0;
        for (int v = 0; v < w.length; v++) {
            acc += w[v];
            if (u < acc) {
                return v;
            }
        }
        for (int v = w.length - 1; v >= 0; v--) {
            if (w[v] > 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("empty distribution");
    }
}
