package lumen.core;

/**
 * The kit's KV content model (docs/conformance.md, "The kit's KV content", with test vectors): the
 * bytes a system with a synthetic model holds for each context position of a request, and the
 * digest of a page's bytes, as functions of the request's seed and the positions alone. A system
 * on the kit's token model writes these bytes when it computes a position's KV and reports the
 * digest of the bytes each copy holds; the kit predicts every digest, so a digest taken over
 * anything but the bytes (a page's request, index or count) is caught at the first write, and a
 * copy that holds another position's bytes at the first write, copy or restore of it.
 *
 * <pre>
 *   mix(x):  x ^= x >>> 33; x *= 0xFF51AFD7ED558CCD; x ^= x >>> 33; x *= 0xC4CEB9FE1A85EC53; return x ^ (x >>> 33)
 *   bytes of (seed, layer, position), B bytes: h = mix(seed * 0x9E3779B97F4A7C15 + (layer << 32) + position);
 *            byte i = (h >>> (8 * (i mod 8))) & 0xFF, with h = mix(h + i) before each i = 8, 16, ...
 *   a page copy holding positions first..first+count-1 lays them out in order, each position's
 *            layers 0..L-1 in order, B bytes each; its digest is the sum mod 2^64 over its
 *            little-endian 64-bit words w_j (j = 0, 1, ...) of mix(w_j XOR j * 0x9E3779B97F4A7C15)
 * </pre>
 *
 * with L = 2 layers and B = 16 bytes per position per layer (the adapter protocol's {@code init}
 * names them), all arithmetic on unsigned 64-bit words. It is the reference runtime's
 * ({@code PageBytes}), written out so that any system can compute it in a few lines.
 */
public final class KitKv {
    /** The model's name in the adapter protocol's init command. */
    public static final String NAME = "lumen-kv-murmur";
    /** Layers of the model's KV. */
    public static final int LAYERS = 2;
    /** Bytes per position per layer (K and V together). */
    public static final int BYTES_PER_TOKEN_LAYER = 16;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private KitKv() {}

    /** The 64-bit finaliser of MurmurHash3. */
    public static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    /** The digest of a copy holding positions {@code first..first+count-1} of the request with {@code seed}. */
    public static long digest(long seed, int first, int count) {
        int wordsPerLayer = BYTES_PER_TOKEN_LAYER / 8;
        long acc = 0;
        long j = 0;
        for (int pos = first; pos < first + count; pos++) {
            for (int layer = 0; layer < LAYERS; layer++) {
                long h = mix(seed * GOLDEN + ((long) layer << 32) + pos);
                for (int b = 0; b < wordsPerLayer; b++) {
                    if (b > 0) {
                        h = mix(h + 8L * b);
                    }
                    acc += mix(h ^ (j * GOLDEN));
                    j++;
                }
            }
        }
        return acc;
    }

    /** The digest of a page entry of the request with {@code seed}, as the model gives it. */
    public static long digest(long seed, PageDigest p) {
        return digest(seed, p.first(), p.count());
    }
}
