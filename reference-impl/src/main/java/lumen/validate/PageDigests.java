package lumen.validate;

import java.util.Arrays;
import lumen.core.PageDigest;

/**
 * The page digests one copy of a request's KV holds, every count it has held: entry (first,
 * count) of a page is kept under the last position it covers, {@code first + count - 1}, which
 * names it uniquely since a page starts at a fixed position. Positions are grouped in blocks of
 * 64 with one presence word each, allocated as entries arrive, so a put or a lookup is an array
 * access and memory follows the positions reported, not the positions a line claims.
 */
final class PageDigests {
    private static final int SHIFT = 6;
    private static final int BLOCK = 1 << SHIFT;
    private static final long[][] NONE = new long[0][];

    /** Block i holds positions i*64+1 .. i*64+64: word 0 is the presence mask, words 1..64 the digests. */
    private long[][] blocks = NONE;

    private long[] block(int last, boolean create) {
        int i = (last - 1) >>> SHIFT;
        if (i >= blocks.length) {
            if (!create) {
                return null;
            }
            blocks = Arrays.copyOf(blocks, Math.max(i + 1, blocks.length * 2));
        }
        long[] b = blocks[i];
        if (b == null && create) {
            b = blocks[i] = new long[BLOCK + 1];
        }
        return b;
    }

    /** Whether the copy holds page entry p (its first position and count) at all. */
    boolean has(PageDigest p) {
        int last = p.last();
        long[] b = block(last, false);
        return b != null && (b[0] & 1L << ((last - 1) & (BLOCK - 1))) != 0;
    }

    /** Whether the copy holds page entry p with exactly p's digest. */
    boolean holds(PageDigest p) {
        return has(p) && digestOf(p) == p.digest();
    }

    /** The digest the copy holds for p's entry; only where {@link #has} is true. */
    long digestOf(PageDigest p) {
        int last = p.last();
        return block(last, false)[1 + ((last - 1) & (BLOCK - 1))];
    }

    void put(PageDigest p) {
        put(p.last(), p.digest());
    }

    /** Puts the entry whose last position is {@code last}, with {@code digest}. */
    void put(int last, long digest) {
        long[] b = block(last, true);
        int k = (last - 1) & (BLOCK - 1);
        b[0] |= 1L << k;
        b[1 + k] = digest;
    }

    PageDigests copy() {
        PageDigests c = new PageDigests();
        c.blocks = blocks.length == 0 ? NONE : new long[blocks.length][];
        for (int i = 0; i < blocks.length; i++) {
            c.blocks[i] = blocks[i] == null ? null : blocks[i].clone();
        }
        return c;
    }

    /** The fingerprint of the entries held: equal content, equal fingerprint, whatever the order of the puts. */
    long fingerprint() {
        long h = 0x2545F4914F6CDD1DL;
        for (int i = 0; i < blocks.length; i++) {
            long[] b = blocks[i];
            if (b == null || b[0] == 0) {
                continue;
            }
            for (long m = b[0]; m != 0; m &= m - 1) {
                int k = Long.numberOfTrailingZeros(m);
                h = lumen.core.Fingerprint.add(h, ((long) i << SHIFT) + k);
                h = lumen.core.Fingerprint.add(h, b[1 + k]);
            }
        }
        return h;
    }
}
