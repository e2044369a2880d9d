package lumen.gpu;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import lumen.runtime.KvGeometry;

/**
 * The bookkeeping of a paged KV pool, shared by both backends: which slot holds each page of each
 * request, and which slots are free. Slots are handed out lowest first, so both backends place
 * the same pages in the same slots.
 */
final class PagePool {
    private final KvGeometry g;
    private final int capacity;
    private final BitSet used = new BitSet();
    private final Map<Integer, int[]> tables = new HashMap<>();
    private final Map<Integer, Integer> positions = new HashMap<>();

    PagePool(KvGeometry g, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a KV pool needs at least one page, not " + capacity);
        }
        this.g = g;
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    int inUse() {
        return used.cardinality();
    }

    int positions(int req) {
        return positions.getOrDefault(req, 0);
    }

    /** The slots of req's pages, in page order (empty when it has none). */
    int[] table(int req) {
        return tables.getOrDefault(req, new int[0]);
    }

    /** Checks that positions from..to extend req's KV, allocates the pages they need, and records them. */
    int[] extend(int req, int from, int to) {
        int have = positions(req);
        if (from != have + 1 || to < from) {
            throw new IllegalStateException("KV of request " + req + " holds " + have + " positions; cannot write " + from + ".." + to);
        }
        int[] t = grow(table(req), g.pagesFor(to), req);
        tables.put(req, t);
        positions.put(req, to);
        return t;
    }

    /** Frees req's pages and gives it {@code pages} fresh ones holding n positions (a restore). */
    int[] replace(int req, int pages, int n) {
        if (pages != g.pagesFor(n)) {
            throw new IllegalArgumentException("a restore of " + n + " positions needs " + g.pagesFor(n) + " pages, got " + pages);
        }
        free(req);
        int[] t = grow(new int[0], pages, req);
        tables.put(req, t);
        positions.put(req, n);
        return t;
    }

    private int[] grow(int[] t, int pages, int req) {
        if (pages <= t.length) {
            return t;
        }
        if (inUse() + pages - t.length > capacity) {
            throw new IllegalStateException("KV pool full: request " + req + " needs " + (pages - t.length) + " more pages, "
                    + (capacity - inUse()) + " of " + capacity + " are free");
        }
        int[] out = Arrays.copyOf(t, pages);
        for (int i = t.length; i < pages; i++) {
            int s = used.nextClearBit(0);
            used.set(s);
            out[i] = s;
        }
        return out;
    }

    void free(int req) {
        for (int s : table(req)) {
            used.clear(s);
        }
        tables.remove(req);
        positions.remove(req);
    }

    void clear() {
        used.clear();
        tables.clear();
        positions.clear();
    }
}
