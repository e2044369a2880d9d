package lumen.runtime;

/**
 * The true KV bytes of (request, layer, position): a deterministic function, so that any copy of
 * a page can be checked bit for bit against what the model would have computed.
 */
public final class PageBytes {
    private PageBytes() {}

    /** The 64-bit finaliser of MurmurHash3: the mixing step of the KV bytes and of the GPU harness's page checksum ({@link lumen.core.KitKv#mix}). */
    public static long mix(long x) {
        return lumen.core.KitKv.mix(x);
    }

    /** Writes the true bytes of (req, layer, position) into {@code out} at {@code off}. */
    public static void fill(long reqSeed, int layer, int position, byte[] out, int off, int len) {
        long h = mix(reqSeed * 0x9E3779B97F4A7C15L + ((long) layer << 32) + position);
        for (int i = 0; i < len; i++) {
            if ((i & 7) == 0 && i > 0) {
                h = mix(h + i);
            }
            out[off + i] = (byte) (h >>> ((i & 7) * 8));
        }
    }

    /** Folds bytes into a running digest (FNV-1a, 64 bit). */
    public static long digest(long d, byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            d ^= b[i] & 0xff;
            d *= 0x100000001b3L;
        }
        return d;
    }

    public static final long DIGEST_START = 0xcbf29ce484222325L;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /**
     * The page digest the kit's reference implementation reports in its traces (trace contract
     * v2): the sum mod 2^64 of mix(w_i XOR i * 0x9E3779B97F4A7C15) over the little-endian 64-bit
     * words w_0, w_1, ... of {@code len} bytes from {@code off} (len a multiple of 8). It is the
     * GPU harness's page checksum, which a kernel computes in parallel. The validator only
     * compares digests, so other systems may use any hash of the bytes.
     */
    public static long pageDigest(byte[] b, int off, int len) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long acc = 0;
        for (int i = 0; i < len / 8; i++) {
            acc += mix(buf.getLong(off + 8 * i) ^ (i * GOLDEN));
        }
        return acc;
    }
}
