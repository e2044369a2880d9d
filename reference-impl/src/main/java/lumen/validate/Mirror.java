package lumen.validate;

import java.util.ArrayList;
import java.util.List;
import lumen.core.ActionProperties;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PropertyId;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.core.SpecStep;
import lumen.core.Transition;
import lumen.core.WorkerState;
import lumen.trace.TraceWriter;

/**
 * The Java mirror of the spec, one event at a time: the spec state (the decision core's
 * {@link ClusterState}), the KV content a v2 trace shows ({@link ContentTracker}), and the
 * finite-trace reading of the mechanisms' weak fairness (L3, L4). {@link #step} checks one event:
 * whether it is a step of the spec from the state before it ({@link SpecStep}), the content it
 * reports, the invariants on what it touched after applying it as reported ({@link Transition},
 * {@link Invariants}), the action properties ({@link ActionProperties}), and the bounded
 * fairness obligations; every finding is ranked ({@link Finding#BY_RANK}) and the first is the
 * divergence.
 *
 * <p>Bounded fairness. The spec's weak fairness of StreamPage and Assist says an action that stays
 * possible is eventually taken; a finite trace can only be held to a bound. L3: a request whose
 * checkpoint on a live holder lags its server's KV by at least one whole page ({@code pageTokens}
 * positions) across more than {@code fairnessSteps} of its own decode steps, without any
 * StreamPage of that copy in between. L4: a recovering worker that proposes no draft at all during
 * an ASSISTING stint in which it could have proposed one for some request at more than
 * {@code fairnessSteps} consecutive decode steps of that request, or that hands over (FullReady)
 * without having proposed a draft although it could have for some request at {@link #HANDOVER_BOUND}
 * or more consecutive decode steps of that request: the stint's own bound, which a short assist
 * period cannot outlast. Both count a request's own decode steps, so the bound does not depend on
 * the batch size; a step of the request at which the worker could not propose for it starts the
 * count over, as weak fairness asks only for an action that stays possible.
 */
public final class Mirror {
    /** The default bound of L3 and L4, in decode steps. */
    public static final int DEFAULT_FAIRNESS_STEPS = 32;
    /**
     * L4 at a handover: the decode steps of one request at which a worker that then hands over
     * without any draft could have proposed (TraceLumen's {@code HandoverBound}, at most the
     * fairness bound). Three: the target's iteration in flight when the draft model is ready, and
     * the one during which it drafts, may pass without a draft; a third may not.
     */
    public static final int HANDOVER_BOUND = 3;
    /**
     * L3 at a completion: the decode steps across which a copy on a live holder with room lagged
     * its KV by a whole page with no StreamPage, at which a request may not complete (TraceLumen's
     * {@code CompleteBound}, at most the fairness bound): a short decode cannot outlast it as it can
     * the fairness bound.
     */
    public static final int COMPLETE_BOUND = 4;

    private ClusterState state;
    private final ContentTracker content;
    private final int fairnessSteps;
    /**
     * Per request (key r*2, and r*2+1 for the backup's copy): its decode steps, while its copy
     * lagged, at which its server had streamed nothing since the request's previous decode step.
     */
    private final com.carrotsearch.hppc.LongIntHashMap streamLag = new com.carrotsearch.hppc.LongIntHashMap();
    /** Per worker: the pages (StreamPage steps) of requests it served that it has streamed so far. */
    private int[] streamed;
    /** Per request: its server's {@link #streamed} count at the request's last decode step (none: no decode since it was placed, routed or streamed). */
    private final com.carrotsearch.hppc.IntIntHashMap streamSeen = new com.carrotsearch.hppc.IntIntHashMap();
    /** The ASSISTING workers that have proposed nothing in this stint; visited in ascending id, so L4 names the same worker in every mirror. */
    private final java.util.BitSet assistIdle = new java.util.BitSet();
    /**
     * Per (ASSISTING worker w, request r), keyed {@code w << 32 | r}, in a stint without any
     * proposal: decode steps of the request it could have proposed for.
     */
    private final com.carrotsearch.hppc.LongIntHashMap assistOpportunities = new com.carrotsearch.hppc.LongIntHashMap();
    /**
     * The (idle ASSISTING worker w, request r) pairs, keyed as {@link #assistOpportunities}, where
     * another worker proposed a draft for r during w's stint: r was assisted, so w's missed steps on
     * it are not held against w at its handover (recovering workers that share a target share its
     * requests).
     */
    private final com.carrotsearch.hppc.LongHashSet assistExcused = new com.carrotsearch.hppc.LongHashSet();
    /** Under citedLoads=stale: the loads each decision could have seen; else null. */
    private final LoadWindow window;
    /** Events stepped so far. */
    private long events;
    /**
     * The requests that finished last, oldest first, whose records are still kept; past
     * {@link #KEEP} the oldest is dropped from the state ({@link ClusterState#forget}), so memory
     * follows the requests in flight while a mistake about a request that just finished is still
     * reported on its whole record.
     */
    private final com.carrotsearch.hppc.IntArrayDeque finished = new com.carrotsearch.hppc.IntArrayDeque();
    /** How many finished requests keep their whole record. */
    static final int KEEP = 1024;
    /**
     * A candidate's mirror ({@link Candidates}) leaves a divergence undescribed (no event text, no
     * state view) until {@link #described} is asked for it: most candidates' divergences are dropped.
     */
    private boolean quiet;
    /** In quiet mode, the whole divergence of the last step, built on demand; else null. */
    private java.util.function.Supplier<Divergence> lastDescribed;
    /** The fast path of the common Decode ({@link HotRequests}), or null: every event takes the full step. */
    private HotRequests hot;
    /** Whether the state's load index is updated in place ({@link #inPlace}). */
    private boolean inPlace;
    /** Whether the step under way is a hidden one ({@link #stepHidden}). */
    private boolean hiddenStep;
    /** What every reported page digest is held to (the kit's KV content model, a failure-free run); null: off. */
    private PageOracle oracle;

    public Mirror(Config config) {
        this(config, DEFAULT_FAIRNESS_STEPS);
    }

    /** @param fairnessSteps the bound of L3 and L4 (0 turns the bounded fairness checks off) */
    public Mirror(Config config, int fairnessSteps) {
        this(config, fairnessSteps, true);
    }

    /**
     * @param copiesObserved whether the trace shows the content of the checkpoint copies (false
     *                       under observes.StreamPage=sizes: a RESTORE's bytes are then compared
     *                       with what the request's server wrote)
     */
    public Mirror(Config config, int fairnessSteps, boolean copiesObserved) {
        this.state = ClusterState.initial(config);
        this.content = new ContentTracker(config.pageTokens(), copiesObserved);
        this.fairnessSteps = fairnessSteps;
        this.window = config.readings().staleLoads() ? new LoadWindow(config.readings().citedLoads(), config.workers()) : null;
        this.streamed = new int[config.workers()];
    }

    /** An independent mirror in the same state, for a candidate of a partial trace ({@link Candidates}). */
    private Mirror(Mirror m) {
        this.state = m.state;
        this.content = m.content.copy();
        this.fairnessSteps = m.fairnessSteps;
        this.streamLag.putAll(m.streamLag);
        this.streamed = m.streamed.clone();
        this.streamSeen.putAll(m.streamSeen);
        this.assistIdle.or(m.assistIdle);
        this.assistOpportunities.putAll(m.assistOpportunities);
        this.assistExcused.addAll(m.assistExcused);
        this.window = m.window == null ? null : m.window.copy();
        this.events = m.events;
        this.finished.addLast(m.finished);
        this.quiet = m.quiet;
        this.oracle = m.oracle;
    }

    Mirror copy() {
        if (inPlace) {
            // the copy and this mirror share the state from here: neither may update it in place
            state = state.frozen();
            inPlace = false;
        }
        if (hot != null) {
            // a copy shares the content records, which the held requests write in place
            hot.releaseAll();
            hot = null;
        }
        return new Mirror(this);
    }

    /**
     * This mirror holding every page digest an event reports to the kit's KV content model
     * ({@link lumen.core.KitKv}), with each request's seed: a page written, copied or restored whose
     * digest is not the model's does not hold the request's own bytes, or its digest is not taken
     * over them. Every event takes the full step.
     */
    public Mirror withKvModel(java.util.Map<Integer, Long> seeds) {
        return withPageOracle(PageOracle.kitModel(seeds));
    }

    /** This mirror holding every page digest an event reports to {@code o}. Every event takes the full step. */
    public Mirror withPageOracle(PageOracle o) {
        oracle = o;
        hot = null;
        return this;
    }

    /** The first page of event e whose digest is not the oracle's, as a finding; null when all are, or it says nothing of them. */
    private Finding pageOracle(Event e) {
        lumen.core.PageDigest[] pages = e instanceof Event.Prefill p ? p.pages() : e instanceof Event.Decode d ? d.pages()
                : e instanceof Event.StreamPage s ? s.pages() : e instanceof Event.Route r ? r.pages() : null;
        if (pages == null) {
            return null;
        }
        for (lumen.core.PageDigest p : pages) {
            Long want = oracle.expected(e.req(), p);
            if (want != null && p.digest() != want) {
                boolean copy = e instanceof Event.StreamPage;
                return new Finding(copy ? PropertyId.S6 : PropertyId.S9, e.action().specName() + " of request " + e.req() + " reports for positions "
                        + p.first() + ".." + p.last() + " a digest that is not " + oracle.source() + ": the " + (copy ? "copy" : "KV")
                        + " does not hold the request's own bytes there, or the digest is not taken over the bytes",
                        String.format("%016x", want), p.hex());
            }
        }
        return null;
    }

    /**
     * This mirror with the fast path of the common Decode ({@link HotRequests}): the same verdicts
     * and states, for a validator that steps one mirror through a whole trace. Not under
     * citedLoads=stale, whose load window every event reads.
     */
    Mirror withHotRequests() {
        if (window == null) {
            hot = new HotRequests(this, state);
        }
        return this;
    }

    /**
     * This mirror with its state's load index updated in place ({@link ClusterState#owned}): each
     * step rewrites the index nodes of the steps before it instead of copying a path, for a
     * validator that keeps only the newest state. A step reads everything it needs of the state
     * before the event (action properties, fairness) before it applies the event. The state
     * this mirror hands out ({@link #state}) is a value: the mirror takes a new owner after it.
     */
    Mirror inPlace() {
        inPlace = true;
        state = state.owned();
        return this;
    }

    /** The decodes the fast path took so far ({@link #withHotRequests}): each of the others took the full step. */
    long hotDecodes() {
        return hot == null ? 0 : hot.taken;
    }

    /** What {@link #prefetch} read, kept so that its reads are made. */
    private int touched;

    /**
     * Reads what the steps of events {@code es[from..to)} will read first, before the first of them
     * is stepped: the cache misses of their held requests then overlap instead of coming one per
     * event. Changes nothing.
     */
    void prefetch(Event[] es, int from, int to) {
        if (hot == null) {
            return;
        }
        int t = touched;
        for (int i = from; i < to; i++) {
            int r = es[i].req();
            if (r >= 0) {
                t += hot.touch(r);
            }
        }
        touched = t;
    }

    /** Whether request r has arrived (a held request is one). */
    boolean knows(int r) {
        return hot != null && hot.holds(r) || state.request(r) != null;
    }

    /** The spec state as it stands, without writing back the held requests (for {@link HotRequests}). */
    ClusterState current() {
        return state;
    }

    ContentTracker content() {
        return content;
    }

    int fairnessSteps() {
        return fairnessSteps;
    }

    /** Whether no ASSISTING worker is idle, so L4 counts nothing at a decode. */
    boolean assistQuiet() {
        return assistIdle.isEmpty();
    }

    /** L3's counter under key (0: none). */
    int lagOf(long key) {
        return streamLag.getOrDefault(key, 0);
    }

    /** Worker w's count of pages streamed ({@link #streamed}). */
    int streamedBy(int w) {
        return streamed[w];
    }

    /** Request r's {@link #streamSeen} (-1: none). */
    int streamSeenOf(int r) {
        return streamSeen.getOrDefault(r, -1);
    }

    void setStreamSeen(int r, int n) {
        if (n < 0) {
            streamSeen.remove(r);
        } else {
            streamSeen.put(r, n);
        }
    }

    /**
     * L3 counts a decode step of a request only when its server streamed nothing since the
     * request's previous decode step ({@code seen}: the server's count then, -1: no such step):
     * a server whose stream is busy with other requests' pages has streamed, so streaming did not
     * fail to act. (A server streams one page at a time; after a recovery many requests may get a
     * holder at once, and a short request may complete behind the others' pages.)
     */
    static boolean streamIdle(int seen, int streamedNow) {
        return seen < 0 || seen == streamedNow;
    }

    void setLag(long key, int n) {
        if (n == 0) {
            streamLag.remove(key);
        } else {
            streamLag.put(key, n);
        }
    }

    /** Writes a held request's record back ({@link HotRequests}). */
    void putRequest(RequestRec r) {
        state = state.withRequest(r);
    }

    /** This mirror in quiet mode: its divergences name their findings only, until {@link #described}. */
    Mirror quiet() {
        quiet = true;
        return this;
    }

    /** In quiet mode, divergence d of this mirror's last step with its event and the state before it in words; else d. */
    Divergence described(Divergence d) {
        return quiet && lastDescribed != null ? lastDescribed.get() : d;
    }

    /**
     * The fingerprint of everything later events are judged on: the spec state, the content
     * followed, the fairness counters and the load window. Two candidates with the same
     * fingerprint judge every later event alike, so one of them is kept.
     *
     * <p>Under citedLoads=stale the monitor's loads ({@code seen}) are left out. This mirror reads
     * them only in a step whose decision rests on the monitor, after that step's View has written
     * every UP worker's ({@link #fullStep}; a decision there that cites none, or none the search
     * chose, is a finding, so no candidate goes on without its View), and a worker not UP has 0
     * there from its Fail on (TraceLumen's {@code seen'[w] = 0}) until a View writes it once it is
     * UP again. So two candidates that differ only there judge every later event alike, findings
     * and messages included.
     */
    long fingerprint(java.util.IdentityHashMap<Object, Long> memo) {
        return fingerprint(memo, true);
    }

    /**
     * As {@link #fingerprint(java.util.IdentityHashMap)}, with where the load window's reports
     * resume or without it ({@code fromToo} false: mirrors equal in all else, which
     * {@link #acceptsAllOf} then compares).
     */
    long fingerprint(java.util.IdentityHashMap<Object, Long> memo, boolean fromToo) {
        return fingerprint(memo, fromToo, true);
    }

    /**
     * As {@link #fingerprint(java.util.IdentityHashMap, boolean)}, with L3's stream counters (the
     * lags, and what each request's server had streamed at its last decode) or without them
     * ({@code streamsToo} false: mirrors equal in all else, which {@link #streamsAsLenientAs} then compares).
     */
    long fingerprint(java.util.IdentityHashMap<Object, Long> memo, boolean fromToo, boolean streamsToo) {
        if (hot != null) {
            hot.releaseAll();
        }
        long h = lumen.core.Fingerprint.add(state.fingerprint(memo, window == null), content.fingerprint());
        if (!streamsToo) {
            return rest(lumen.core.Fingerprint.add(h, 0x57EA3L), fromToo);
        }
        long lags = streamLag.size();
        for (com.carrotsearch.hppc.cursors.LongIntCursor c : streamLag) {
            lags += lumen.core.Fingerprint.mix(lumen.core.Fingerprint.add(c.key, c.value));
        }
        h = lumen.core.Fingerprint.add(h, lags);
        long seen = streamSeen.size();
        for (com.carrotsearch.hppc.cursors.IntIntCursor c : streamSeen) {
            seen += lumen.core.Fingerprint.mix(lumen.core.Fingerprint.add(c.key + 0x5EE0L, c.value));
        }
        for (int w = 0; w < streamed.length; w++) {
            seen += lumen.core.Fingerprint.mix(lumen.core.Fingerprint.add(w + 0x57EAL, streamed[w]));
        }
        h = lumen.core.Fingerprint.add(h, seen);
        return rest(h, fromToo);
    }

    /** The fingerprint's part after L3's stream counters: L4's, and the load window's. */
    private long rest(long h, boolean fromToo) {
        long idle = assistIdle.cardinality();
        for (int w = assistIdle.nextSetBit(0); w >= 0; w = assistIdle.nextSetBit(w + 1)) {
            idle += lumen.core.Fingerprint.mix(w + 0x1D1EL);
        }
        h = lumen.core.Fingerprint.add(h, idle);
        long opportunities = assistOpportunities.size();
        for (com.carrotsearch.hppc.cursors.LongIntCursor c : assistOpportunities) {
            opportunities += lumen.core.Fingerprint.mix(lumen.core.Fingerprint.add(c.key, c.value));
        }
        h = lumen.core.Fingerprint.add(h, opportunities);
        long excused = assistExcused.size();
        for (com.carrotsearch.hppc.cursors.LongCursor c : assistExcused) {
            excused += lumen.core.Fingerprint.mix(c.value + 0xE8C5EDL);
        }
        h = lumen.core.Fingerprint.add(h, excused);
        return lumen.core.Fingerprint.add(h, window == null ? 0 : window.fingerprint(fromToo));
    }

    /**
     * For a mirror {@code o} whose fingerprint without L3's stream counters equals this one's, after
     * the same events in another order: whether this one accepts every continuation {@code o}
     * accepts, because L3 is no nearer to a finding here for any request. L3 counts, per copy, the
     * decode steps at which it lagged and its server had streamed nothing since the request's
     * previous decode step, and finds a copy whose count passes a bound. So this one is as lenient
     * when each count is no higher, and each request whose server has streamed since its last
     * decode step there has here too (or the two are alike). Both then stay so after any event.
     */
    boolean streamsAsLenientAs(Mirror o) {
        for (com.carrotsearch.hppc.cursors.LongIntCursor c : streamLag) {
            if (c.value > o.streamLag.getOrDefault(c.key, 0)) {
                return false;
            }
        }
        for (com.carrotsearch.hppc.cursors.IntIntCursor c : o.streamSeen) {
            if (streamedSince(o, c.key) && !streamedSince(this, c.key)) {
                return false;
            }
        }
        return true;
    }

    /** Whether request r's server has streamed since r's last decode step, in m (L3 then counts r's next step as not idle). */
    private static boolean streamedSince(Mirror m, int r) {
        int seen = m.streamSeenOf(r);
        lumen.core.RequestRec rec = m.state.request(r);
        int w = rec == null ? -1 : rec.server();
        return w >= 0 && w < m.streamed.length && !streamIdle(seen, m.streamed[w]);
    }

    /**
     * For a mirror {@code o} whose fingerprint without the window's resume points equals this
     * one's: whether this one accepts every continuation {@code o} accepts, because each worker's
     * reports resume here no later ({@link LoadWindow#resumesNoLaterThan}).
     */
    boolean acceptsAllOf(Mirror o) {
        return window != null && o.window != null && window.resumesNoLaterThan(o.window);
    }

    /**
     * For event e (at time t) that rests on the monitor under citedLoads=stale and cites no loads:
     * the loads each worker's report could have said ({@link LoadWindow#choices}); null when e needs
     * none.
     */
    double[][] loadChoices(Event e, double t) {
        return window != null && LoadWindow.usesView(state, e) ? window.choices(events + 1, t, state) : null;
    }

    /**
     * For a Place the trace does not log, under citedLoads=stale where its rule reads the monitor:
     * the loads each worker's report could have said ({@link LoadWindow#hiddenChoices}); null when
     * the Place needs none.
     */
    double[][] hiddenLoadChoices(Event e) {
        return window != null && LoadWindow.usesView(state, e) ? window.hiddenChoices(events + 1, state) : null;
    }

    /**
     * A step the trace does not log, which a partial trace's search inserts (a hidden Place), on the
     * loads {@code loads} the search chose for it (null: none needed): judged and applied as
     * {@link #step} judges an event, but not counted as one, so it is no state of any load window
     * (a Place changes no UP worker's load). For a candidate's mirror ({@link Candidates}).
     */
    Divergence stepHidden(Event e, long line, double[] loads, double t) {
        if (hot != null || inPlace) {
            throw new IllegalStateException("a hidden step is taken on a candidate's mirror, which has no fast path and no in-place state");
        }
        hiddenStep = true;
        try {
            return fullStep(e, line, loads, null, t);
        } finally {
            hiddenStep = false;
        }
    }

    /** The spec state after the events stepped so far. */
    public ClusterState state() {
        if (hot != null) {
            hot.releaseAll();
        }
        // a value from here: the next step takes a new owner
        state = state.frozen();
        return state;
    }

    /** Requests still running at this point (arrived, not DONE). */
    public long running() {
        long n = 0;
        ClusterState state = state();
        for (int id : state.requests().keys()) {
            n += unfinished(state.request(id)) ? 1 : 0;
        }
        return n;
    }

    /**
     * Checks event {@code e} (on trace line {@code line}, citing {@code cited} loads or null) and
     * applies it as reported. Returns the divergence, or null when it is a step of the spec that
     * breaks nothing; the state moves on either way.
     */
    public Divergence step(Event e, long line, double[] cited) {
        return step(e, line, cited, null);
    }

    /** As {@link #step(Event, long, double[])}, with the reservations a Place cites (null: none). */
    public Divergence step(Event e, long line, double[] cited, long[] reserved) {
        return step(e, line, cited, reserved, Double.NaN);
    }

    /**
     * As {@link #step(Event, long, double[], long[])}, at the event's time {@code t} (ms, NaN when it
     * has none), which a citedLoads=stale:Tms window needs.
     */
    public Divergence step(Event e, long line, double[] cited, long[] reserved, double t) {
        events++;
        if (hot != null) {
            if (e instanceof Event.Decode d && cited == null && reserved == null && hot.decode(d)) {
                return null;
            }
            hot.release(e);
        }
        if (!inPlace) {
            return retake(e, fullStep(e, line, cited, reserved, t));
        }
        if (!state.isOwned()) {
            state = state.owned();
        }
        ClusterState before = state;
        try {
            return retake(e, fullStep(e, line, cited, reserved, t));
        } catch (RuntimeException | Error ex) {
            if (state == before) {
                // a step that throws before it moves the state on leaves the state before it, as a
                // value (as the plain mirror does); its index may be half updated
                state = before.reindexed();
            }
            throw ex;
        }
    }

    /**
     * After a full step that found nothing, the request the event named is held on the fast path
     * again ({@link HotRequests#retake}) when it is decoding, while its record is in cache.
     */
    private Divergence retake(Event e, Divergence d) {
        if (d == null && hot != null && e.req() >= 0 && e.action() != lumen.core.Action.COMPLETE) {
            hot.retake(e.req());
        }
        return d;
    }

    /** The full step of event e: every check, and the event applied as reported. */
    private Divergence fullStep(Event e, long line, double[] cited, long[] reserved, double t) {
        ClusterState s = state;
        List<Finding> found = new ArrayList<>(0);
        boolean view = window != null && LoadWindow.usesView(s, e);
        if (window != null) {
            Finding unseen = hiddenStep ? window.observeHidden(events + 1, s, e, cited) : window.observe(events, t, s, e, cited);
            if (unseen != null) {
                found.add(unseen);
            }
            if (view && cited != null) {
                // the spec's Heartbeat steps that brought the cited loads, composed (TraceLumen's View step)
                s = s.withSeen(LoadWindow.view(s, cited));
            }
        }
        if (cited != null && !view) {
            Finding stale = Validator.staleLoads(s, e, cited);
            if (stale != null) {
                found.add(stale);
            }
        }
        if (reserved != null) {
            for (int w = 0; w < reserved.length && found.stream().noneMatch(f -> f.property() == PropertyId.S15); w++) {
                if (reserved[w] != s.worker(w).reserved()) {
                    found.add(new Finding(PropertyId.S15, "the placement cites a reservation for worker " + w
                            + " that is not the sum of Size(r) over the checkpoints it holds (Eq. 5)",
                            Long.toString(s.worker(w).reserved()), Long.toString(reserved[w])));
                }
            }
        }
        Finding step = SpecStep.check(s, e);
        Finding huge = Validator.hugeClaim(s, e);
        if (oracle != null) {
            Finding kv = pageOracle(e);
            if (kv != null) {
                found.add(kv);
            }
        }
        // the action properties and fairness read the state before the event: before it is
        // applied, which in place overwrites that state's load index (their findings still
        // follow the invariants' in the list, as they always have)
        Finding a = ActionProperties.check(s, e);
        List<Finding> unfair = new ArrayList<>(0);
        fairness(s, e, unfair);
        ClusterState post;
        if (huge != null) {
            // judged without being applied: the state before it stays (there is a divergence)
            post = s;
            found.add(huge);
        } else {
            ContentTracker.Result shown = content.step(s, e);
            found.addAll(shown.findings());
            post = taint(Transition.apply(s, e), e, shown);
            found.addAll(step == null && e.action() == lumen.core.Action.DECODE ? Invariants.afterDecodeStep(post, e.req())
                    : Invariants.touched(s, post, e));
        }
        if (a != null) {
            found.add(a);
        }
        found.addAll(unfair);
        if (step != null) {
            found.add(step);
        }
        state = post;
        if (found.isEmpty()) {
            if (e.action() == lumen.core.Action.COMPLETE) {
                finished.addLast(e.req());
                if (finished.size() > KEEP) {
                    state = state.forget(finished.removeFirst());
                }
            }
            return null;
        }
        // invariants, then action properties, each by ID, then liveness, then a bare "not a step of the spec"
        found.sort(Finding.BY_RANK);
        if (a != null && a.property() == PropertyId.S16 && found.get(0).property() == PropertyId.S7) {
            // tokens sent again also break S7 (they repeat the reference at later positions): the step
            // is reported as the re-send it is, as TraceLumen's TraceInv reports it
            found.remove(a);
            found.add(0, a);
        }
        if (step != null && (step.property() == PropertyId.S18 || step.property() == PropertyId.S19)) {
            // a zombie's write a fence let through may also break S7 or S6, which say less: it is
            // named by its own property first, as TraceLumen's InvWrong and StepWrong name it
            found.remove(step);
            found.add(0, step);
        }
        Finding first = found.get(0);
        if (first.property() != null && step != null && step.property() == null && first.expected() == null && step.expected() != null) {
            // name the property, but keep the spec's expected/actual for the step
            first = new Finding(first.property(), first.message(), step.expected(), step.actual());
        }
        // one line per other property: a property two checks both found is named once, by its first
        List<Finding> others = new ArrayList<>();
        java.util.Set<PropertyId> named = new java.util.HashSet<>();
        named.add(first.property());
        for (Finding f : found.subList(1, found.size())) {
            if (f.property() == null || named.add(f.property())) {
                others.add(f);
            }
        }
        int[] reqs = e.req() >= 0 ? new int[] {e.req()} : new int[0];
        if (e instanceof Event.Fail f) {
            reqs = Validator.concat(f.interrupted(), f.orphaned());
        }
        if (quiet) {
            ClusterState pre = s;
            int[] rq = reqs;
            Finding f1 = first;
            lastDescribed = () -> new Divergence(line, TraceWriter.toJson(e, cited, reserved), f1, others, StateView.describe(pre, e, rq));
            return new Divergence(line, null, first, others, null);
        }
        return new Divergence(line, TraceWriter.toJson(e, cited, reserved), first, others, StateView.describe(s, e, reqs));
    }

    /** The copy positions whose content differs from what the server wrote are not intact. */
    private static ClusterState taint(ClusterState post, Event e, ContentTracker.Result shown) {
        if (shown.badRestored().length > 0) {
            // restored bytes that are not the request's own (copies unobserved): holes in its KV, which S9 names
            RequestRec r = post.request(e.req());
            post = post.withRequest(r.withKv(r.kv().withHoles(shown.badRestored())));
        }
        if (shown.restoredFromElsewhere().length > 0) {
            // the request's own bytes, but not from its holder's copy: intact, and S13 says where they came from
            RequestRec r = post.request(e.req());
            post = post.withRequest(r.withKv(r.kv().withoutHoles(shown.restoredFromElsewhere())));
        }
        if (shown.badCopyPositions().length == 0) {
            return post;
        }
        RequestRec r = post.request(e.req());
        return post.withRequest(shown.toBackup() ? r.withBackup(r.backup(), r.bckpt().withHoles(shown.badCopyPositions()))
                : r.withHolder(r.holder(), r.ckpt().withHoles(shown.badCopyPositions())));
    }

    private void fairness(ClusterState s, Event e, List<Finding> found) {
        if (fairnessSteps <= 0) {
            return;
        }
        switch (e.action()) {
            case DECODE -> {
                RequestRec r = s.request(e.req());
                if (r == null) {
                    return;
                }
                int w = e.worker();
                boolean known = w >= 0 && w < streamed.length;
                boolean idle = !known || streamIdle(streamSeenOf(r.id()), streamed[w]);
                lag(s, r, r.holder(), r.ckpt().length(), r.id() * 2L, idle, found);
                lag(s, r, r.backup(), r.bckpt().length(), r.id() * 2L + 1, idle, found);
                if (known) {
                    streamSeen.put(r.id(), streamed[w]);
                }
                missedAssists(s, r, found);
            }
            case STREAM_PAGE, PLACE, ROUTE, COMPLETE -> {
                if (e.action() == lumen.core.Action.COMPLETE) {
                    completedLagging(e.req(), found);
                }
                if (e.action() == lumen.core.Action.STREAM_PAGE) {
                    RequestRec r = s.request(e.req());
                    if (r != null && r.server() >= 0) {
                        streamed[r.server()]++;
                    }
                }
                streamLag.remove(e.req() * 2L);
                streamLag.remove(e.req() * 2L + 1);
                streamSeen.remove(e.req());
            }
            case DRAFT_READY -> {
                int w = e.worker();
                assistIdle.set(w);
                assistExcused.removeAll((com.carrotsearch.hppc.predicates.LongPredicate) k -> (k >>> 32) == w);
            }
            case ASSIST, FULL_READY, FAIL -> {
                int w = e.worker();
                if (e.action() == lumen.core.Action.FULL_READY) {
                    handoverWithoutDraft(w, found);
                }
                if (e.action() == lumen.core.Action.ASSIST) {
                    // every other idle worker's missed steps on this request are excused: it was assisted
                    for (int v = assistIdle.nextSetBit(0); v >= 0; v = assistIdle.nextSetBit(v + 1)) {
                        if (v != w) {
                            assistExcused.add((long) v << 32 | e.req());
                        }
                    }
                }
                if (w >= 0 && assistIdle.get(w)) {
                    assistIdle.clear(w);
                    assistOpportunities.removeAll((com.carrotsearch.hppc.predicates.LongPredicate) k -> (k >>> 32) == w);
                }
                if (e.action() != lumen.core.Action.ASSIST) {
                    assistExcused.removeAll((com.carrotsearch.hppc.predicates.LongPredicate) k -> (k >>> 32) == w);
                }
            }
            default -> { }
        }
    }

    /**
     * L3 at request r's completion: a copy that lagged its KV by a whole page, on a live holder with
     * room, across {@link #COMPLETE_BOUND} (or the fairness bound, if lower) of r's decode steps with
     * no StreamPage: streaming could act and did not, over a decode too short for the fairness bound.
     */
    private void completedLagging(int r, List<Finding> found) {
        int bound = Math.min(fairnessSteps, COMPLETE_BOUND);
        for (long key : new long[] {r * 2L, r * 2L + 1}) {
            int n = streamLag.get(key);
            if (n >= bound && n <= fairnessSteps) {
                found.add(new Finding(PropertyId.L3, "request " + r + " completes with its " + (key % 2 == 0 ? "checkpoint" : "backup copy")
                        + " a page or more behind its KV across its last " + n + " decode steps, with no StreamPage: streaming could act"
                        + " and did not (weak fairness; at a completion the bound is the decode's own, " + bound + " steps)",
                        "a StreamPage within " + bound + " decode steps", "none"));
                return;
            }
        }
    }

    /**
     * L4 at worker w's handover: a stint with no draft that ends although w could have proposed for
     * some request at {@link #HANDOVER_BOUND} (or the fairness bound, if lower) consecutive decode steps of it,
     * a request no other worker assisted meanwhile. The request named is the one with the most such
     * steps, the lowest id on ties.
     */
    private void handoverWithoutDraft(int w, List<Finding> found) {
        if (w < 0 || !assistIdle.get(w)) {
            return;
        }
        int bound = Math.min(fairnessSteps, HANDOVER_BOUND);
        long[] best = {-1, 0};
        assistOpportunities.forEach((com.carrotsearch.hppc.procedures.LongIntProcedure) (k, n) -> {
            int r = (int) k;
            if ((k >>> 32) == w && !assistExcused.contains(k) && (n > best[1] || n == best[1] && n > 0 && r < best[0])) {
                best[0] = r;
                best[1] = n;
            }
        });
        if (best[1] >= bound) {
            found.add(new Finding(PropertyId.L4, "worker " + w + " hands over (FullReady) without having proposed a draft in its ASSISTING"
                    + " stint, although it could have for request " + best[0] + " at " + best[1] + " consecutive decode steps of it: the assist"
                    + " could act and did not (weak fairness; at a handover the bound is the stint's own, " + bound + " steps)",
                    "an Assist before the handover", "none"));
        }
    }

    /**
     * Whether a copy on {@code holder} ({@code up}: whether that worker is UP), {@code saved}
     * positions long, lags a KV of {@code kv} positions by a whole page that streaming could add:
     * the condition under which L3 counts a decode step. Under budget=stored a holder without room
     * for a whole page is exempt (Behind in TraceLumen).
     */
    static boolean lagging(ClusterState s, int holder, boolean up, int kv, int saved) {
        int pt = s.config().pageTokens();
        return holder >= 0 && up && kv - saved >= pt && s.streamRoom(holder) >= pt;
    }

    private void lag(ClusterState s, RequestRec r, int holder, int saved, long key, boolean idle, List<Finding> found) {
        int pt = s.config().pageTokens();
        if (!lagging(s, holder, holder >= 0 && s.isUp(holder), r.kv().length(), saved)) {
            streamLag.remove(key);
            return;
        }
        if (!idle) {
            return; // its server streamed since this request's previous decode step: this one is not counted
        }
        int n = streamLag.addTo(key, 1);
        if (n == fairnessSteps + 1) {
            found.add(new Finding(PropertyId.L3, "request " + r.id() + "'s " + (key % 2 == 0 ? "checkpoint" : "backup copy") + " on worker "
                    + holder + " lags its KV by at least a page (" + pt + " positions) across " + n
                    + " of its decode steps without a StreamPage: streaming could act and did not (weak fairness, bound "
                    + fairnessSteps + " steps)", "a StreamPage within " + fairnessSteps + " decode steps",
                    "checkpoint " + saved + " of " + r.kv().length() + " positions"));
        }
    }

    private void missedAssists(ClusterState s, RequestRec r, List<Finding> found) {
        if (assistIdle.isEmpty()) {
            return;
        }
        if (r.proposal() != null || r.outLen() >= r.refLen() || r.server() < 0 || !s.isUp(r.server())) {
            // no worker could propose for r at this step: the runs of steps at which one could end (only
            // idle workers have counts, so those keys are all there are, and the map is not scanned on a decode)
            for (int w = assistIdle.nextSetBit(0); w >= 0; w = assistIdle.nextSetBit(w + 1)) {
                assistOpportunities.remove((long) w << 32 | r.id());
            }
            return;
        }
        assists(s, r.id(), r.server(), found);
    }

    /**
     * L4's count at a decode step of request id, served by {@code server} (UP, with output to come
     * and no draft in flight): each idle ASSISTING worker that could have proposed for it counts
     * one more opportunity, and a finding when it reaches the bound; for each that could not, the
     * count starts over (the counts are of consecutive decode steps of the request). With {@code found} null,
     * nothing is counted: whether some count would reach the bound now.
     */
    boolean assists(ClusterState s, int id, int server, List<Finding> found) {
        for (int w = assistIdle.nextSetBit(0); w >= 0; w = assistIdle.nextSetBit(w + 1)) {
            long key = (long) w << 32 | id;
            if (s.worker(w).state() != WorkerState.ASSISTING || !mayPropose(s, w, server)) {
                if (found != null) {
                    // weak fairness asks for an action that stays possible: a step at which w could not
                    // propose for this request ends the run of steps at which it could
                    assistOpportunities.remove(key);
                }
                continue;
            }
            if (found == null) {
                if (assistOpportunities.get(key) == fairnessSteps) {
                    return true;
                }
                continue;
            }
            int n = assistOpportunities.addTo(key, 1);
            if (n == fairnessSteps + 1) {
                found.add(new Finding(PropertyId.L4, "worker " + w + " is ASSISTING with its draft loaded and has proposed no draft"
                        + " in this stint, although it could have for request " + id + " at " + n + " consecutive decode steps of it:"
                        + " the assist could act and did not (weak fairness, bound " + fairnessSteps + " steps)",
                        "an Assist within " + fairnessSteps + " decode steps", "none"));
            }
        }
        return false;
    }

    /**
     * TraceLumen's {@code MayPropose}: {@link ClusterState#mayAssist}; under citedLoads=stale, unless
     * the server is w's kept target, only when it is most loaded by every report the monitor could hold.
     */
    private boolean mayPropose(ClusterState s, int w, int server) {
        if (window == null) {
            return s.mayAssist(w, server);
        }
        int kept = s.keptTarget(w);
        return kept >= 0 ? server == kept : window.robustlyMostLoaded(s, server);
    }

    /** Whether request r is unfinished in the current state (arrived, not DONE). */
    static boolean unfinished(RequestRec r) {
        return r.phase() != RequestPhase.DONE;
    }
}
