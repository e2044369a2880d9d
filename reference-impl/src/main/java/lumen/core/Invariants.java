package lumen.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The spec's invariants (S1 to S11, S13, S15, S17) as Java checks, each named by its property ID and stated over
 * one request or one worker, as the TLA+ operators are ({@code \A r : ...}, {@code \A w : ...}).
 * {@link #all} checks a whole state (the property tests do, after every step); {@link #touched}
 * checks what one event can have changed (the trace validator does, in O(1) per event for all
 * but failures and handovers).
 *
 * <p>The Java state holds {@code Server(r)} as a field, so a request can sit in one run queue at
 * most by construction; S2 is therefore checked at the steps that enqueue ({@link SpecStep}) and,
 * over the run queues themselves, by {@link #s2}.
 */
public final class Invariants {
    private Invariants() {}

    /** Every violation in {@code s}, in property order. */
    public static List<Finding> all(ClusterState s) {
        List<Finding> out = new ArrayList<>();
        for (int w = 0; w < s.workerCount(); w++) {
            checkWorker(s, w, out);
        }
        s.requests().forEachKey(id -> checkRequest(s, s.request(id), out));
        // S2 in one pass over the run queues; the scan names the queues of each request found twice
        com.carrotsearch.hppc.IntIntHashMap queues = new com.carrotsearch.hppc.IntIntHashMap();
        for (int w = 0; w < s.workerCount(); w++) {
            s.worker(w).runq().forEachKey(id -> queues.addTo(id, 1));
        }
        s.requests().forEachKey(id -> {
            if (queues.get(id) > 1) {
                add(out, s2(s, id));
            }
        });
        s15(s).forEach(f -> add(out, f));
        out.sort(Finding.BY_RANK);
        return out;
    }

    /** The violations in {@code post} among what event {@code e} touched, {@code pre} its pre-state. */
    public static List<Finding> touched(ClusterState pre, ClusterState post, Event e) {
        List<Finding> out = new ArrayList<>(0);
        int r = e.req();
        switch (e.action()) {
            // Fail drops every draft of the failed worker itself (Transition), so only FullReady,
            // which drops the drafts it lists, can leave one behind
            case FAIL -> {
                Event.Fail f = (Event.Fail) e;
                for (int[] ids : new int[][] {f.interrupted(), f.orphaned(), pre.worker(f.worker()).runq().keys(),
                    post.worker(f.worker()).held().keys()}) {
                    checkRequests(post, ids, out);
                }
            }
            case FULL_READY -> {
                checkRequests(post, ((Event.FullReady) e).dropped(), out);
                checkRequests(post, post.requestsWithProposalFrom(e.worker()), out);
            }
            default -> {
                RequestRec rec = r >= 0 ? post.request(r) : null;
                if (rec != null) {
                    checkRequest(post, rec, out);
                }
            }
        }
        if (r >= 0 && (e.action() == Action.PREFILL || e.action() == Action.DECODE)) {
            RequestRec was = pre.request(r);
            if (was != null && was.server() != e.worker()) {
                add(out, s2(post, r));
            }
        }
        // the event's worker, and the server, holder and backup of its request before and after it, each once
        int[] ws = new int[7];
        int n = 0;
        ws[n++] = e.worker();
        if (r >= 0) {
            for (ClusterState s : new ClusterState[] {pre, post}) {
                RequestRec rec = s.request(r);
                if (rec != null) {
                    n = addOnce(ws, n, rec.server());
                    n = addOnce(ws, n, rec.holder());
                    n = addOnce(ws, n, rec.backup());
                }
            }
        }
        for (int i = 0; i < n; i++) {
            checkWorkerIf(post, ws[i], out);
        }
        return out;
    }

    /**
     * The violations in {@code post} that a Decode of request r which is a step of the spec (its
     * guard holds: r DECODE on its UP server, whose queue holds it, KV at KvLen, output short of
     * Ref, no pending re-protection) can have made: S7 and S9 of r. Such a step changes only r's
     * output, KV and draft; every other invariant reads what it leaves as it was (S6 compares the
     * copies with KvLen, which only grows; S11 loses a draft at most), so {@link #touched} would
     * find the same. {@code InvariantsTest} holds the two to the same findings.
     */
    public static List<Finding> afterDecodeStep(ClusterState post, int r) {
        RequestRec rec = post.request(r);
        Finding f7 = s7(rec);
        Finding f9 = s9(rec);
        if (f7 == null && f9 == null) {
            return List.of();
        }
        List<Finding> out = new ArrayList<>(2);
        add(out, f7);
        add(out, f9);
        return out;
    }

    private static int addOnce(int[] ws, int n, int w) {
        for (int i = 0; i < n; i++) {
            if (ws[i] == w) {
                return n;
            }
        }
        ws[n] = w;
        return n + 1;
    }

    private static void checkRequests(ClusterState s, int[] ids, List<Finding> out) {
        for (int id : ids) {
            RequestRec rec = s.request(id);
            if (rec != null) {
                checkRequest(s, rec, out);
            }
        }
    }

    private static void checkWorkerIf(ClusterState s, int w, List<Finding> out) {
        if (w >= 0 && w < s.workerCount()) {
            checkWorker(s, w, out);
        }
    }

    static void checkWorker(ClusterState s, int w, List<Finding> out) {
        WorkerRec rec = s.worker(w);
        add(out, s3(rec));
        add(out, s5(s, rec));
        add(out, s8Worker(rec));
        add(out, s10(rec));
        add(out, s11Worker(rec));
    }

    static void checkRequest(ClusterState s, RequestRec r, List<Finding> out) {
        boolean queued = queuedOnServer(s, r);
        add(out, s1(r, queued));
        add(out, s4(r, queued));
        add(out, s6(r));
        add(out, s7(r));
        add(out, s8(s, r));
        add(out, s9(r));
        add(out, s11Request(s, r));
        add(out, s17(r));
    }

    private static void add(List<Finding> out, Finding f) {
        if (f != null && !out.contains(f)) {
            out.add(f);
        }
    }

    private static boolean queuedOnServer(ClusterState s, RequestRec r) {
        return r.server() >= 0 && s.worker(r.server()).runq().containsKey(r.id());
    }

    /** S1: a QUEUED or DECODE request is in its server's queue; others in none; DONE means out = Ref. */
    public static Finding s1(ClusterState s, RequestRec r) {
        return s1(r, queuedOnServer(s, r));
    }

    /** S1, given whether r is in its server's run queue. */
    private static Finding s1(RequestRec r, boolean queued) {
        return switch (r.phase()) {
            case QUEUED, PREFILL, DECODE -> queued ? null
                    : Finding.of(PropertyId.S1, "request " + r.id() + " is " + r.phase() + " but in no run queue");
            case NEW, INTERRUPTED -> queued
                    ? Finding.of(PropertyId.S1, "request " + r.id() + " is " + r.phase() + " but still queued on worker " + r.server())
                    : null;
            case DONE -> queued
                    ? Finding.of(PropertyId.S1, "request " + r.id() + " is DONE but still queued on worker " + r.server())
                    : r.outOk() && r.outLen() == r.refLen() ? null
                    : Finding.of(PropertyId.S1, "request " + r.id() + " is DONE with " + r.outLen() + " of "
                            + r.refLen() + " tokens" + (r.outOk() ? "" : ", not its reference output"));
        };
    }

    /** S2: request r is in at most one run queue (a scan over the workers). */
    public static Finding s2(ClusterState s, int r) {
        int n = 0;
        StringBuilder where = new StringBuilder();
        for (int w = 0; w < s.workerCount(); w++) {
            if (s.worker(w).runq().containsKey(r)) {
                n++;
                where.append(where.length() == 0 ? "" : ", ").append(w);
            }
        }
        return n <= 1 ? null : Finding.of(PropertyId.S2, "request " + r + " is queued on workers " + where);
    }

    /** S3: a FAILED worker's run queue is empty. */
    public static Finding s3(ClusterState s, int w) {
        return s3(s.worker(w));
    }

    private static Finding s3(WorkerRec rec) {
        int w = rec.id();
        return rec.state() == WorkerState.FAILED && !rec.runq().isEmpty()
                ? Finding.of(PropertyId.S3, "worker " + w + " is FAILED but its queue holds " + java.util.Arrays.toString(rec.runq().keys()))
                : null;
    }

    /** S4: r's checkpoint is not on the worker that serves it, and its backup is a third worker. */
    public static Finding s4(ClusterState s, RequestRec r) {
        return s4(r, queuedOnServer(s, r));
    }

    /** S4, given whether r is in its server's run queue. */
    private static Finding s4(RequestRec r, boolean queued) {
        if (r.holder() >= 0 && queued && r.holder() == r.server()) {
            return Finding.of(PropertyId.S4, "request " + r.id() + " is checkpointed on its own server " + r.server());
        }
        if (r.backup() >= 0 && queued && r.backup() == r.server()) {
            return Finding.of(PropertyId.S4, "request " + r.id() + "'s backup checkpoint is on its own server " + r.server());
        }
        return r.backup() >= 0 && r.backup() == r.holder()
                ? Finding.of(PropertyId.S4, "request " + r.id() + "'s backup is its holder " + r.holder())
                : null;
    }

    /** S5: Eq. 5, the positions stored on w are within M_budget. */
    public static Finding s5(ClusterState s, int w) {
        return s5(s, s.worker(w));
    }

    private static Finding s5(ClusterState s, WorkerRec rec) {
        int w = rec.id();
        long stored = rec.stored();
        return stored > s.config().budget()
                ? new Finding(PropertyId.S5, "worker " + w + " stores more than its budget",
                        "<= " + s.config().budget(), Long.toString(stored))
                : null;
    }

    /** S6: r's checkpoint (and its backup copy) is intact and never past what r's server has written (KvLen). */
    public static Finding s6(RequestRec r) {
        Finding f = s6(r, r.ckpt(), "checkpoint");
        return f != null ? f : s6(r, r.bckpt(), "backup checkpoint");
    }

    private static Finding s6(RequestRec r, PageSeq c, String what) {
        if (!c.intact()) {
            return Finding.of(PropertyId.S6, "request " + r.id() + "'s " + what + " has " + c);
        }
        return c.length() > r.kvLen()
                ? new Finding(PropertyId.S6, "request " + r.id() + "'s " + what + " runs past the KV its server has written",
                        "<= " + r.kvLen(), Integer.toString(c.length()))
                : null;
    }

    /** S7: r's output is a prefix of its reference output. */
    public static Finding s7(RequestRec r) {
        return r.outOk() ? null
                : Finding.of(PropertyId.S7, "request " + r.id() + "'s output is not a prefix of its reference output");
    }

    /**
     * S8: checkpoint pages exist only for a live request's current run, on a live holder (and
     * backup); a request whose placement is pending again (it was routed) holds none.
     */
    public static Finding s8(ClusterState s, RequestRec r) {
        Finding f = s8(s, r, r.holder(), r.ckpt(), "checkpoint");
        f = f != null ? f : s8(s, r, r.backup(), r.bckpt(), "backup checkpoint");
        if (f == null && !r.placed() && (r.holder() >= 0 || r.backup() >= 0)) {
            int h = r.holder() >= 0 ? r.holder() : r.backup();
            f = Finding.of(PropertyId.S8, "request " + r.id() + " moved on (it was routed, so its placement is decided anew) but its"
                    + " previous checkpoint is still held on worker " + h + " (" + r.savedPositions() + " positions)");
        }
        return f;
    }

    private static Finding s8(ClusterState s, RequestRec r, int holder, PageSeq c, String what) {
        if (c.length() > 0 && holder < 0) {
            return Finding.of(PropertyId.S8, "request " + r.id() + " has " + what + " pages but no holder");
        }
        if (holder >= 0) {
            if (r.phase() != RequestPhase.QUEUED && r.phase() != RequestPhase.DECODE
                    && r.phase() != RequestPhase.PREFILL && r.phase() != RequestPhase.INTERRUPTED) {
                return Finding.of(PropertyId.S8, "request " + r.id() + " is " + r.phase()
                        + " but its " + what + " is still held on worker " + holder);
            }
            if (!s.isUp(holder)) {
                return Finding.of(PropertyId.S8, "request " + r.id() + "'s " + what + " is held on worker "
                        + holder + ", which is " + s.worker(holder).state());
            }
        }
        return null;
    }

    /** S8, per worker: a worker that is not UP holds no checkpoint. */
    public static Finding s8Worker(ClusterState s, int w) {
        return s8Worker(s.worker(w));
    }

    private static Finding s8Worker(WorkerRec rec) {
        int w = rec.id();
        return rec.state() != WorkerState.UP && !rec.held().isEmpty()
                ? Finding.of(PropertyId.S8, "worker " + w + " is " + rec.state() + " but holds checkpoints of "
                        + java.util.Arrays.toString(rec.held().keys()))
                : null;
    }

    /** S9: the KV r's server holds is intact and never past what r's context has written (KvLen). */
    public static Finding s9(RequestRec r) {
        if (!r.kv().intact()) {
            int n = r.kv().length();
            int intact = 0;
            while (intact < n && !r.kv().isHole(intact + 1)) {
                intact++;
            }
            return new Finding(PropertyId.S9, "request " + r.id() + "'s KV has " + r.kv(),
                    "its own positions 1.." + n, (intact == 0 ? "" : "its own positions 1.." + intact + ", then ")
                            + "a hole at position " + (intact + 1));
        }
        return r.kv().length() > r.kvLen()
                ? new Finding(PropertyId.S9, "request " + r.id() + "'s KV runs past what its context has written (KvLen)",
                        "<= " + r.kvLen(), Integer.toString(r.kv().length()))
                : null;
    }

    /**
     * S15: each worker's counters (the positions it stores and has reserved, and the set of
     * requests it holds copies of) equal the sums over the checkpoints that name it as holder or
     * backup. One pass over the requests: checked on whole states ({@link #all}), not per event.
     */
    public static List<Finding> s15(ClusterState s) {
        int n = s.workerCount();
        long[] stored = new long[n];
        long[] reserved = new long[n];
        int[] held = new int[n];
        for (int id : s.requests().keys()) {
            RequestRec r = s.request(id);
            if (r.holder() >= 0 && r.holder() < n) {
                stored[r.holder()] += r.ckpt().length();
                reserved[r.holder()] += r.size();
                held[r.holder()]++;
            }
            if (r.backup() >= 0 && r.backup() < n) {
                stored[r.backup()] += r.bckpt().length();
                reserved[r.backup()] += r.size();
                held[r.backup()] += r.backup() == r.holder() ? 0 : 1;
            }
        }
        List<Finding> out = new ArrayList<>(0);
        for (int w = 0; w < n; w++) {
            WorkerRec rec = s.worker(w);
            if (rec.stored() != stored[w] || rec.reserved() != reserved[w] || rec.held().size() != held[w]) {
                out.add(new Finding(PropertyId.S15, "worker " + w + "'s counters do not match the checkpoints it holds",
                        "stored " + stored[w] + ", reserved " + reserved[w] + ", " + held[w] + " requests",
                        "stored " + rec.stored() + ", reserved " + rec.reserved() + ", " + rec.held().size() + " requests"));
            }
        }
        return out;
    }

    /** S10: only an UP worker with its full model active has work. */
    public static Finding s10(ClusterState s, int w) {
        return s10(s.worker(w));
    }

    private static Finding s10(WorkerRec rec) {
        int w = rec.id();
        return !rec.runq().isEmpty() && !(rec.state() == WorkerState.UP && rec.active() == ActiveModel.FULL)
                ? Finding.of(PropertyId.S10, "worker " + w + " is " + rec.state() + " with model " + rec.active()
                        + " but its queue holds " + java.util.Arrays.toString(rec.runq().keys()))
                : null;
    }

    /** S11: each worker has exactly the model its state calls for. */
    public static Finding s11Worker(ClusterState s, int w) {
        return s11Worker(s.worker(w));
    }

    private static Finding s11Worker(WorkerRec rec) {
        int w = rec.id();
        ActiveModel need = ActiveModel.requiredFor(rec.state());
        return rec.active() != need
                ? new Finding(PropertyId.S11, "worker " + w + " in state " + rec.state() + " has the wrong model active",
                        need.name(), rec.active().name())
                : null;
    }

    /** S11: an in-flight draft comes from an ASSISTING worker whose draft model is active. */
    public static Finding s11Request(ClusterState s, RequestRec r) {
        if (r.proposal() == null) {
            return null;
        }
        WorkerRec src = s.worker(r.proposal().src());
        return src.state() == WorkerState.ASSISTING && src.active() == ActiveModel.DRAFT ? null
                : Finding.of(PropertyId.S11, "request " + r.id() + " has a draft in flight from worker " + src.id()
                        + ", which is " + src.state() + " with model " + src.active());
    }

    /**
     * S17: a draft in flight belongs to a request that still decodes on the survivor it was made
     * for; a failure that interrupts the request, or kills that survivor, drops it.
     */
    public static Finding s17(RequestRec r) {
        RequestRec.Proposal p = r.proposal();
        if (p == null || r.phase() == RequestPhase.DECODE && r.server() == p.tgt()) {
            return null;
        }
        return new Finding(PropertyId.S17, "request " + r.id() + " has a draft in flight from worker " + p.src() + ", made for it on worker "
                + p.tgt() + ", but it is " + r.phase() + (r.server() >= 0 ? " on worker " + r.server() : "")
                + ": a draft is verified only on the survivor it was made for, and a failure that interrupts its request drops it",
                "no draft, or one made on worker " + (r.server() >= 0 ? r.server() : "-"), "a draft made on worker " + p.tgt());
    }
}
