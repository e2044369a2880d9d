package lumen.core;

/**
 * A persistent set of non-negative ints: every id below {@code floor}, and one 64-bit word per
 * block of 64 ids above it. Adding the last missing id of the block at the floor raises the floor
 * past it, so ids added in roughly ascending order (requests finishing roughly in arrival order)
 * cost memory for the spread of the ids not yet added, not for all the ids ever added.
 */
public final class IdSet {
    public static final IdSet EMPTY = new IdSet(0, PIntMap.empty());

    private final int floor;
    private final PIntMap<Long> words;

    private IdSet(int floor, PIntMap<Long> words) {
        this.floor = floor;
        this.words = words;
    }

    public boolean contains(int id) {
        if (id < 0) {
            return false;
        }
        if (id < floor) {
            return true;
        }
        Long w = words.get(id >>> 6);
        return w != null && (w & 1L << (id & 63)) != 0;
    }

    public IdSet add(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("negative id " + id);
        }
        if (contains(id)) {
            return this;
        }
        Long w = words.get(id >>> 6);
        PIntMap<Long> ws = words.put(id >>> 6, (w == null ? 0L : w) | 1L << (id & 63));
        int f = floor;
        Long full;
        while (f <= Integer.MAX_VALUE - 64 && (full = ws.get(f >>> 6)) != null && full == -1L) {
            ws = ws.remove(f >>> 6);
            f += 64;
        }
        return new IdSet(f, ws);
    }

    /** The fingerprint of the set's content. */
    public long fingerprint() {
        long[] h = {Fingerprint.mix(floor + 0x1D5E7L)};
        words.forEachKey(k -> h[0] += Fingerprint.mix(Fingerprint.add(k, words.get(k))));
        return h[0];
    }
}
