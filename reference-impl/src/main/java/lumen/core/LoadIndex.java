package lumen.core;

/**
 * The UP workers, indexed so that every load-based decision of the spec costs O(log W).
 *
 * <p>A persistent treap keyed by (free budget, worker id), each node augmented with the least
 * loaded, the most loaded and the shortest-queued worker of its subtree. One tree answers:
 * <ul>
 *   <li>{@code ArgMinLoad(HolderCandidates(r))}: the least loaded UP worker other than the
 *       server whose free budget is at least Size(r), a range query over the key;</li>
 *   <li>{@code ArgMinLoad(Serving)} (re-prefill target), {@code ArgMaxLoad(Serving)} (assist
 *       target) and the gateway's shortest queue (arrival target), from the root.</li>
 * </ul>
 * <b>Tie-break</b>: among workers of equal load (or equal queue depth) the lowest worker id wins.
 * The choice is therefore always a member of the spec's argmin (argmax) set, and deterministic.
 * Updates copy one root-to-leaf path, so an index is a value, shared freely between states.
 */
public final class LoadIndex {
    private static final LoadIndex EMPTY = new LoadIndex(null, PIntMap.empty());

    /** One UP worker as the index sees it. */
    public record Entry(int id, long free, double load, int queue) {}

    private static final class Node {
        final Entry e;
        final int prio;
        final Node left;
        final Node right;
        final Entry minLoad;
        final Entry maxLoad;
        final Entry minQueue;
        /**
         * The aggregates' loads, queues and ids, held in the node itself: a node is rebuilt from
         * its children's nodes alone, without reading their entries (one node per level of a path
         * copy, where the entries of the subtrees off the path are rarely in cache).
         */
        final double minL;
        final double maxL;
        final int minId;
        final int maxId;
        final int mqQ;
        final int mqId;

        Node(Entry e, int prio, Node left, Node right) {
            this.e = e;
            this.prio = prio;
            this.left = left;
            this.right = right;
            Entry lo = e;
            Entry hi = e;
            Entry mq = e;
            double loL = e.load();
            double hiL = e.load();
            int loI = e.id();
            int hiI = e.id();
            int q = e.queue();
            int qI = e.id();
            for (Node c : new Node[] {left, right}) {
                if (c == null) {
                    continue;
                }
                // the child's aggregate wins on a smaller (larger, shorter) value, or on a tie with a lower id
                int x = Double.compare(c.minL, loL);
                if (x < 0 || x == 0 && c.minId < loI) {
                    lo = c.minLoad;
                    loL = c.minL;
                    loI = c.minId;
                }
                x = Double.compare(c.maxL, hiL);
                if (x > 0 || x == 0 && c.maxId < hiI) {
                    hi = c.maxLoad;
                    hiL = c.maxL;
                    hiI = c.maxId;
                }
                x = Integer.compare(c.mqQ, q);
                if (x < 0 || x == 0 && c.mqId < qI) {
                    mq = c.minQueue;
                    q = c.mqQ;
                    qI = c.mqId;
                }
            }
            this.minLoad = lo;
            this.maxLoad = hi;
            this.minQueue = mq;
            this.minL = loL;
            this.maxL = hiL;
            this.minId = loI;
            this.maxId = hiI;
            this.mqQ = q;
            this.mqId = qI;
        }

        Node with(Node l, Node r) {
            return new Node(e, prio, l, r);
        }
    }

    private final Node root;
    private final PIntMap<Entry> byId;

    private LoadIndex(Node root, PIntMap<Entry> byId) {
        this.root = root;
        this.byId = byId;
    }

    public static LoadIndex empty() {
        return EMPTY;
    }

    public int size() {
        return byId.size();
    }

    public Entry get(int id) {
        return byId.get(id);
    }

    /** Adds the worker, or replaces its entry. */
    public LoadIndex with(Entry e) {
        Node r = root;
        Entry old = byId.get(e.id());
        if (old != null) {
            if (old.equals(e)) {
                return this;
            }
            if (old.free() == e.free()) {
                // same key, same place in the tree: only the path to it is rebuilt, for its aggregates
                return new LoadIndex(replace(r, e), byId.put(e.id(), e));
            }
            r = delete(r, old);
        }
        return new LoadIndex(insert(r, e, priority(e.id())), byId.put(e.id(), e));
    }

    /** The tree with the entry of e's key replaced by e (the key is in the tree). */
    private static Node replace(Node n, Entry e) {
        int c = cmpKey(e.free(), e.id(), n.e);
        if (c == 0) {
            return new Node(e, n.prio, n.left, n.right);
        }
        return c < 0 ? n.with(replace(n.left, e), n.right) : n.with(n.left, replace(n.right, e));
    }

    /** Removes the worker (when it is no longer UP). */
    public LoadIndex without(int id) {
        Entry old = byId.get(id);
        if (old == null) {
            return this;
        }
        return new LoadIndex(delete(root, old), byId.remove(id));
    }

    // ---- queries -------------------------------------------------------------------------

    /** The least loaded worker of all (lowest id on ties), or -1 when none is UP. */
    public int minLoad() {
        return root == null ? -1 : root.minLoad.id();
    }

    /** The most loaded worker of all (lowest id on ties), or -1 when none is UP. */
    public int maxLoad() {
        return root == null ? -1 : root.maxLoad.id();
    }

    /** The worker with the shortest queue (lowest id on ties), or -1 when none is UP. */
    public int minQueue() {
        return root == null ? -1 : root.minQueue.id();
    }

    /**
     * The least loaded worker, other than {@code exclude}, whose free budget is at least
     * {@code need} (lowest id on ties); -1 when there is none.
     */
    public int minLoadWithRoom(long need, int exclude) {
        Entry best;
        Entry ex = byId.get(exclude);
        if (ex == null || ex.free() < need) {
            best = suffix(root, need, Integer.MIN_VALUE);
        } else {
            best = lessLoaded(range(root, need, Integer.MIN_VALUE, ex.free(), ex.id()),
                    suffix(root, ex.free(), ex.id() + 1));
        }
        return best == null ? -1 : best.id();
    }

    /**
     * The least loaded worker, other than {@code exclude} and {@code exclude2}, whose free budget is
     * at least {@code need} (lowest id on ties); -1 when there is none. For a backup holder.
     */
    public int minLoadWithRoom(long need, int exclude, int exclude2) {
        Entry a = byId.get(exclude);
        Entry b = byId.get(exclude2);
        if (a != null && a.free() < need) {
            a = null;
        }
        if (b != null && b.free() < need) {
            b = null;
        }
        if (a == null || b == null || a.id() == b.id()) {
            Entry only = a != null ? a : b;
            return minLoadWithRoom(need, only == null ? -1 : only.id());
        }
        if (cmpKey(a.free(), a.id(), b) > 0) {
            Entry t = a;
            a = b;
            b = t;
        }
        Entry best = lessLoaded(range(root, need, Integer.MIN_VALUE, a.free(), a.id()),
                lessLoaded(range(root, a.free(), a.id() + 1, b.free(), b.id()), suffix(root, b.free(), b.id() + 1)));
        return best == null ? -1 : best.id();
    }

    // ---- treap internals -----------------------------------------------------------------

    private static int priority(int id) {
        int h = id * 0x9E3779B9;
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        return h ^ (h >>> 13);
    }

    private static int cmpKey(long free, int id, Entry e) {
        int c = Long.compare(free, e.free());
        return c != 0 ? c : Integer.compare(id, e.id());
    }

    static Entry lessLoaded(Entry a, Entry b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        int c = Double.compare(a.load(), b.load());
        return c < 0 || (c == 0 && a.id() < b.id()) ? a : b;
    }

    static Entry moreLoaded(Entry a, Entry b) {
        int c = Double.compare(a.load(), b.load());
        return c > 0 || (c == 0 && a.id() < b.id()) ? a : b;
    }

    static Entry shorterQueue(Entry a, Entry b) {
        int c = Integer.compare(a.queue(), b.queue());
        return c < 0 || (c == 0 && a.id() < b.id()) ? a : b;
    }

    private static Node insert(Node n, Entry e, int prio) {
        if (n == null) {
            return new Node(e, prio, null, null);
        }
        if (cmpKey(e.free(), e.id(), n.e) < 0) {
            Node l = insert(n.left, e, prio);
            if (l.prio > n.prio) {
                return l.with(l.left, n.with(l.right, n.right));
            }
            return n.with(l, n.right);
        }
        Node r = insert(n.right, e, prio);
        if (r.prio > n.prio) {
            return r.with(n.with(n.left, r.left), r.right);
        }
        return n.with(n.left, r);
    }

    private static Node delete(Node n, Entry e) {
        int c = cmpKey(e.free(), e.id(), n.e);
        if (c == 0) {
            return merge(n.left, n.right);
        }
        return c < 0 ? n.with(delete(n.left, e), n.right) : n.with(n.left, delete(n.right, e));
    }

    private static Node merge(Node a, Node b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.prio > b.prio ? a.with(a.left, merge(a.right, b)) : b.with(merge(a, b.left), b.right);
    }

    /** The least loaded entry with key >= (free, id). */
    private static Entry suffix(Node n, long free, int id) {
        Entry best = null;
        while (n != null) {
            if (cmpKey(free, id, n.e) > 0) {
                n = n.right;
            } else {
                best = lessLoaded(best, lessLoaded(n.e, n.right == null ? null : n.right.minLoad));
                n = n.left;
            }
        }
        return best;
    }

    /** The least loaded entry with key < (free, id). */
    private static Entry prefix(Node n, long free, int id) {
        Entry best = null;
        while (n != null) {
            if (cmpKey(free, id, n.e) <= 0) {
                n = n.left;
            } else {
                best = lessLoaded(best, lessLoaded(n.e, n.left == null ? null : n.left.minLoad));
                n = n.right;
            }
        }
        return best;
    }

    /** The least loaded entry with (loFree, loId) <= key < (hiFree, hiId). */
    private static Entry range(Node n, long loFree, int loId, long hiFree, int hiId) {
        while (n != null) {
            if (cmpKey(loFree, loId, n.e) > 0) {
                n = n.right;
            } else if (cmpKey(hiFree, hiId, n.e) <= 0) {
                n = n.left;
            } else {
                return lessLoaded(n.e, lessLoaded(suffix(n.left, loFree, loId), prefix(n.right, hiFree, hiId)));
            }
        }
        return null;
    }
}
