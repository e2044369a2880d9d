package lumen.core;

/**
 * The spec state as a Java value: the variables of {@code Cluster.tla}, per worker
 * ({@link WorkerRec}) and per request ({@link RequestRec}), plus the {@link LoadIndex} over the UP
 * workers and the failure counter. Immutable: {@link Transition} and {@link Core} return new
 * states, and unchanged parts are shared, so a step costs O(log n), not a copy of the cluster.
 */
public final class ClusterState {
    private final Config config;
    private final RecoveryPolicy policy;
    private final PIntMap<WorkerRec> workers;
    private final PIntMap<RequestRec> requests;
    private final LoadIndex index;
    private final int failures;
    /** The spec's {@code rload}: Algorithm 2's running loads under routeLoads=increment, or null (all 0). Never written to. */
    private final double[] rload;
    /**
     * The spec's {@code seen}: under citedLoads=stale, the load each worker last reported to the
     * gateway's monitor (the loads a decision cites), or null (all 0). Never written to.
     */
    private final double[] seen;
    /**
     * Requests a trace validator finished with and dropped ({@link #forget}): DONE, with nothing
     * left held, so {@link #request} answers a bare DONE record for them.
     */
    private final IdSet forgotten;
    /** The request {@link #request} found last on this state (a cache; not part of the state). */
    private RequestRec lastRequest;
    /**
     * The owner of an index updated in place ({@link #owned}), or null: this state's index is a
     * value. Not part of the state.
     */
    private final Owner owner;
    /** The owner's {@link Owner#version} this state's index is at (0 without an owner). */
    private final int version;

    /**
     * One holder of a sequence of states whose index is updated in place: each update of the
     * index moves {@link #version} on, and a state whose version is behind may not read its index
     * any more ({@link #index()} refuses), since the nodes it shares were overwritten.
     */
    private static final class Owner {
        int version;
    }

    private ClusterState(Config config, RecoveryPolicy policy, PIntMap<WorkerRec> workers,
                         PIntMap<RequestRec> requests, LoadIndex index, int failures, double[] rload, double[] seen, IdSet forgotten) {
        this(config, policy, workers, requests, index, failures, rload, seen, forgotten, null, 0);
    }

    private ClusterState(Config config, RecoveryPolicy policy, PIntMap<WorkerRec> workers, PIntMap<RequestRec> requests,
                         LoadIndex index, int failures, double[] rload, double[] seen, IdSet forgotten, Owner owner, int version) {
        this.config = config;
        this.policy = policy;
        this.workers = workers;
        this.requests = requests;
        this.index = index;
        this.failures = failures;
        this.rload = rload;
        this.seen = seen;
        this.forgotten = forgotten;
        this.owner = owner;
        this.version = version;
    }

    /**
     * This state, with an index that the states derived from it update in place (a new owner):
     * an update of a worker then rewrites the index nodes that earlier updates of the same owner
     * made instead of copying a path, and this state and every earlier one of the owner may no
     * longer read their index ({@link #index()} throws). For one holder that steps a state
     * forward and keeps only the newest, as a trace validator does; {@link #frozen} makes a value
     * of it again. Only the state is checked: a {@link LoadIndex} taken from it and kept across a
     * later update of the same owner is rewritten under its holder, so the index is read through
     * the state each time. This state itself, if owned, is moved past (its owner's index now
     * belongs to the new owner's state).
     */
    public ClusterState owned() {
        LoadIndex idx = index();
        retire();
        return new ClusterState(config, policy, workers, requests, idx, failures, rload, seen, forgotten, new Owner(), 0);
    }

    /**
     * This state as a value: its index is never updated in place again, since the owner it had is
     * not carried (a later {@link #owned} gets a new one) and this owned state, moved past, may no
     * longer update or read it. This state itself when it has no owner.
     */
    public ClusterState frozen() {
        if (owner == null) {
            return this;
        }
        LoadIndex idx = index();
        retire();
        return new ClusterState(config, policy, workers, requests, idx, failures, rload, seen, forgotten);
    }

    /**
     * Moves this state's owner on, so that neither this state nor any other of the owner at its
     * version updates or reads the index again: the index now belongs to the state made from it.
     */
    private void retire() {
        if (owner != null) {
            owner.version++;
        }
    }

    /** Whether this state's index is updated in place by the states derived from it ({@link #owned}). */
    public boolean isOwned() {
        return owner != null;
    }

    /**
     * The fingerprint of this state's content ({@link Fingerprint}): the workers, the requests, the
     * failure count, Algorithm 2's loads and the monitor's; the configuration is the run's own.
     */
    public long fingerprint() {
        return fingerprint(null);
    }

    /** As {@link #fingerprint()}, remembering each record's by identity in {@code memo} (null: none). */
    public long fingerprint(java.util.IdentityHashMap<Object, Long> memo) {
        return fingerprint(memo, true);
    }

    /**
     * As {@link #fingerprint(java.util.IdentityHashMap)}, with the monitor's loads ({@code seen})
     * or without them ({@code seenToo} false: for a reader that never reads them before a View
     * writes them again).
     */
    public long fingerprint(java.util.IdentityHashMap<Object, Long> memo, boolean seenToo) {
        long h = Fingerprint.add(Fingerprint.of(workers, memo), Fingerprint.of(requests, memo));
        h = Fingerprint.add(h, failures);
        h = Fingerprint.add(h, Fingerprint.of(rload));
        h = Fingerprint.add(h, forgotten.fingerprint());
        return seenToo ? Fingerprint.add(h, Fingerprint.of(seen)) : h;
    }

    /** The spec's Init: every worker UP with its full model, no request arrived. */
    public static ClusterState initial(Config config) {
        return initial(config, config.recoveryPolicy());
    }

    /**
     * The initial state of a cluster that decides by {@code policy} instead of the config's (a
     * seeded bug: an implementation that runs its own policy while its trace names the config's).
     */
    public static ClusterState initial(Config config, RecoveryPolicy policy) {
        PIntMap<WorkerRec> ws = PIntMap.empty();
        ClusterState s = new ClusterState(config, policy, ws, PIntMap.empty(), LoadIndex.empty(), 0, null, null, IdSet.EMPTY);
        for (int w = 0; w < config.workers(); w++) {
            s = s.withWorker(WorkerRec.initial(w));
        }
        return s;
    }

    public Config config() {
        return config;
    }

    public RecoveryPolicy policy() {
        return policy;
    }

    public LoadIndex index() {
        if (owner != null && owner.version != version) {
            throw new IllegalStateException("the index of a state that a later state of the same owner updated in place was read");
        }
        return index;
    }

    public int failures() {
        return failures;
    }

    public int workerCount() {
        return config.workers();
    }

    public WorkerRec worker(int w) {
        return workers.get(w);
    }

    /** The request's record, or null when it never arrived. */
    public RequestRec request(int r) {
        // one event looks its request up many times on the same state: the last one found is kept
        // (one reference to an immutable record, so a racing reader sees a whole record or none)
        RequestRec last = lastRequest;
        if (last != null && last.id() == r) {
            return last;
        }
        RequestRec q = requests.get(r);
        if (q != null) {
            lastRequest = q;
        } else if (forgotten.contains(r)) {
            return RequestRec.forgotten(r);
        }
        return q;
    }

    /** Whether request r finished and was dropped ({@link #forget}): {@link #request} then answers a bare DONE record. */
    public boolean isForgotten(int r) {
        return requests.get(r) == null && forgotten.contains(r);
    }

    /**
     * This state without request r's record, r being DONE with nothing left anywhere (no server,
     * no copies, no draft, its whole reference output): a validator that has judged every step
     * of r keeps only that r finished, so its memory follows the requests in flight. The record
     * then reads as {@link RequestRec#forgotten}, which every later event naming r finds DONE.
     * This state itself when r is not such a request.
     */
    public ClusterState forget(int r) {
        RequestRec q = requests.get(r);
        if (q == null || !q.finishedClean()) {
            return this;
        }
        return new ClusterState(config, policy, workers, requests.remove(r), index, failures, rload, seen, forgotten.add(r), owner, version);
    }

    public PIntMap<RequestRec> requests() {
        return requests;
    }

    /** Whether a worker other than {@code w} is UP (Fail's guard). */
    public boolean anotherUp(int w) {
        for (int v = 0; v < workerCount(); v++) {
            if (v != w && isUp(v)) {
                return true;
            }
        }
        return false;
    }

    public boolean isUp(int w) {
        WorkerRec rec = workers.get(w);
        return rec != null && rec.state() == WorkerState.UP;
    }

    // ---- Eq. 4 and the sets of the spec ----------------------------------------------------

    /** Eq. 4: L(w) = alpha * Stored(w) + beta * Q(w). */
    public double load(int w) {
        WorkerRec rec = workers.get(w);
        return config.alpha() * rec.stored() + config.beta() * depth(rec);
    }

    /** {@code StaleLoads}: decisions rest on the gateway's monitor (citedLoads=stale:...). */
    public boolean staleLoads() {
        return config.readings().staleLoads();
    }

    /**
     * {@code Seen(w)}: the load the gateway decides on, Eq. 4 now ({@link #load}) or, under
     * citedLoads=stale, the load w last reported to the monitor. Placement, routing and assist
     * targeting compare these, and so does the {@link #index()}.
     */
    public double seen(int w) {
        return !staleLoads() ? load(w) : seen == null ? 0 : seen[w];
    }

    /**
     * The spec's Heartbeat of every UP worker at once: the monitor's loads become Eq. 4 now (a
     * failed worker's stays forgotten). This state itself unless citedLoads=stale.
     */
    public ClusterState heartbeat() {
        if (!staleLoads()) {
            return this;
        }
        double[] v = new double[workerCount()];
        for (int w = 0; w < v.length; w++) {
            v[w] = isUp(w) ? load(w) : seen(w);
        }
        return java.util.Arrays.equals(v, seen) ? this : withSeen(v);
    }

    /**
     * The loads a decision cites: under citedLoads=stale, for an event whose decision rests on the
     * monitor, the monitor's loads in this state (the state before the event); else null.
     */
    public double[] citedFor(Event e) {
        if (!staleLoads() || !usesMonitor(e)) {
            return null;
        }
        double[] v = new double[workerCount()];
        for (int w = 0; w < v.length; w++) {
            v[w] = seen(w);
        }
        return v;
    }

    /** Whether event e's decision rests on the monitor's loads under citedLoads=stale (TraceLumen's {@code UsesView}). */
    public boolean usesMonitor(Event e) {
        boolean assists = policy.restartState() == WorkerState.LOADING_DRAFT;
        return switch (e.action()) {
            case PLACE -> policy.loadAwarePlacement();
            // Eq. 6's L(h), or the re-prefill argmin, which every policy takes by load
            case ROUTE -> !routeIncrement();
            case ASSIST -> assists;
            case DRAFT_READY -> assists && ((Event.DraftReady) e).target() >= 0;
            default -> false;
        };
    }

    /** The monitor's loads, or null (all 0); not to be written to. */
    double[] seenLoads() {
        return seen;
    }

    /** Q(w) under the run's queue reading. */
    public int depth(WorkerRec rec) {
        return rec.depth(config.readings().queue());
    }

    /** Q(w) under the run's queue reading. */
    public int depth(int w) {
        return depth(workers.get(w));
    }

    /** {@code w \in HolderCandidates(r)}: UP, not r's server, and room for r ({@link #hasRoom}). */
    public boolean isHolderCandidate(int w, RequestRec r) {
        WorkerRec rec = workers.get(w);
        return rec != null && rec.state() == WorkerState.UP && w != r.server()
                && !rec.runq().containsKey(r.id()) && hasRoom(rec, r);
    }

    /** Whether the budget is kept on the positions stored (the budget=stored reading). */
    public boolean budgetOnStored() {
        return config.readings().budget() == Readings.Budget.STORED;
    }

    /** {@code HasRoom(w, r)}: Size(r) more can be reserved (reserve reading), or some position is unstored (stored reading). */
    public boolean hasRoom(WorkerRec rec, RequestRec r) {
        return budgetOnStored() ? rec.stored() < config.budget() : rec.reserved() + r.size() <= config.budget();
    }

    /** The room a holder candidate needs for r, in the index's terms ({@link #withWorker}). */
    public long roomNeeded(RequestRec r) {
        return budgetOnStored() ? 1 : r.size();
    }

    /**
     * The positions worker w's host memory may still take ({@code StreamRoom}): unbounded under the
     * reserve reading (placement reserved the room), M_budget less what it stores under stored.
     */
    public long streamRoom(int w) {
        return budgetOnStored() ? Math.max(0, config.budget() - workers.get(w).stored()) : Long.MAX_VALUE;
    }

    /** The most positions r's copy on {@code holder} may hold after a stream, at most {@code upTo}: whole pages within the holder's room. */
    public int streamUpTo(int holder, int have, int upTo) {
        long room = streamRoom(holder);
        if (upTo - have <= room) {
            return upTo;
        }
        int pt = config.pageTokens();
        return (int) Math.max(have, (have + room) / pt * pt);
    }

    /** FC's neighbour of w on the ring, in the ringDirection reading's direction. */
    public int neighbour(int w) {
        int n = config.workers();
        return config.readings().ringDirection() == Readings.RingDirection.NEXT ? (w + 1) % n : (w + n - 1) % n;
    }

    /** The first worker after {@code w} on the ring (|W|-1 steps, in the reading's direction) that is in {@code set}, or -1. */
    private int firstOnRing(int w, java.util.function.IntPredicate set) {
        int v = w;
        for (int i = 1; i < config.workers(); i++) {
            v = neighbour(v);
            if (set.test(v)) {
                return v;
            }
        }
        return -1;
    }

    /** FC's RingNext(w, |W|-1): the first UP worker after w on the ring, or -1. */
    public int ringNext(int w) {
        return firstOnRing(w, this::isUp);
    }

    /**
     * FC's RingHolder(r): the ring neighbour when it can hold r; with the ringFallThrough reading,
     * the first worker after r's server on the ring that can (RingFirstIn). -1 when none.
     */
    public int ringHolder(RequestRec r) {
        if (config.readings().ringFallThrough()) {
            return firstOnRing(r.server(), v -> isHolderCandidate(v, r));
        }
        int h = ringNext(r.server());
        return h >= 0 && isHolderCandidate(h, r) ? h : -1;
    }

    /**
     * {@code NeedsProtection(r)}: r's placement decision was taken, r has no holder, and the
     * policy now has one for it, so r is placed again before it is served further.
     */
    public boolean needsProtection(RequestRec r) {
        return r.placed() && (r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.DECODE) && r.server() >= 0
                && (r.holder() < 0 ? policy.chooseHolder(this, r) >= 0 : needsBackup(r));
    }

    /**
     * {@code NeedsBackup(r)}, the rebackup reading: a lumen-dual request with a holder and no
     * backup, for which a backup can be had.
     */
    public boolean needsBackup(RequestRec r) {
        return config.readings().rebackup() && r.holder() >= 0 && r.backup() < 0
                && policy.chooseBackup(this, r, r.holder()) >= 0;
    }

    /** Eq. 6's {@code UseHolder(r)}: a live holder, and the policy's clause. */
    public boolean useHolder(RequestRec r) {
        return r.holder() >= 0 && isUp(r.holder()) && policy.restoreOnHolder(this, r);
    }

    /** A shortest queue among UP workers (lowest id), or -1 when none is UP. */
    public int arriveTarget() {
        return index().minQueue();
    }

    /**
     * The reference gateway's target for new request {@code r}, or -1 when no worker is UP: a
     * shortest queue (lowest id) under arrival=shortest; under arrival=any, where a serving stack's
     * own rule may send it, the reference routes by request id, the first UP worker from
     * {@code r mod |W|} on (a round robin that keeps no state).
     */
    public int arriveTarget(int r) {
        if (!config.readings().anyArrival()) {
            return arriveTarget();
        }
        int n = workerCount();
        for (int i = 0; i < n; i++) {
            int w = Math.floorMod(r + i, n);
            if (isUp(w)) {
                return w;
            }
        }
        return -1;
    }

    /** {@code RouteIncrement}: the routeLoads=increment reading, under Eq. 6 routing. */
    public boolean routeIncrement() {
        return config.readings().routeLoads() == Readings.RouteLoads.INCREMENT && policy.eq6Routing();
    }

    /** {@code RouteLoad(w)}: the load Algorithm 2 routes by, the decided-on load ({@link #seen}) or its running load. */
    public double routeLoad(int w) {
        return !routeIncrement() ? seen(w) : rload == null ? 0 : rload[w];
    }

    /** {@code ArgMinRouteLoad(Serving)}: the re-prefill target (lowest id on ties), or -1. */
    public int reprefillTarget() {
        if (!routeIncrement()) {
            return index().minLoad();
        }
        int best = -1;
        for (int w = 0; w < workerCount(); w++) {
            if (isUp(w) && (best < 0 || routeLoad(w) < routeLoad(best))) {
                best = w;
            }
        }
        return best;
    }

    /** {@code ArgMaxLoad(Serving)}: the assist target (lowest id on ties), or -1. */
    public int assistTarget() {
        return index().maxLoad();
    }

    /**
     * {@code KeptTarget(w)}: under the session reading, the target of worker w's assist session
     * while that target is UP; else -1 (the next proposal chooses a most loaded UP worker).
     */
    public int keptTarget(int w) {
        int t = config.readings().sessionTarget() ? worker(w).target() : -1;
        return t >= 0 && isUp(t) ? t : -1;
    }

    /** Whether assisting worker w may propose for a request on {@code server} now ({@code AssistTargetsOf(w)}). */
    public boolean mayAssist(int w, int server) {
        int kept = keptTarget(w);
        if (kept >= 0) {
            return server == kept;
        }
        int top = assistTarget();
        return server >= 0 && top >= 0 && isUp(server) && seen(server) == seen(top);
    }

    /** The requests with an in-flight draft from worker {@code w}, ascending. */
    public int[] requestsWithProposalFrom(int w) {
        com.carrotsearch.hppc.IntArrayList out = new com.carrotsearch.hppc.IntArrayList();
        requests.forEachValue(r -> {
            RequestRec.Proposal p = r.proposal();
            if (p != null && p.src() == w) {
                out.add(r.id());
            }
        });
        return out.toArray();
    }

    // ---- updates, keeping the index in step ----------------------------------------------------

    public ClusterState withWorker(WorkerRec w) {
        LoadIndex cur = index();
        // the owner moves on before its nodes are written, so an update that throws half way leaves no state that reads them
        int v = owner != null ? ++owner.version : version;
        LoadIndex idx = indexed(cur, w, seen, owner);
        return new ClusterState(config, policy, workers.put(w.id(), w), requests, idx, failures, rload, seen, forgotten, owner, v);
    }

    /**
     * The index with w's entry as it now stands: its room and the load decisions compare
     * ({@link #seen}); updated in place for owner {@code by}, or as a value (null).
     */
    private LoadIndex indexed(LoadIndex idx, WorkerRec w, double[] view, Owner by) {
        if (w.state() != WorkerState.UP) {
            return idx.without(w.id(), by);
        }
        double l = !staleLoads() ? config.alpha() * w.stored() + config.beta() * depth(w) : view == null ? 0 : view[w.id()];
        return idx.with(w.id(), config.budget() - (budgetOnStored() ? w.stored() : w.reserved()), l, depth(w), by);
    }

    /**
     * This state as a value, its index built anew from its workers: for a state of an owner whose
     * index a later state updated in place, or that an update left half done (a step that threw),
     * which may no longer read its own. The workers, requests and every other part are values
     * throughout, and the index follows from them.
     */
    public ClusterState reindexed() {
        LoadIndex idx = LoadIndex.empty();
        for (int w = 0; w < workerCount(); w++) {
            idx = indexed(idx, workers.get(w), seen, null);
        }
        return new ClusterState(config, policy, workers, requests, idx, failures, rload, seen, forgotten);
    }

    public ClusterState withRequest(RequestRec r) {
        ClusterState n = new ClusterState(config, policy, workers, requests.put(r.id(), r), index, failures, rload, seen, forgotten, owner, version);
        n.lastRequest = r; // the next event's checks look it up first
        return n;
    }

    public ClusterState withFailure() {
        return new ClusterState(config, policy, workers, requests, index, failures + 1, rload, seen, forgotten, owner, version);
    }

    /**
     * This state with the monitor's loads {@code v} (null: all 0), which it then owns: the spec's
     * Heartbeat steps, or, in trace validation, the loads a decision cites. Only under citedLoads=stale.
     */
    public ClusterState withSeen(double[] v) {
        if (!staleLoads()) {
            throw new IllegalStateException("the monitor's loads exist only under citedLoads=stale");
        }
        LoadIndex idx = index();
        int ver = owner != null ? ++owner.version : version;
        for (int w = 0; w < workerCount(); w++) {
            idx = indexed(idx, workers.get(w), v, owner);
        }
        return new ClusterState(config, policy, workers, requests, idx, failures, rload, v, forgotten, owner, ver);
    }

    /** Algorithm 2's running loads, or null (none); not to be written to. */
    double[] routeLoads() {
        return rload;
    }

    /** Whether some request other than {@code except} is INTERRUPTED (waits to be routed). */
    boolean anyInterruptedBut(int except) {
        boolean[] any = {false};
        requests.forEachValue(r -> any[0] |= r.id() != except && r.phase() == RequestPhase.INTERRUPTED);
        return any[0];
    }

    /** This state with Algorithm 2's running loads {@code r} (null: none), which it then owns. */
    ClusterState withRouteLoads(double[] r) {
        return new ClusterState(config, policy, workers, requests, index, failures, r, seen, forgotten, owner, version);
    }
}
