package lumen.runtime;

import lumen.core.KitTokens;

/**
 * The two small deterministic token models of the runtime.
 *
 * <p>The <b>target</b> reads the KV it decodes from: at output position n of a request it
 * compares the digest of that KV (positions 1..prompt+n-1, every layer) with the digest of the
 * true KV bytes, and emits the kit's token ({@link KitTokens#token}) when they agree and another
 * token, a function of the digest it read, when they do not. A restore that brought back one
 * wrong byte therefore changes the next token, as a real model's output would change, and the
 * reference output, the target's on the true KV, is the kit's token model: what conformance
 * holds every system with a synthetic model to.
 *
 * <p>The <b>draft</b> agrees with the target's reference token at a position with probability
 * {@code agreement} (a deterministic coin per request and position), and otherwise proposes a
 * different token. It proposes for the positions it believes come next, so a draft made on a
 * stale context lands on the wrong positions and is rejected by verification.
 */
public final class TokenModels {
    private final int vocab;
    private final double agreement;
    private final KvGeometry g;

    public TokenModels(int vocab, double agreement, KvGeometry g) {
        if (vocab < 2) {
            throw new IllegalArgumentException("vocab must be at least 2");
        }
        if (!(agreement >= 0 && agreement <= 1)) {
            throw new IllegalArgumentException("draft agreement must be in [0, 1], got " + agreement);
        }
        this.vocab = vocab;
        this.agreement = agreement;
        this.g = g;
    }

    public int vocab() {
        return vocab;
    }

    /**
     * The target's token at output position n (1-based) from the digest of the KV it read, given
     * the digest of the true KV there: the kit's token when they agree, another one when not.
     */
    public int target(long seed, int n, long kvDigest, long trueDigest) {
        int right = KitTokens.token(seed, n, vocab);
        if (kvDigest == trueDigest) {
            return right;
        }
        int other = (int) Long.remainderUnsigned(PageBytes.mix(seed ^ PageBytes.mix(n * 0x9E3779B97F4A7C15L + kvDigest)), vocab - 1);
        return other >= right ? other + 1 : other;
    }

    /** The digests of the true KV of positions 1..k for every k up to {@code positions} (index k-1). */
    public long[] trueDigests(long seed, int positions) {
        long[] out = new long[positions];
        long d = PageBytes.DIGEST_START;
        byte[] buf = new byte[g.bytesPerTokenLayer()];
        for (int pos = 1; pos <= positions; pos++) {
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, buf, 0, buf.length);
                d = PageBytes.digest(d, buf, 0, buf.length);
            }
            out[pos - 1] = d;
        }
        return out;
    }

    /** The reference output: the target on true KV, failure-free and without speculation, which is the kit's token model. */
    public int[] reference(long seed, int promptLen, int outLen) {
        return KitTokens.reference(seed, outLen, vocab);
    }

    /**
     * The draft model's {@code k} tokens for output positions {@code from}..{@code from + k - 1} of the
     * request with {@code seed} and {@code outLen} reference tokens: what a worker's draft model
     * proposes while it assists.
     */
    public int[] drafts(long seed, int outLen, int from, int k) {
        int[] toks = new int[k];
        for (int i = 0; i < k; i++) {
            int m = from + i;
            toks[i] = draft(seed, m, m <= outLen ? lumen.core.KitTokens.token(seed, m, vocab) : -1);
        }
        return toks;
    }

    /** The draft's token for output position n, given the reference token there (-1 past the end). */
    public int draft(long seed, int n, int refToken) {
        double coin = (PageBytes.mix(seed * 31 + n * 0xC2B2AE3D27D4EB4FL) >>> 11) * 0x1.0p-53;
        if (refToken >= 0 && coin < agreement) {
            return refToken;
        }
        int other = (int) Long.remainderUnsigned(PageBytes.mix(seed + n), vocab - 1);
        return refToken >= 0 && other >= refToken ? other + 1 : other;
    }
}
