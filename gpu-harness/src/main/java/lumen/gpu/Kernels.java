package lumen.gpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import lumen.runtime.KvGeometry;
import lumen.runtime.PageBytes;

/**
 * The CPU twins of the kernels in {@code src/main/cuda/lumen_kernels.cu}: the same arithmetic in
 * the same order, so that the CPU backend and the GPU give the same bytes, integers and tokens.
 */
public final class Kernels {
    private Kernels() {}

    static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /** A page's checksum: the sum mod 2^64 of mix(word_i ^ (i * golden)) over its little-endian 8-byte words. */
    public static long checksum(byte[] page, int off, int len) {
        ByteBuffer b = ByteBuffer.wrap(page, off, len).order(ByteOrder.LITTLE_ENDIAN);
        long acc = 0;
        for (int i = 0; i < len / 8; i++) {
            acc += PageBytes.mix(b.getLong(off + 8 * i) ^ (i * GOLDEN));
        }
        return acc;
    }

    public static long checksum(byte[] page) {
        return checksum(page, 0, page.length);
    }

    /**
     * A decode step's reads of one request: every KV byte of its first n positions, read as
     * attention reads K and V, reduced to sum mod 2^32 of byte * (1 + (index & 15)), where index
     * counts bytes in position order. {@code bytes.at(i)} gives byte i.
     */
    public static int attend(long n, KvGeometry g, java.util.function.LongToIntFunction byteAt) {
        long total = n * g.layers() * (long) g.bytesPerTokenLayer();
        int acc = 0;
        for (long i = 0; i < total; i++) {
            acc += byteAt.applyAsInt(i) * (1 + (int) (i & 15));
        }
        return acc;
    }

    /**
     * Greedy verification of {@code rows} drafts of {@code k} tokens against the target's k + 1
     * tokens per row: a row keeps its longest prefix agreeing with the target and adds one target
     * token, so it emits (agreeing prefix + 1) tokens, the target's first ones.
     */
    public static int[] greedy(int[] draft, int[] target, int k) {
        int rows = draft.length / k;
        checkShape(target.length == rows * (k + 1) && draft.length == rows * k, "greedy: need rows * k draft and rows * (k + 1) target tokens");
        int[] emitted = new int[rows];
        for (int b = 0; b < rows; b++) {
            int n = 0;
            while (n < k && draft[b * k + n] == target[b * (k + 1) + n]) {
                n++;
            }
            emitted[b] = n + 1;
        }
        return emitted;
    }

    /** A batch's verified tokens: row b's are {@code tokens[b * (k + 1) ..]}, {@code emitted[b]} of them. */
    public record Emitted(int[] tokens, int[] emitted) {}

    /**
     * Rejection-sampling verification (Leviathan et al. 2023), in float, row by row. Draft token
     * x_i (drawn from q_i) is kept when {@code uAccept_i * q_i(x) < p_i(x)}, i.e. with probability
     * min(1, p/q); at the first rejection a token is drawn from norm(max(0, p_i - q_i)) with
     * {@code uSample_i} and the row stops; if all k are kept, one more is drawn from p_k with
     * {@code uSample_k}. Every emitted token is then distributed as the target's p.
     *
     * @param p rows * (k + 1) * v target probabilities
     * @param q rows * k * v draft probabilities
     */
    public static Emitted rejection(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v) {
        int rows = draft.length / k;
        checkShape(p.length == rows * (k + 1) * v && q.length == rows * k * v && uAccept.length == rows * k && uSample.length == rows * (k + 1),
                "rejection: need p of rows*(k+1)*v, q of rows*k*v, uAccept of rows*k, uSample of rows*(k+1)");
        int[] out = new int[rows * (k + 1)];
        int[] emitted = new int[rows];
        for (int b = 0; b < rows; b++) {
            emitted[b] = row(p, q, draft, uAccept, uSample, k, v, b, out);
        }
        return new Emitted(out, emitted);
    }

    private static int row(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v, int b, int[] out) {
        for (int i = 0; i < k; i++) {
            int pi = (b * (k + 1) + i) * v;
            int qi = (b * k + i) * v;
            int x = draft[b * k + i];
            if (q[qi + x] == 0.0f || uAccept[b * k + i] * q[qi + x] < p[pi + x]) {
                out[b * (k + 1) + i] = x;
                continue;
            }
            float sum = 0.0f;
            for (int t = 0; t < v; t++) {
                sum += Math.max(0.0f, p[pi + t] - q[qi + t]);
            }
            float u = uSample[b * (k + 1) + i] * sum;
            float acc = 0.0f;
            int pick = -1;
            for (int t = 0; t < v; t++) {
                acc += Math.max(0.0f, p[pi + t] - q[qi + t]);
                if (pick < 0 && u < acc) {
                    pick = t;
                }
            }
            for (int t = v - 1; pick < 0 && t >= 0; t--) {
                if (Math.max(0.0f, p[pi + t] - q[qi + t]) > 0.0f) {
                    pick = t;
                }
            }
            out[b * (k + 1) + i] = pick;
            return i + 1;
        }
        int pk = (b * (k + 1) + k) * v;
        float sum = 0.0f;
        for (int t = 0; t < v; t++) {
            sum += p[pk + t];
        }
        float u = uSample[b * (k + 1) + k] * sum;
        float acc = 0.0f;
        int pick = -1;
        for (int t = 0; t < v; t++) {
            acc += p[pk + t];
            if (pick < 0 && u < acc) {
                pick = t;
            }
        }
        for (int t = v - 1; pick < 0 && t >= 0; t--) {
            if (p[pk + t] > 0.0f) {
                pick = t;
            }
        }
        out[b * (k + 1) + k] = pick;
        return k + 1;
    }

    private static void checkShape(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException(what);
        }
    }
}
