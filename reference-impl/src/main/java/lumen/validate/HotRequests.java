package lumen.validate;

import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;

/**
 * The mirror's fast path for the step a trace has most of: a request's server decodes one
 * token, the target's, with no draft in flight. Such a request is held here, in place, between
 * the events that name it otherwise: its output and KV lengths, its L3 counters and its content
 * record, read once from the spec state and written back to it ({@link #flush}) before any other
 * event touches it. A Decode is taken here only when the mirror's full step is known to find
 * nothing and to change only those fields, so the two give the same verdict and the same state;
 * any other Decode, and every other event, goes through the full step ({@link Mirror#step}).
 *
 * <p>Why a Decode of a held request is then judged completely by the checks below:
 * <ul>
 * <li>its server's run queue holds it and the server is UP, and its holder (and backup) are or
 *     are not UP, as when it was taken: a run queue changes only by an event that names the
 *     request or by its worker's Fail, and a worker's state only by Fail, Restart, DraftReady or
 *     FullReady, on which every held request is written back and let go ({@link #release});</li>
 * <li>it has a holder and needs no backup (or the policy places no checkpoints), so no
 *     re-protection is pending (S14) whatever the loads; no draft is in flight (one arrives only by an Assist that names it); its KV is intact
 *     and as long as its context has written, and its output a prefix of the reference;</li>
 * <li>the token is the reference's next one (the spec's TargetToken on an intact KV), the pages
 *     have the shape of the one position written (checked as {@link ContentTracker} does), and L3's
 *     counters stay below their bound; with an ASSISTING worker idle (L4) nothing is taken.</li>
 * </ul>
 * Equivalence with the full step is checked event by event on every trace of the test suite.
 */
final class HotRequests {
    /** One held request: its record when taken, and what its decodes changed since. */
    private static final class Hot {
        final int id;
        final RequestRec base;
        final int[] ref;
        final int refLen;
        final int promptLen;
        final int server;
        final int holder;
        final int backup;
        final int ckpt;
        final int bckpt;
        final boolean holderUp;
        final boolean backupUp;
        /** The epochs of its server, holder and backup when taken ({@link #epochs}). */
        final int serverEpoch;
        final int holderEpoch;
        final int backupEpoch;
        /** The pages its decodes wrote, in order, not yet in the content tracker ({@link #flushPages}). */
        PageDigest[] pages = NO_PAGES;
        int pending;
        int outLen;
        int kvLen;
        /** L3's counters of the holder's and the backup's copy (0: none), as the mirror's streamLag keeps them. */
        int lagHolder;
        int lagBackup;
        /** Decodes taken since the record was read. */
        int decoded;

        Hot(RequestRec r, ClusterState s, int[] epochs, int lagHolder, int lagBackup) {
            this.id = r.id();
            this.base = r;
            // a copy, allocated beside this record: a decode then reads one neighbourhood of memory
            this.ref = r.ref().clone();
            this.refLen = r.refLen();
            this.promptLen = r.promptLen();
            this.server = r.server();
            this.holder = r.holder();
            this.backup = r.backup();
            this.ckpt = r.ckpt().length();
            this.bckpt = r.bckpt().length();
            this.holderUp = s.isUp(holder);
            this.backupUp = backup >= 0 && s.isUp(backup);
            this.serverEpoch = epochs[server];
            this.holderEpoch = holder >= 0 ? epochs[holder] : 0;
            this.backupEpoch = backup >= 0 ? epochs[backup] : 0;
            this.outLen = r.outLen();
            this.kvLen = r.kv().length();
            this.lagHolder = lagHolder;
            this.lagBackup = lagBackup;
        }
    }

    private static final PageDigest[] NO_PAGES = new PageDigest[0];
    /** The most pages a held request keeps before they go to the content tracker. */
    private static final int MAX_PENDING = 64;

    /** The findings of an L4 count known not to reach its bound: none can be added. */
    private static final java.util.List<lumen.core.Finding> NOT_REACHED = java.util.List.of();

    private final Mirror mirror;
    /**
     * The held requests, by id: open addressing with linear probing, each slot the record itself
     * (its id is the key), so a lookup reads the slot and the record a decode needs anyway.
     */
    private Hot[] table = new Hot[64];
    private int size;
    /** Decodes taken here so far. */
    long taken;
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

    HotRequests(Mirror mirror, ClusterState s) {
        this.mirror = mirror;
        this.pageTokens = s.config().pageTokens();
        this.rebackup = s.config().readings().rebackup();
        this.epochs = new int[s.workerCount()];
        this.checkpoints = s.policy().placesCheckpoints();
    }

    /** Whether request r is held here (it has arrived). */
    boolean holds(int r) {
        return get(r) != null;
    }

    private int home(int id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & (table.length - 1);
    }

    private Hot get(int id) {
        Hot[] t = table;
        int mask = t.length - 1;
        for (int i = home(id); ; i = (i + 1) & mask) {
            Hot h = t[i];
            if (h == null || h.id == id) {
                return h;
            }
        }
    }

    private void put(Hot h) {
        if (2 * (size + 1) > table.length) {
            Hot[] old = table;
            table = new Hot[old.length * 2];
            for (Hot o : old) {
                if (o != null) {
                    insert(o);
                }
            }
        }
        insert(h);
        size++;
    }

    private void insert(Hot h) {
        int mask = table.length - 1;
        int i = home(h.id);
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = h;
    }

    /** Removes and returns the record of request id, or null; the slots after it move back (no tombstones). */
    private Hot remove(int id) {
        Hot[] t = table;
        int mask = t.length - 1;
        int i = home(id);
        while (t[i] != null && t[i].id != id) {
            i = (i + 1) & mask;
        }
        Hot found = t[i];
        if (found == null) {
            return null;
        }
        t[i] = null;
        size--;
        for (int j = (i + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            int k = home(t[j].id);
            // t[j] moves into the hole at i unless its home lies cyclically in (i, j]
            if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
                t[i] = t[j];
                t[j] = null;
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
        Hot h = get(id);
        if (h == null) {
            h = take(id);
            if (h == null) {
                return false;
            }
        }
        if (epochs[h.server] != h.serverEpoch || h.holder >= 0 && epochs[h.holder] != h.holderEpoch || h.backup >= 0 && epochs[h.backup] != h.backupEpoch) {
            return false;
        }
        int[] t = d.tokens();
        int out = h.outLen;
        int kv = h.kvLen;
        if (d.worker() != h.server || t.length != 1 || out >= h.refLen || t[0] != h.ref[out]) {
            return false;
        }
        PageDigest[] pages = d.pages();
        if (pages != null && !PageDigest.hasShape(pages, kv + 1, kv + 1, pageTokens)) {
            return false;
        }
        int fairness = mirror.fairnessSteps();
        int lh = h.lagHolder;
        int lb = h.lagBackup;
        if (fairness > 0) {
            lh = lag(h.holder, h.holderUp, h.ckpt, kv, lh);
            lb = lag(h.backup, h.backupUp, h.bckpt, kv, lb);
            if (lh > fairness || lb > fairness) {
                return false; // L3's bound: the full step says so
            }
            if (!mirror.assistQuiet() && mirror.assists(mirror.current(), id, h.server, null)) {
                return false; // L4's bound
            }
        }
        if (pages != null) {
            if (h.pending == h.pages.length) {
                if (h.pending == MAX_PENDING) {
                    flushPages(h);
                } else {
                    h.pages = java.util.Arrays.copyOf(h.pages, Math.max(4, 2 * h.pending));
                }
            }
            h.pages[h.pending++] = pages[0];
        }
        if (fairness > 0 && !mirror.assistQuiet()) {
            mirror.assists(mirror.current(), id, h.server, NOT_REACHED);
        }
        h.outLen = out + 1;
        h.kvLen = kv + 1;
        h.lagHolder = lh;
        h.lagBackup = lb;
        h.decoded++;
        taken++;
        return true;
    }

    /** Mirror.lag's counter after one more decode step with this copy, kv positions written before it. */
    private int lag(int copyHolder, boolean up, int saved, int kv, int n) {
        if (copyHolder < 0 || !up || kv - saved < pageTokens || mirror.current().streamRoom(copyHolder) < pageTokens) {
            return 0;
        }
        return n + 1;
    }

    /** Request r held here from the spec state, or null when its decodes cannot be taken here. */
    private Hot take(int id) {
        ClusterState s = mirror.current();
        RequestRec r = s.request(id);
        if (r == null || r.server() >= epochs.length || r.holder() >= epochs.length || r.backup() >= epochs.length
                || r.phase() != RequestPhase.DECODE || r.proposal() != null || !r.outOk() || !r.kv().intact() || r.outLen() < 1
                || r.kv().length() != r.kvLen() || r.server() < 0 || !s.isUp(r.server())
                || !s.worker(r.server()).runq().containsKey(id) || r.holder() < 0 && checkpoints || rebackup && r.backup() < 0
                || s.isForgotten(id)) {
            return null;
        }
        Hot h = new Hot(r, s, epochs, mirror.lagOf(id * 2L), mirror.lagOf(id * 2L + 1));
        put(h);
        return h;
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
        for (Hot h : table) {
            if (h != null) {
                flush(h.id, h);
            }
        }
        java.util.Arrays.fill(table, null);
        size = 0;
    }

    void release(int id) {
        Hot h = remove(id);
        if (h != null) {
            flush(id, h);
        }
    }

    /** The pages h's decodes wrote, into the content tracker's record of what its server wrote. */
    private void flushPages(Hot h) {
        if (h.pending > 0) {
            ContentTracker.written(mirror.content().handle(h.id), h.pages, h.pending);
            java.util.Arrays.fill(h.pages, 0, h.pending, null);
            h.pending = 0;
        }
    }

    /** Writes h's decodes back into the spec state, as the full step's Transition would have left it, and its L3 counters. */
    private void flush(int id, Hot h) {
        flushPages(h);
        if (h.decoded > 0) {
            RequestRec r = h.base;
            mirror.putRequest(new RequestRec(id, r.phase(), r.server(), r.holder(), r.placed(), r.kv().extendIntact(h.kvLen), r.ckpt(),
                    r.backup(), r.bckpt(), h.outLen, true, r.promptLen(), r.refLen(), r.maxOut(), r.ref(), null));
        }
        mirror.setLag(id * 2L, h.lagHolder);
        mirror.setLag(id * 2L + 1, h.lagBackup);
    }
}
