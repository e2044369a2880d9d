package lumen.core;

/**
 * The kit's deterministic token model: the reference output the kit holds a system with a
 * synthetic model to (docs/conformance.md, "The kit's token model", with test vectors). Output
 * token n (1-based) of the request with seed s is
 *
 * <pre>
 *   token(s, n) = splitmix64(s + n * 0x9E3779B97F4A7C15) mod vocab     (64-bit unsigned arithmetic)
 *   splitmix64(z): z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9
 *                  z = (z ^ (z >>> 27)) * 0x94D049BB133111EB
 *                  return z ^ (z >>> 31)
 * </pre>
 *
 * It depends on the request's seed and the position only, never on the prompt's content, the
 * batch or the schedule, so any system can compute it in a few lines.
 */
public final class KitTokens {
    /** The vocabulary the kit uses unless told otherwise. */
    public static final int VOCAB = 32_000;
    /** The model's name in the adapter protocol's init command. */
    public static final String NAME = "lumen-splitmix64";

    private KitTokens() {}

    public static long splitmix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Output token n (1-based) of the request with seed {@code seed}. */
    public static int token(long seed, int n, int vocab) {
        return (int) Long.remainderUnsigned(splitmix64(seed + n * 0x9E3779B97F4A7C15L), vocab);
    }

    /** The whole reference output: tokens 1..outLen. */
    public static int[] reference(long seed, int outLen, int vocab) {
        int[] out = new int[outLen];
        for (int n = 1; n <= outLen; n++) {
            out[n - 1] = token(seed, n, vocab);
        }
        return out;
    }
}
