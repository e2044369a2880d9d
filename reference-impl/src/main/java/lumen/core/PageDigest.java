package lumen.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The content of one KV page as one copy holds it (trace contract v2): the page's first position
 * {@code first} (page-aligned: {@code (k - 1) * pageTokens + 1} for page k), how many positions
 * {@code count} it holds from there (1 to pageTokens), and a 64-bit digest of those positions'
 * bytes. The validator never computes a digest; it compares them, so a system may use any hash
 * of the bytes as long as it uses the same one for every copy of a run.
 */
public record PageDigest(int first, int count, long digest) {

    /** The page index k (1-based) of this entry. */
    public int page(int pageTokens) {
        return (first - 1) / pageTokens + 1;
    }

    /** The last position this entry covers. */
    public int last() {
        return first + count - 1;
    }

    /** The digest as the trace writes it: 16 lowercase hexadecimal digits. */
    public String hex() {
        return String.format("%016x", digest);
    }

    /**
     * The pages that positions {@code from..to} (1-based, inclusive) touch, each with the count a
     * copy holding positions 1..to has of it: the shape every v2 event's content must have.
     * Returns {first, count} pairs.
     */
    public static int[][] shape(int from, int to, int pageTokens) {
        if (to < from) {
            return new int[0][];
        }
        List<int[]> out = new ArrayList<>();
        for (int k = (from - 1) / pageTokens + 1; (k - 1) * pageTokens + 1 <= to; k++) {
            int first = (k - 1) * pageTokens + 1;
            out.add(new int[] {first, Math.min(k * pageTokens, to) - first + 1});
        }
        return out.toArray(new int[0][]);
    }

    /** Whether {@code pages} are exactly {@link #shape}(from, to, pageTokens), checked without building it (once per event). */
    public static boolean hasShape(PageDigest[] pages, int from, int to, int pageTokens) {
        int i = 0;
        if (to >= from) {
            for (int first = (from - 1) / pageTokens * pageTokens + 1; first <= to; first += pageTokens, i++) {
                if (i == pages.length || pages[i].first() != first || pages[i].count() != Math.min(first + pageTokens - 1, to) - first + 1) {
                    return false;
                }
            }
        }
        return i == pages.length;
    }

    /**
     * Synthetic content of request r's positions from..to, for drivers without KV bytes (the
     * simulator, synthetic traces): each page's digest is a function of (r, page, count), so a
     * faithful copy of a page always carries the digest the server wrote.
     */
    public static PageDigest[] synthetic(int req, int from, int to, int pageTokens) {
        int[][] sh = shape(from, to, pageTokens);
        PageDigest[] out = new PageDigest[sh.length];
        for (int i = 0; i < sh.length; i++) {
            long h = mix(0x5851F42D4C957F2DL * (req + 1L) + ((long) sh[i][0] << 20) + sh[i][1]);
            out[i] = new PageDigest(sh[i][0], sh[i][1], h);
        }
        return out;
    }

    private static long mix(long x) {
        return KitKv.mix(x);
    }

    /**
     * {@code pages} (content of positions 1..n) claimed to cover 1..to: each page keeps its entry
     * where it has one with the same count, and the rest get digest 0 (bytes no copy ever had).
     * For seeded bugs that claim positions they do not have.
     */
    public static PageDigest[] claimed(PageDigest[] pages, int to, int pageTokens) {
        int[][] sh = shape(1, to, pageTokens);
        PageDigest[] out = new PageDigest[sh.length];
        for (int i = 0; i < sh.length; i++) {
            PageDigest have = pages != null && i < pages.length ? pages[i] : null;
            out[i] = have != null && have.first() == sh[i][0] && have.count() == sh[i][1] ? have : new PageDigest(sh[i][0], sh[i][1], 0);
        }
        return out;
    }

    /** Content as a short text: "pages 1..16 (16), 17..19 (3)". */
    public static String describe(PageDigest[] pages) {
        if (pages == null) {
            return "no content";
        }
        StringBuilder b = new StringBuilder();
        for (PageDigest p : pages) {
            b.append(b.length() == 0 ? "" : ", ").append(p.first()).append("..").append(p.last()).append(" #").append(p.hex(), 0, 6);
        }
        return b.length() == 0 ? "no pages" : b.toString();
    }

    public static boolean same(PageDigest[] a, PageDigest[] b) {
        return Arrays.equals(a, b);
    }
}
