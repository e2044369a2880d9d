package lumen.core;

import java.util.function.IntConsumer;

/**
 * A persistent map from non-negative ints to values: a 16-way trie with path copying, so that
 * {@link #put} and {@link #remove} return a new map in O(log16 n) and leave this one intact.
 * The decision core keeps its requests and its per-worker queues in it, which is what lets a
 * {@link ClusterState} be a value while each action costs O(log n), not a copy of the cluster.
 * Nodes that become empty are pruned, so memory follows the live entries only.
 */
public final class PIntMap<V> {
    private static final int BITS = 4;
    private static final int WIDTH = 1 << BITS;
    private static final int MASK = WIDTH - 1;
    private static final PIntMap<?> EMPTY = new PIntMap<>(null, 0, 0);

    private final Object[] root;
    private final int shift;
    private final int size;

    private PIntMap(Object[] root, int shift, int size) {
        this.root = root;
        this.shift = shift;
        this.size = size;
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
        Object[] r = root;
        int s = shift;
        int need = capacityShift(key);
        if (r == null) {
            s = need;
        } else {
            while (s < need) {
                Object[] up = new Object[WIDTH];
                up[0] = r;
                r = up;
                s += BITS;
            }
        }
        boolean added = r == root ? get(key) == null : true;
        return new PIntMap<>(put(r, s, key, value), s, size + (added ? 1 : 0));
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
        Object[] nr = remove(root, shift, key);
        return nr == null ? empty() : new PIntMap<>(nr, shift, size - 1);
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

    /** Calls {@code action} with every key, in ascending order. */
    public void forEachKey(IntConsumer action) {
        if (root != null) {
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

    /** The keys, ascending. */
    public int[] keys() {
        int[] out = new int[size];
        int[] n = {0};
        forEachKey(k -> out[n[0]++] = k);
        return out;
    }
}
