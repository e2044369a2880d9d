package lumen.validate;

import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;

/**
 * The mirror's fast path for the step a trace has most of: a request's server decodes one
 * token, the target's, with no draft in flight. Such a request is held here, in place, between
 * the events that name it otherwise: its output and KV lengths, its L3 counters and the page
 * digests its server reported, read once from the spec state and written back to it
 * ({@link #flush}) before any other event reads or changes it. A Decode is taken here only when
 * the mirror's full step is known to find nothing and to change only those fields, so the two
 * give the same verdict and the same state; any other Decode, and every other event, goes
 * through the full step ({@link Mirror#step}).
 *
 * <p>Why a Decode of a held request is then judged completely by the checks below:
 * <ul>
 * <li>its server's run queue holds it and the server is UP, and its holder (and backup) are or
 *     are not UP, as when it was taken: a run queue changes only by an event that names the
 *     request or by its worker's Fail, and a worker's state only by Fail, Restart, DraftReady or
 *     FullReady. On those, the requests the worker serves or holds copies of, and those the
 *     event names, are written back and let go ({@link #release(Event)}); any other held request
 *     whose server, holder or backup it is sees that worker's epoch moved at its next decode,
 *     which then takes the full step;</li>
 * <li>it has a holder and needs no backup (or the policy places no checkpoints), so no
 *     re-protection is pending (S14) whatever the loads; no draft is in flight (one arrives only
 *     by an Assist that names it); its KV is intact and as long as its context has written, and
 *     its output a prefix of the reference;</li>
 * <li>the token is the reference's next one (the spec's TargetToken on an intact KV), the pages
 *     have the shape of the one position written (checked as {@link ContentTracker} does), and
 *     L3's counters and L4's stay below their bounds (L4 counted as the full step counts it).</li>
 * </ul>
 * Both the write-back on a worker's state change and the epochs are needed in principle: the
 * first for the records the full step reads, the second for a held request whose holder's
 * copies do not list it (a state only an inconsistent trace reaches). Equivalence with the full
 * step is checked event by event on every trace of the test suite.
 *
 * <p>Layout. A decode on a cluster of many requests in flight is bound by memory: each reads
 * state last touched thousands of events before. The held requests therefore live in flat arrays
 * at fixed places, one slot each: its fields and a window of its next reference tokens in two
 * cache lines ({@link #meta}), the digests its decodes reported in one more ({@link #digests}),
 * found by id through an open-addressing table of slot numbers; nothing is allocated per decode.
 */
final class HotRequests {
    // the fields of a slot in meta, in ints from the slot's start
    private static final int ID = 0;
    private static final int OUT = 1;
    private static final int KV = 2;
    private static final int LAG_HOLDER = 3;
    private static final int LAG_BACKUP = 4;
    private static final int REF_LEN = 5;
    private static final int SERVER = 6;
    private static final int HOLDER = 7;
    private static final int BACKUP = 8;
    private static final int CKPT = 9;
    private static final int BCKPT = 10;
    /** Bit 0: the holder was UP when taken; bit 1: the backup was. */
    private static final int UP = 11;
    private static final int SERVER_EPOCH = 12;
    private static final int HOLDER_EPOCH = 13;
    private static final int BACKUP_EPOCH = 14;
    /** Digests reported and not yet in the content tracker: those of the last PENDING positions, KV ending them. */
    private static final int PENDING = 15;
    /** The output position (0-based) of the window's first token. */
    private static final int WINDOW_AT = 16;
    /** Its server's count of pages streamed at its last decode step, -1 for none (L3, {@link Mirror#streamIdle}). */
    private static final int SEEN = 17;
    private static final int WINDOW = 18;
    /** Ints per slot: two cache lines of 64 bytes. */
    private static final int STRIDE = 32;
    private static final int WINDOW_LEN = STRIDE - WINDOW;
    /** Digests per slot before they go to the content tracker: one cache line. */
    private static final int MAX_PENDING = 8;

    /** The findings of an L4 count known not to reach its bound: none can be added. */
    private static final java.util.List<lumen.core.Finding> NOT_REACHED = java.util.List.of();

    private final Mirror mirror;
    private final int pageTokens;
    private final boolean rebackup;
    /** Whether the policy places checkpoints: if not, no request ever has a holder or needs one (S14). */
    private final boolean checkpoints;
    /**
     * Per worker, how many of its state changes (Fail, Restart, DraftReady, FullReady) this mirror
     * has stepped: a held request whose server, holder or backup changed state since it was taken
     * is let go at its next decode, which then takes the full step.
     */
    private final int[] epochs;

    /** The slots' fields and reference windows, {@link #STRIDE} ints each. */
    private int[] meta = new int[64 * STRIDE];
    /** The slots' pending digests, {@link #MAX_PENDING} each. */
    private long[] digests = new long[64 * MAX_PENDING];
    /** Each slot's record when taken (its constant fields and its reference output). */
    private RequestRec[] base = new RequestRec[64];
    /** Free slots, as a stack. */
    private int[] free = new int[0];
    private int freeCount;
    /** Slots ever used. */
    private int used;
    /** Open addressing with linear probing: slot + 1 of each held request, 0 for none. */
    private int[] table = new int[128];
    private int size;
    /** Decodes taken here so far. */
    long taken;

    HotRequests(Mirror mirror, ClusterState s) {
        this.mirror = mirror;
        this.pageTokens = s.config().pageTokens();
        this.rebackup = s.config().readings().rebackup();
        this.epochs = new int[s.workerCount()];
        this.checkpoints = s.policy().placesCheckpoints();
    }

    /** Reads request id's slot, if held, so that its cache lines are on their way before its event comes (any value). */
    int touch(int id) {
        int slot = slot(id);
        if (slot < 0) {
            return 0;
        }
        int b = slot * STRIDE;
        return meta[b + OUT] + meta[b + SERVER_EPOCH] + meta[b + STRIDE - 1] + (int) digests[slot * MAX_PENDING];
    }

    /** Whether request r is held here (it has arrived). */
    boolean holds(int r) {
        return slot(r) >= 0;
    }

    private int home(int id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & (table.length - 1);
    }

    /** The request last found ({@link #slot}) and its slot; -1: none (reset whenever the table changes). */
    private int lastId = -1;
    private int lastSlot;

    /** The slot of request id, or -1. */
    private int slot(int id) {
        if (id == lastId) {
            return lastSlot;
        }
        int found = find(id);
        if (found >= 0) {
            lastId = id;
            lastSlot = found;
        }
        return found;
    }

    private int find(int id) {
        int[] t = table;
        int mask = t.length - 1;
        for (int i = home(id); ; i = (i + 1) & mask) {
            int e = t[i];
            if (e == 0) {
                return -1;
            }
            if (meta[(e - 1) * STRIDE + ID] == id) {
                return e - 1;
            }
        }
    }

    private void insert(int id, int slot) {
        lastId = -1;
        if (2 * (size + 1) > table.length) {
            int[] old = table;
            table = new int[old.length * 2];
            for (int e : old) {
                if (e != 0) {
                    place(meta[(e - 1) * STRIDE + ID], e);
                }
            }
        }
        place(id, slot + 1);
        size++;
    }

    private void place(int id, int entry) {
        int mask = table.length - 1;
        int i = home(id);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = entry;
    }

    /** Removes request id from the table; returns its slot, or -1. The entries after it move back (no tombstones). */
    private int remove(int id) {
        lastId = -1;
        int[] t = table;
        int mask = t.length - 1;
        int i = home(id);
        while (t[i] != 0 && meta[(t[i] - 1) * STRIDE + ID] != id) {
            i = (i + 1) & mask;
        }
        if (t[i] == 0) {
            return -1;
        }
        int found = t[i] - 1;
        t[i] = 0;
        size--;
        for (int j = (i + 1) & mask; t[j] != 0; j = (j + 1) & mask) {
            int k = home(meta[(t[j] - 1) * STRIDE + ID]);
            // the entry at j moves into the hole at i unless its home lies cyclically in (i, j]
            if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
                t[i] = t[j];
                t[j] = 0;
                i = j;
            }
        }
        return found;
    }

    /**
     * Takes Decode d when it is a step the full step would accept with no finding and whose only
     * effect is on the fields held here; false otherwise, with nothing changed (the caller then
     * releases the request and runs the full step).
     */
    boolean decode(Event.Decode d) {
        int id = d.req();
        int slot = slot(id);
        if (slot < 0) {
            slot = take(id);
            if (slot < 0) {
                return false;
            }
        }
        int[] m = meta;
        int b = slot * STRIDE;
        int server = m[b + SERVER];
        int holder = m[b + HOLDER];
        int backup = m[b + BACKUP];
        if (epochs[server] != m[b + SERVER_EPOCH] || holder >= 0 && epochs[holder] != m[b + HOLDER_EPOCH]
                || backup >= 0 && epochs[backup] != m[b + BACKUP_EPOCH]) {
            return false;
        }
        int[] t = d.tokens();
        int out = m[b + OUT];
        int kv = m[b + KV];
        if (d.worker() != server || t.length != 1 || out >= m[b + REF_LEN]) {
            return false;
        }
        int at = out - m[b + WINDOW_AT];
        if (at >= WINDOW_LEN) {
            fillWindow(slot, out);
            at = 0;
        }
        if (t[0] != m[b + WINDOW + at]) {
            return false;
        }
        PageDigest[] pages = d.pages();
        if (pages != null && !PageDigest.hasShape(pages, kv + 1, kv + 1, pageTokens)) {
            return false;
        }
        int fairness = mirror.fairnessSteps();
        int lh = m[b + LAG_HOLDER];
        int lb = m[b + LAG_BACKUP];
        if (fairness > 0) {
            int up = m[b + UP];
            ClusterState s = mirror.current();
            int idle = Mirror.streamIdle(m[b + SEEN], mirror.streamedBy(server)) ? 1 : 0;
            lh = Mirror.lagging(s, holder, (up & 1) != 0, kv, m[b + CKPT]) ? lh + idle : 0;
            lb = Mirror.lagging(s, backup, (up & 2) != 0, kv, m[b + BCKPT]) ? lb + idle : 0;
            if (lh > fairness || lb > fairness) {
                return false; // L3's bound: the full step says so
            }
            if (!mirror.assistQuiet()) {
                if (mirror.assists(mirror.current(), id, server, null)) {
                    return false; // L4's bound
                }
                mirror.assists(mirror.current(), id, server, NOT_REACHED);
            }
        }
        if (pages == null && m[b + PENDING] > 0) {
            // the pending digests are of the positions just before this one: they go now, while KV ends them
            flushDigests(slot);
        }
        if (pages != null) {
            int n = m[b + PENDING];
            if (n == MAX_PENDING) {
                flushDigests(slot);
                n = 0;
            }
            digests[slot * MAX_PENDING + n] = pages[0].digest();
            m[b + PENDING] = n + 1;
        }
        m[b + OUT] = out + 1;
        m[b + KV] = kv + 1;
        m[b + LAG_HOLDER] = lh;
        m[b + LAG_BACKUP] = lb;
        if (fairness > 0) {
            m[b + SEEN] = mirror.streamedBy(server);
        }
        taken++;
        return true;
    }

    /** The slot's window of reference tokens, from output position {@code from} (0-based). */
    private void fillWindow(int slot, int from) {
        int[] ref = base[slot].ref();
        int b = slot * STRIDE;
        int n = Math.min(WINDOW_LEN, ref.length - from);
        System.arraycopy(ref, from, meta, b + WINDOW, n);
        meta[b + WINDOW_AT] = from;
    }

    /**
     * Request id held here from the spec state when its decodes can be taken here, right after a
     * full step of an event that named it, while that step has its record in cache: its next decode
     * then finds it held. Nothing when it is held already.
     */
    void retake(int id) {
        if (slot(id) < 0) {
            take(id);
        }
    }

    /** Request id held here from the spec state: its slot, or -1 when its decodes cannot be taken here. */
    private int take(int id) {
        ClusterState s = mirror.current();
        RequestRec r = s.request(id);
        if (r == null || r.server() >= epochs.length || r.holder() >= epochs.length || r.backup() >= epochs.length
                || r.phase() != RequestPhase.DECODE || r.proposal() != null || !r.outOk() || !r.kv().intact() || r.outLen() < 1
                || r.kv().length() != r.kvLen() || r.server() < 0 || !s.isUp(r.server())
                || !s.worker(r.server()).runq().containsKey(id) || r.holder() < 0 && checkpoints || rebackup && r.backup() < 0) {
            return -1;
        }
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            slot = used++;
            if (used > base.length) {
                base = java.util.Arrays.copyOf(base, base.length * 2);
                meta = java.util.Arrays.copyOf(meta, base.length * STRIDE);
                digests = java.util.Arrays.copyOf(digests, base.length * MAX_PENDING);
            }
        }
        int b = slot * STRIDE;
        int[] m = meta;
        m[b + ID] = id;
        m[b + OUT] = r.outLen();
        m[b + KV] = r.kv().length();
        m[b + LAG_HOLDER] = mirror.lagOf(id * 2L);
        m[b + LAG_BACKUP] = mirror.lagOf(id * 2L + 1);
        m[b + SEEN] = mirror.streamSeenOf(id);
        m[b + REF_LEN] = r.refLen();
        m[b + SERVER] = r.server();
        m[b + HOLDER] = r.holder();
        m[b + BACKUP] = r.backup();
        m[b + CKPT] = r.ckpt().length();
        m[b + BCKPT] = r.bckpt().length();
        m[b + UP] = (r.holder() >= 0 && s.isUp(r.holder()) ? 1 : 0) | (r.backup() >= 0 && s.isUp(r.backup()) ? 2 : 0);
        m[b + SERVER_EPOCH] = epochs[r.server()];
        m[b + HOLDER_EPOCH] = r.holder() >= 0 ? epochs[r.holder()] : 0;
        m[b + BACKUP_EPOCH] = r.backup() >= 0 ? epochs[r.backup()] : 0;
        m[b + PENDING] = 0;
        base[slot] = r;
        fillWindow(slot, r.outLen());
        insert(id, slot);
        return slot;
    }

    /** Before event e's full step: the requests it may read or change are written back and let go. */
    void release(Event e) {
        switch (e.action()) {
            case FAIL, RESTART, DRAFT_READY, FULL_READY -> {
                // the worker's state changes: what the held requests took of it is stale (checked at their next decode)
                int w = e.worker();
                ClusterState s = mirror.current();
                if (w >= 0 && w < epochs.length) {
                    epochs[w]++;
                    // the records the full step reads or changes: those it names, and w's run queue and copies
                    s.worker(w).runq().forEachKey(this::release);
                    s.worker(w).held().forEachKey(this::release);
                }
                for (int id : Validator.namedRequests(e)) {
                    release(id);
                }
            }
            default -> {
                if (e.req() >= 0) {
                    release(e.req());
                }
            }
        }
    }

    /** Every held request written back and let go. */
    void releaseAll() {
        lastId = -1;
        for (int i = 0; i < table.length; i++) {
            if (table[i] != 0) {
                int slot = table[i] - 1;
                flush(slot);
                table[i] = 0;
                free(slot);
            }
        }
        size = 0;
    }

    void release(int id) {
        int slot = remove(id);
        if (slot >= 0) {
            flush(slot);
            free(slot);
        }
    }

    private void free(int slot) {
        base[slot] = null;
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, Math.max(16, free.length * 2));
        }
        free[freeCount++] = slot;
    }

    /** The digests the slot's decodes reported, into the content tracker's record of what its server wrote. */
    private void flushDigests(int slot) {
        int b = slot * STRIDE;
        int n = meta[b + PENDING];
        if (n == 0) {
            return;
        }
        // decode i of these wrote position kv - n + 1 + i: its page's entry is named by that position
        int first = meta[b + KV] - n + 1;
        ContentTracker.written(mirror.content().handle(meta[b + ID]), first, digests, slot * MAX_PENDING, n);
        meta[b + PENDING] = 0;
    }

    /** Writes the slot's decodes back into the spec state, as the full step's Transition would have left it, and its L3 counters. */
    private void flush(int slot) {
        flushDigests(slot);
        int b = slot * STRIDE;
        int id = meta[b + ID];
        RequestRec r = base[slot];
        if (meta[b + OUT] != r.outLen()) {
            // it decoded since it was taken
            mirror.putRequest(new RequestRec(id, r.phase(), r.server(), r.holder(), r.placed(), r.kv().extendIntact(meta[b + KV]), r.ckpt(),
                    r.backup(), r.bckpt(), meta[b + OUT], true, r.promptLen(), r.refLen(), r.maxOut(), r.ref(), null));
        }
        mirror.setLag(id * 2L, meta[b + LAG_HOLDER]);
        mirror.setLag(id * 2L + 1, meta[b + LAG_BACKUP]);
        mirror.setStreamSeen(id, meta[b + SEEN]);
    }
}
