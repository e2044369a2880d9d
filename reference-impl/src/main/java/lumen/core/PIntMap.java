package lumen.core;

import java.util.function.IntConsumer;

/**
 * A persistent map from non-negative ints to values: a 16-way trie with path copying, so that
 * {@link #put} and {@link #remove} return a new map in O(log16 n) and leave this one intact.
 * The decision core keeps its requests and its per-worker queues in it, which is what lets a
 * {@link ClusterState} be a value while each action costs O(log n), not a copy of the cluster.
 * Nodes that become empty are pruned, so memory follows the live entries only.
 *
 * <p>A map of at most {@link #SMALL} entries whose keys do not all fit one trie level (a run
 * queue of a few requests with large ids) is kept flat instead, as its sorted keys and their
 * values: a lookup reads one short array rather than one node per level.
 */
public final class PIntMap<V> {
    private static final int BITS = 4;
    private static final int WIDTH = 1 << BITS;
    private static final int MASK = WIDTH - 1;
    /** The most entries a flat map holds. */
    static final int SMALL = 16;
    private static final PIntMap<?> EMPTY = new PIntMap<>(null, 0, 0, null, null);

    private final Object[] root;
    private final int shift;
    private final int size;
    /** A flat map's keys, ascending, and their values (both null for a trie or the empty map). */
    private final int[] keys;
    private final Object[] vals;

    private PIntMap(Object[] root, int shift, int size, int[] keys, Object[] vals) {
        this.root = root;
        this.shift = shift;
        this.size = size;
        this.keys = keys;
        this.vals = vals;
    }

    @SuppressWarnings("unchecked")
    public static <V> PIntMap<V> empty() {
        return (PIntMap<V>) EMPTY;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    private static int capacityShift(int key) {
        int s = 0;
        while (s < 28 && (key >>> (s + BITS)) != 0) {
            s += BITS;
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    public V get(int key) {
        int[] ks = keys;
        if (ks != null) {
            for (int i = 0; i < ks.length; i++) {
                if (ks[i] == key) {
                    return (V) vals[i];
                }
            }
            return null;
        }
        // capacityShift(key) > shift, without the loop: the key has bits above this trie's top level
        if (key < 0 || root == null || shift < 28 && (key >>> (shift + BITS)) != 0) {
            return null;
        }
        Object[] node = root;
        for (int s = shift; s > 0; s -= BITS) {
            node = (Object[]) node[(key >>> s) & MASK];
            if (node == null) {
                return null;
            }
        }
        return (V) node[key & MASK];
    }

    public boolean containsKey(int key) {
        return get(key) != null;
    }

    public PIntMap<V> put(int key, V value) {
        if (key < 0) {
            throw new IllegalArgumentException("negative key " + key);
        }
        if (value == null) {
            return remove(key);
        }
        if (root != null) {
            return putTrie(key, value);
        }
        PIntMap<V> flat = putFlat(key, value);
        if (flat != null) {
            return flat;
        }
        // a flat map outgrowing SMALL, or entries that all fit the first level: a trie
        return keys == null ? this.putTrie(key, value) : PIntMap.<V>trieOf(keys, vals).putTrie(key, value);
    }

    /** A trie of these entries. */
    private static <V> PIntMap<V> trieOf(int[] k, Object[] v) {
        PIntMap<V> t = empty();
        for (int i = 0; i < k.length; i++) {
            t = t.putTrie(k[i], v[i]);
        }
        return t;
    }

    /** The trie put, on a map in trie form (or empty). */
    private PIntMap<V> putTrie(int key, Object value) {
        Object[] r = root;
        int need = capacityShift(key);
        int s = root == null ? need : shift;
        while (r != null && s < need) {
            Object[] up = new Object[WIDTH];
            up[0] = r;
            r = up;
            s += BITS;
        }
        boolean added = get(key) == null;
        return new PIntMap<>(put(r, s, key, value), s, size + (added ? 1 : 0), null, null);
    }

    /**
     * This flat (or empty) map with key set to value, or null when the result is not flat: more
     * than {@link #SMALL} entries, or every key within the first trie level (where the trie is a
     * plain array).
     */
    private PIntMap<V> putFlat(int key, Object value) {
        int n = keys == null ? 0 : keys.length;
        int i = 0;
        while (i < n && keys[i] < key) {
            i++;
        }
        if (i < n && keys[i] == key) {
            Object[] v = vals.clone();
            v[i] = value;
            return new PIntMap<>(null, 0, size, keys, v);
        }
        if (n == SMALL || (key < WIDTH && (n == 0 || keys[n - 1] < WIDTH))) {
            return null;
        }
        int[] k = new int[n + 1];
        Object[] v = new Object[n + 1];
        System.arraycopy(keys == null ? k : keys, 0, k, 0, i);
        System.arraycopy(vals == null ? v : vals, 0, v, 0, i);
        k[i] = key;
        v[i] = value;
        if (i < n) {
            System.arraycopy(keys, i, k, i + 1, n - i);
            System.arraycopy(vals, i, v, i + 1, n - i);
        }
        return new PIntMap<>(null, 0, n + 1, k, v);
    }

    /** This map's entries in flat form (it has at most SMALL). */
    private PIntMap<V> flatten() {
        int[] k = keys();
        Object[] v = new Object[k.length];
        for (int i = 0; i < k.length; i++) {
            v[i] = get(k[i]);
        }
        return new PIntMap<>(null, 0, k.length, k, v);
    }

    private static Object[] put(Object[] node, int s, int key, Object value) {
        Object[] copy = node == null ? new Object[WIDTH] : node.clone();
        int i = (key >>> s) & MASK;
        copy[i] = s == 0 ? value : put((Object[]) copy[i], s - BITS, key, value);
        return copy;
    }

    public PIntMap<V> remove(int key) {
        if (get(key) == null) {
            return this;
        }
        if (keys != null) {
            int n = keys.length;
            if (n == 1) {
                return empty();
            }
            int i = 0;
            while (keys[i] != key) {
                i++;
            }
            int[] k = new int[n - 1];
            Object[] v = new Object[n - 1];
            System.arraycopy(keys, 0, k, 0, i);
            System.arraycopy(vals, 0, v, 0, i);
            System.arraycopy(keys, i + 1, k, i, n - 1 - i);
            System.arraycopy(vals, i + 1, v, i, n - 1 - i);
            if (k[n - 2] < WIDTH) {
                // every key left fits the first level: a one-level trie
                return trieOf(k, v);
            }
            return new PIntMap<>(null, 0, n - 1, k, v);
        }
        Object[] nr = remove(root, shift, key);
        if (nr == null) {
            return empty();
        }
        PIntMap<V> t = new PIntMap<>(nr, shift, size - 1, null, null);
        return shift > 0 && size - 1 <= SMALL / 2 ? t.flatten() : t;
    }

    private static Object[] remove(Object[] node, int s, int key) {
        Object[] copy = node.clone();
        int i = (key >>> s) & MASK;
        copy[i] = s == 0 ? null : remove((Object[]) copy[i], s - BITS, key);
        for (Object o : copy) {
            if (o != null) {
                return copy;
            }
        }
        return null;
    }

    /**
     * The sum over the entries of {@code mix(add(key, value's fingerprint))}, which does not
     * depend on the map's form or on the order of its entries. A trie node is immutable and keeps
     * its keys where it sits, so its part of the sum is remembered in {@code memo} by identity: the
     * candidate states of a partial trace share all but the paths they changed.
     */
    long entrySum(java.util.function.ToLongFunction<Object> valueFp, java.util.IdentityHashMap<Object, Long> memo) {
        if (keys != null) {
            return flatSum(valueFp, memo);
        }
        return root == null ? 0 : nodeSum(root, shift, 0, valueFp, memo);
    }

    private long flatSum(java.util.function.ToLongFunction<Object> valueFp, java.util.IdentityHashMap<Object, Long> memo) {
        Long known = memo == null ? null : memo.get(vals);
        if (known != null) {
            return known;
        }
        long sum = 0;
        for (int i = 0; i < keys.length; i++) {
            sum += Fingerprint.mix(Fingerprint.add(keys[i], valueFp.applyAsLong(vals[i])));
        }
        if (memo != null) {
            memo.put(vals, sum);
        }
        return sum;
    }

    private static long nodeSum(Object[] node, int s, int prefix, java.util.function.ToLongFunction<Object> valueFp,
                                java.util.IdentityHashMap<Object, Long> memo) {
        Long known = memo == null ? null : memo.get(node);
        if (known != null) {
            return known;
        }
        long sum = 0;
        for (int i = 0; i < WIDTH; i++) {
            if (node[i] != null) {
                int k = prefix | (i << s);
                sum += s == 0 ? Fingerprint.mix(Fingerprint.add(k, valueFp.applyAsLong(node[i])))
                        : nodeSum((Object[]) node[i], s - BITS, k, valueFp, memo);
            }
        }
        if (memo != null) {
            memo.put(node, sum);
        }
        return sum;
    }

    /** Calls {@code action} with every key, in ascending order. */
    public void forEachKey(IntConsumer action) {
        if (keys != null) {
            for (int k : keys) {
                action.accept(k);
            }
        } else if (root != null) {
            walk(root, shift, 0, action);
        }
    }

    private static void walk(Object[] node, int s, int prefix, IntConsumer action) {
        for (int i = 0; i < WIDTH; i++) {
            if (node[i] != null) {
                int k = prefix | (i << s);
                if (s == 0) {
                    action.accept(k);
                } else {
                    walk((Object[]) node[i], s - BITS, k, action);
                }
            }
        }
    }

    /** Calls {@code action} with every value, in ascending order of the keys, reading each node once. */
    @SuppressWarnings("unchecked")
    public void forEachValue(java.util.function.Consumer<? super V> action) {
        if (keys != null) {
            for (Object v : vals) {
                action.accept((V) v);
            }
        } else if (root != null) {
            walkValues(root, shift, (java.util.function.Consumer<Object>) action);
        }
    }

    private static void walkValues(Object[] node, int s, java.util.function.Consumer<Object> action) {
        for (Object o : node) {
            if (o != null) {
                if (s == 0) {
                    action.accept(o);
                } else {
                    walkValues((Object[]) o, s - BITS, action);
                }
            }
        }
    }

    /** The keys, ascending. */
    public int[] keys() {
        if (keys != null) {
            return keys.clone();
        }
        int[] out = new int[size];
        int[] n = {0};
        forEachKey(k -> out[n[0]++] = k);
        return out;
    }
}
