package lumen.core;

import java.util.Arrays;

/**
 * A sequence of KV pages as the spec sees it: page i (1-based, one per context position) is
 * intact when it holds position i of its request, and not intact ("a hole") when it was never
 * written or holds other content (a digest that differs from what the server wrote, in a v2
 * trace). The spec's {@code Intact(r, s)} is {@link #intact()}. The holes are kept explicitly
 * (almost always none), so a restore that resumes past its checkpoint, a stream that copies a
 * page not yet written, or a copy whose bytes differ, is represented exactly and caught by S6
 * and S9.
 */
public record PageSeq(int length, int[] holes) {
    private static final int[] NO_HOLES = new int[0];
    public static final PageSeq EMPTY = new PageSeq(0, NO_HOLES);

    public PageSeq {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
    }

    /**
     * The intact sequences of up to this many positions, one shared value each: a request's KV and
     * copies grow one value at a time, and a shared one is read from cache where a fresh one would
     * be one more line to fetch per event.
     */
    private static final PageSeq[] SHARED = new PageSeq[8192];

    static {
        SHARED[0] = EMPTY;
        for (int n = 1; n < SHARED.length; n++) {
            SHARED[n] = new PageSeq(n, NO_HOLES);
        }
    }

    /** Intact pages 1..n, the spec's {@code Pages(1, n)}. */
    public static PageSeq intact(int n) {
        return n < SHARED.length ? SHARED[n] : new PageSeq(n, NO_HOLES);
    }

    /** Pages 1..n with {@code holes}: the shared intact value when there are none. */
    private static PageSeq of(int n, int[] holes) {
        return holes.length == 0 ? intact(n) : new PageSeq(n, holes);
    }

    public boolean intact() {
        return holes.length == 0;
    }

    public boolean isHole(int position) {
        return Arrays.binarySearch(holes, position) >= 0;
    }

    /** This sequence followed by intact pages up to {@code newLength}. */
    public PageSeq extendIntact(int newLength) {
        return newLength <= length ? this : of(newLength, holes);
    }

    /** The first {@code n} pages; pages past this sequence's end are holes. */
    public PageSeq resize(int n) {
        if (n == length) {
            return this;
        }
        if (n < length) {
            int k = 0;
            while (k < holes.length && holes[k] <= n) {
                k++;
            }
            return of(n, k == holes.length ? holes : Arrays.copyOf(holes, k));
        }
        int[] h = Arrays.copyOf(holes, holes.length + (n - length));
        for (int p = length + 1; p <= n; p++) {
            h[holes.length + p - length - 1] = p;
        }
        return new PageSeq(n, h);
    }

    /**
     * This checkpoint after streaming, page by page, positions length+1..newLength copied from
     * {@code source} as they are (the spec's {@code PageToStream}: a page the source lacks is a
     * hole).
     */
    public PageSeq streamFrom(PageSeq source, int newLength) {
        if (newLength <= length) {
            return this;
        }
        int extra = 0;
        for (int p = length + 1; p <= newLength; p++) {
            if (p > source.length || source.isHole(p)) {
                extra++;
            }
        }
        if (extra == 0) {
            return of(newLength, holes);
        }
        int[] h = Arrays.copyOf(holes, holes.length + extra);
        int k = holes.length;
        for (int p = length + 1; p <= newLength; p++) {
            if (p > source.length || source.isHole(p)) {
                h[k++] = p;
            }
        }
        return new PageSeq(newLength, h);
    }

    /** This sequence with positions {@code good} intact (holes elsewhere stay). */
    public PageSeq withoutHoles(int[] good) {
        if (good.length == 0 || holes.length == 0) {
            return this;
        }
        int[] g = good.clone();
        Arrays.sort(g);
        return of(length, Arrays.stream(holes).filter(h -> Arrays.binarySearch(g, h) < 0).toArray());
    }

    /** This sequence with positions {@code bad} (within 1..length) not intact. */
    public PageSeq withHoles(int[] bad) {
        if (bad.length == 0) {
            return this;
        }
        java.util.TreeSet<Integer> all = new java.util.TreeSet<>();
        for (int h : holes) {
            all.add(h);
        }
        for (int b : bad) {
            if (b >= 1 && b <= length) {
                all.add(b);
            }
        }
        return new PageSeq(length, all.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PageSeq p && p.length == length && Arrays.equals(p.holes, holes);
    }

    @Override
    public int hashCode() {
        return 31 * length + Arrays.hashCode(holes);
    }

    @Override
    public String toString() {
        if (length == 0) {
            return "no pages";
        }
        return holes.length == 0 ? "pages 1.." + length : "pages 1.." + length + " with holes (never written, or other content) at "
                + (holes.length <= 12 ? Arrays.toString(holes) : Arrays.toString(Arrays.copyOf(holes, 12)).replace("]", ", ...] (" + holes.length + ")"));
    }
}
