package lumen.core;

/**
 * The UP workers, indexed so that the load-based decisions of the spec are answered without a
 * scan of the cluster.
 *
 * <p>A persistent tree over worker ids, {@value #FAN} children a node, each node holding, inline
 * for each child, that child's least loaded, most loaded and shortest-queued worker and its
 * largest free budget. One tree answers:
 * <ul>
 *   <li>{@code ArgMinLoad(HolderCandidates(r))}: the least loaded UP worker other than the
 *       server whose free budget is at least Size(r) ({@link #minLoadWithRoom}), best first: the
 *       children are visited in the order of their least load, a child is skipped when it has no
 *       worker with that room or none less loaded than the best found so far;</li>
 *   <li>{@code ArgMinLoad(Serving)} (re-prefill target), {@code ArgMaxLoad(Serving)} (assist
 *       target) and the gateway's shortest queue (arrival target), from the root, in O(1).</li>
 * </ul>
 * <b>Tie-break</b>: among workers of equal load (or equal queue depth) the lowest worker id wins.
 * The choice is therefore always a member of the spec's argmin (argmax) set, and deterministic.
 *
 * <p>Costs, for W workers: an update copies one root-to-leaf path of log<sub>{@value #FAN}</sub> W
 * nodes (four at 1,000 workers) and reads no other node, since a node holds its children's
 * aggregates itself. {@link #minLoadWithRoom} descends one path when the least loaded worker
 * outside the exclusions has the room (the common case while budgets are not tight); when the
 * least loaded workers lack the room it visits more subtrees, at most every node that has a
 * worker with the room (a scan, at worst). An index is a value, shared freely between states.
 */
public final class LoadIndex {
    private static final int BITS = 3;
    static final int FAN = 1 << BITS;
    private static final int MASK = FAN - 1;

    // the longs of one child's aggregate in a node, from the child's start (K longs a child);
    // loads are held as order keys (key): compared as longs, they order as Double.compare does
    private static final int MIN_L = 0;
    private static final int MAX_L = 1;
    /** The least loaded worker's id in the high 32 bits, the most loaded's in the low; -1 (both -1) when the child has no worker. */
    private static final int IDS = 2;
    /** The shortest queue in the high 32 bits, its worker's id in the low. */
    private static final int QUEUE = 3;
    /** The largest free budget of the child's workers ({@link Long#MIN_VALUE} when none). */
    private static final int FREE = 4;
    private static final int K = 5;

    /** A node's aggregates with no worker under any child; only ever copied, never written. */
    private static final long[] NONE = new long[FAN * K];

    static {
        for (int c = 0; c < FAN; c++) {
            NONE[c * K + IDS] = -1L;
            NONE[c * K + FREE] = Long.MIN_VALUE;
        }
    }

    private static final LoadIndex EMPTY = new LoadIndex(new Node(NONE, null, null), 1, 0);

    /** One UP worker as the index sees it. */
    public record Entry(int id, long free, double load, int queue) {}

    /**
     * A node: per child, {@link #K} longs of aggregates; at the bottom level a child is one worker
     * (its load, id, queue and free budget), above it a node ({@link #kids}).
     */
    private static final class Node {
        final long[] a;
        /** The children, null at the bottom level; a null child has no worker. */
        final Node[] kids;
        /**
         * The owner that made this node by an in-place update ({@link #with(int, long, double, int, Object)}),
         * which updates it in place again; null for a node of a persistent update, never written.
         */
        final Object edit;

        Node(long[] a, Node[] kids, Object edit) {
            this.a = a;
            this.kids = kids;
            this.edit = edit;
        }
    }

    private final Node root;
    /** Levels of nodes: ids below FAN^height fit. */
    private final int height;
    private final int size;
    private final int minLoad;
    private final int maxLoad;
    private final int minQueue;

    private LoadIndex(Node root, int height, int size) {
        this.root = root;
        this.height = height;
        this.size = size;
        long[] all = new long[K];
        summarize(root.a, all, 0);
        this.minLoad = (int) (all[IDS] >> 32);
        this.maxLoad = (int) all[IDS];
        this.minQueue = size == 0 ? -1 : (int) all[QUEUE];
    }

    public static LoadIndex empty() {
        return EMPTY;
    }

    public int size() {
        return size;
    }

    /** The worker's entry, or null when it is not in the index. */
    public Entry get(int id) {
        Node n = bottomOf(id);
        if (n == null) {
            return null;
        }
        long[] a = n.a;
        int at = (id & MASK) * K;
        return new Entry(id, a[at + FREE], Double.longBitsToDouble(key(a[at + MIN_L])), (int) (a[at + QUEUE] >> 32));
    }

    /** Adds the worker, or replaces its entry. */
    public LoadIndex with(Entry e) {
        return with(e.id(), e.free(), e.load(), e.queue());
    }

    /** Adds worker {@code id} with this free budget, load and queue depth, or replaces its entry. */
    public LoadIndex with(int id, long free, double load, int queue) {
        return with(id, free, load, queue, null);
    }

    /**
     * As {@link #with(int, long, double, int)}; with an owner {@code edit} (non-null), the nodes
     * that earlier updates of the same owner made are updated in place, so the index this is
     * called on, and every index of that owner before it, must not be read again. The owner's
     * {@link ClusterState} ensures that; other nodes are copied as in a persistent update.
     */
    LoadIndex with(int id, long free, double load, int queue, Object edit) {
        if (id < 0) {
            throw new IllegalArgumentException("worker id " + id);
        }
        // + 0.0 makes -0.0 the 0.0 it is among the spec's reals (and in a scan that compares with <)
        long bits = key(Double.doubleToLongBits(load + 0.0));
        Node old = bottomOf(id);
        if (old != null) {
            long[] a = old.a;
            int at = (id & MASK) * K;
            if (a[at + FREE] == free && a[at + MIN_L] == bits && (int) (a[at + QUEUE] >> 32) == queue) {
                return this;
            }
        }
        Node r = root;
        int h = height;
        while (!fits(id, h)) {
            // one more level: the old root becomes the first child of a new one
            Node[] kids = new Node[FAN];
            kids[0] = r;
            long[] a = NONE.clone();
            summarize(r.a, a, 0);
            r = new Node(a, kids, edit);
            h++;
        }
        return new LoadIndex(set(r, h, id, bits, free, queue, true, edit), h, old != null ? size : size + 1);
    }

    /** Removes the worker (when it is no longer UP). */
    public LoadIndex without(int id) {
        return without(id, null);
    }

    /** As {@link #without(int)}, in place for an owner as {@link #with(int, long, double, int, Object)}. */
    LoadIndex without(int id, Object edit) {
        if (bottomOf(id) == null) {
            return this;
        }
        return new LoadIndex(set(root, height, id, 0, 0, 0, false, edit), height, size - 1);
    }

    /**
     * The node at {@code level} with worker id's entry set (or removed): node n itself when owner
     * {@code edit} made it, updated in place, else a copy of it, the path below done the same way.
     */
    private static Node set(Node n, int level, int id, long bits, long free, int queue, boolean present, Object edit) {
        int c = (id >>> (BITS * (level - 1))) & MASK;
        boolean mine = n != null && edit != null && n.edit == edit;
        long[] a = mine ? n.a : (n == null ? NONE : n.a).clone();
        int at = c * K;
        if (level == 1) {
            if (present) {
                a[at + MIN_L] = bits;
                a[at + MAX_L] = bits;
                a[at + IDS] = ((long) id << 32) | (id & 0xFFFFFFFFL);
                a[at + QUEUE] = ((long) queue << 32) | (id & 0xFFFFFFFFL);
                a[at + FREE] = free;
            } else {
                System.arraycopy(NONE, at, a, at, K);
            }
            return mine ? n : new Node(a, null, edit);
        }
        Node[] kids = mine ? n.kids : n == null ? new Node[FAN] : n.kids.clone();
        Node kid = set(kids[c], level - 1, id, bits, free, queue, present, edit);
        kids[c] = kid;
        summarize(kid.a, a, at);
        return mine ? n : new Node(a, kids, edit);
    }

    /** Writes the aggregate over the children of node aggregates {@code a} into {@code into} at {@code at}. */
    private static void summarize(long[] a, long[] into, int at) {
        int lo = -1;
        int hi = -1;
        int mq = -1;
        long free = Long.MIN_VALUE;
        for (int c = 0; c < FAN * K; c += K) {
            long ids = a[c + IDS];
            if (ids == -1L) {
                continue;
            }
            if (lo < 0) {
                lo = c;
                hi = c;
                mq = c;
            } else {
                // slots are in id order: on a tie the earlier slot's worker has the lower id and stays
                if (a[c + MIN_L] < a[lo + MIN_L]) {
                    lo = c;
                }
                if (a[c + MAX_L] > a[hi + MAX_L]) {
                    hi = c;
                }
                if (a[c + QUEUE] >> 32 < a[mq + QUEUE] >> 32) {
                    mq = c;
                }
            }
            free = Math.max(free, a[c + FREE]);
        }
        if (lo < 0) {
            System.arraycopy(NONE, 0, into, at, K);
            return;
        }
        into[at + MIN_L] = a[lo + MIN_L];
        into[at + MAX_L] = a[hi + MAX_L];
        into[at + IDS] = (a[lo + IDS] & 0xFFFFFFFF00000000L) | (a[hi + IDS] & 0xFFFFFFFFL);
        into[at + QUEUE] = a[mq + QUEUE];
        into[at + FREE] = free;
    }

    /** Whether a tree of {@code h} levels has a place for id (from 11 levels on, every int). */
    private static boolean fits(int id, int h) {
        // a shift by 32 or more would wrap (Java shifts ints by the distance's low 5 bits)
        return BITS * h >= Integer.SIZE || id >>> (BITS * h) == 0;
    }

    /**
     * The bottom node that holds worker id's entry, its slot at {@code (id & MASK) * K}; null when
     * the id is not in the index.
     */
    private Node bottomOf(int id) {
        if (id < 0 || !fits(id, height)) {
            return null;
        }
        Node n = root;
        for (int level = height; level > 1; level--) {
            n = n.kids[(id >>> (BITS * (level - 1))) & MASK];
            if (n == null) {
                return null;
            }
        }
        return n.a[(id & MASK) * K + IDS] == -1L ? null : n;
    }

    // ---- queries -------------------------------------------------------------------------

    /** The least loaded worker of all (lowest id on ties), or -1 when none is UP. */
    public int minLoad() {
        return minLoad;
    }

    /** The most loaded worker of all (lowest id on ties), or -1 when none is UP. */
    public int maxLoad() {
        return maxLoad;
    }

    /** The worker with the shortest queue (lowest id on ties), or -1 when none is UP. */
    public int minQueue() {
        return minQueue;
    }

    /**
     * The least loaded worker, other than {@code exclude}, whose free budget is at least
     * {@code need} (lowest id on ties); -1 when there is none.
     */
    public int minLoadWithRoom(long need, int exclude) {
        return minLoadWithRoom(need, exclude, exclude);
    }

    /**
     * The least loaded worker, other than {@code exclude} and {@code exclude2}, whose free budget is
     * at least {@code need} (lowest id on ties); -1 when there is none. For a backup holder.
     */
    public int minLoadWithRoom(long need, int exclude, int exclude2) {
        if (size == 0) {
            return -1;
        }
        Search s = new Search(need, exclude, exclude2);
        s.visit(root, height);
        return s.id;
    }

    /** A best-first search for {@link #minLoadWithRoom}: the best worker found so far and what it must satisfy. */
    private static final class Search {
        final long need;
        final int exclude;
        final int exclude2;
        /** The best worker's load, as an order key, and id; -1: none found yet. */
        long load;
        int id = -1;

        Search(long need, int exclude, int exclude2) {
            this.need = need;
            this.exclude = exclude;
            this.exclude2 = exclude2;
        }

        /**
         * Visits the children of node n in the order of their least load (lowest id on ties), each
         * while it could still hold a better worker: one with the room, less loaded than the best
         * found (a child's least load bounds every worker under it from below).
         */
        void visit(Node n, int level) {
            long[] a = n.a;
            int done = 0;
            while (true) {
                int pick = -1;
                long pickLoad = 0;
                int pickId = 0;
                for (int c = 0; c < FAN; c++) {
                    int at = c * K;
                    long ids = a[at + IDS];
                    if ((done & (1 << c)) != 0 || ids == -1L || a[at + FREE] < need) {
                        continue;
                    }
                    long l = a[at + MIN_L];
                    int i = (int) (ids >> 32);
                    if (id >= 0 && !less(l, i, load, id) || pick >= 0 && !less(l, i, pickLoad, pickId)) {
                        continue;
                    }
                    pick = c;
                    pickLoad = l;
                    pickId = i;
                }
                if (pick < 0) {
                    return;
                }
                done |= 1 << pick;
                if (level > 1) {
                    visit(n.kids[pick], level - 1);
                } else if (pickId != exclude && pickId != exclude2) {
                    // a worker with the room, less loaded than any found so far
                    load = pickLoad;
                    id = pickId;
                }
                if (id == pickId) {
                    // the best is the least loaded worker of every child left: none can beat it
                    return;
                }
            }
        }

        private static boolean less(long l, int i, long l2, int i2) {
            return l < l2 || l == l2 && i < i2;
        }
    }

    /**
     * The order key of a double's bits, and back (the map is its own inverse): as signed longs,
     * keys order as {@link Double#compare} orders the doubles (-0.0 below 0.0, NaN above all).
     */
    private static long key(long bits) {
        return bits ^ ((bits >> 63) & Long.MAX_VALUE);
    }
}
