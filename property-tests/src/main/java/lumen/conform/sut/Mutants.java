package lumen.conform.sut;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.Readings;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.core.WorkerState;
import lumen.runtime.ClusterRuntime;

/**
 * The shipped mutant implementations: the reference adapter with one realistic bug each. Each
 * is also its own program (a class with a main in {@code lumen.conform.sut.mutants}), so the kit
 * catches it through the process boundary, as it would catch a bug in any other system.
 */
public enum Mutants implements Bug {
    /** The gateway routes an interrupted request with a stale membership view: to the worker that just failed. */
    ROUTES_TO_FAILED_WORKER("S3") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r) {
                int dead = firstIn(before, WorkerState.FAILED);
                if (dead >= 0) {
                    return new Event.Route(r.req(), r.mode(), dead, r.resumed(), r.freed(), r.pages());
                }
            }
            return e;
        }
    },
    /** Placement forgets to exclude the request's own server from the holder candidates. */
    HOLDER_IS_SERVER("S4") {
        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.HOLDER_IS_SERVER;
        }
    },
    /** Placement picks the least loaded worker without checking M_budget (Eq. 5). */
    IGNORES_BUDGET("A1") {
        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.IGNORES_BUDGET;
        }
    },
    /** Eq. 6 with the prefix test inverted: restore when |C_r| <= tau. */
    INVERTED_TAU("A2") {
        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.INVERTED_TAU;
        }
    },
    /** A restore resumes after the last page it received, counting a partly streamed page as whole. */
    RESUMES_FROM_WRONG_PREFIX("S9") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r && r.mode() == RouteMode.RESTORE && r.resumed() > 0) {
                return new Event.Route(r.req(), r.mode(), r.worker(), r.resumed() + c.pageTokens(), r.freed(),
                        PageDigest.claimed(r.pages(), r.resumed() + c.pageTokens(), c.pageTokens()));
            }
            return e;
        }
    },
    /** The gateway counts a recovering worker as available once its draft is loaded. */
    SERVES_BEFORE_FULL_MODEL("S10") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            int early = firstIn(before, WorkerState.ASSISTING);
            if (early >= 0 && e instanceof Event.Arrive a) {
                return new Event.Arrive(a.req(), early, a.promptLen(), a.ref(), a.maxOut());
            }
            if (early >= 0 && e instanceof Event.Route r) {
                return new Event.Route(r.req(), RouteMode.REPREFILL, early, 0, r.freed(), new PageDigest[0]);
            }
            return e;
        }
    },
    /** The verifier keeps the whole draft instead of its agreeing prefix. */
    ACCEPTS_UNVERIFIED_DRAFT("S7") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Decode d) {
                RequestRec r = before.request(d.req());
                if (r != null && r.proposal() != null && d.pages() != null) {
                    int room = r.refLen() - r.outLen();
                    int[] draft = r.proposal().toks();
                    int take = Math.min(draft.length, room);
                    int[] toks = Arrays.copyOf(draft, take < room ? take + 1 : take);
                    if (take < room) {
                        toks[take] = r.targetToken(r.outLen() + take + 1);
                    }
                    return new Event.Decode(d.req(), d.worker(), toks, written(d.pages(), r.kv().length() + 1,
                            r.kv().length() + toks.length, c.pageTokens()));
                }
            }
            return e;
        }
    },
    /** Completion releases the request's GPU memory but forgets its checkpoint on the holder. */
    LEAKS_CHECKPOINT("S8") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Complete x && x.freed() > 0) {
                return new Event.Complete(x.req(), x.worker(), 0);
            }
            return e;
        }
    },
    /**
     * The system supplies its own oracle: it changes the second output token of each request and
     * reports an Arrive.ref edited to match, so its output agrees with its own "reference".
     */
    SELF_REFERENCED_OUTPUT("S7") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Arrive a && a.ref().length >= 2) {
                int[] ref = a.ref().clone();
                ref[1] = other(ref[1]);
                return a.withRef(ref);
            }
            RequestRec r = e.req() >= 0 ? before.request(e.req()) : null;
            if (e instanceof Event.Decode d && r != null && r.outLen() <= 1 && r.outLen() + d.tokens().length >= 2 && r.refLen() >= 2) {
                int[] toks = d.tokens().clone();
                toks[1 - r.outLen()] = other(toks[1 - r.outLen()]);
                return new Event.Decode(d.req(), d.worker(), toks, d.pages());
            }
            return e;
        }

        private int other(int token) {
            return token == 0 ? 1 : token - 1;
        }
    },
    /** A request stops one token early: its last decode step is never taken, and it completes short. */
    STOPS_EARLY("S1") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            RequestRec r = e.req() >= 0 ? before.request(e.req()) : null;
            if (e instanceof Event.Decode d && r != null && r.refLen() >= 3 && r.outLen() + d.tokens().length == r.refLen()) {
                return null;
            }
            return e;
        }
    },
    /** The server never streams a checkpoint page: a restore finds nothing to resume with. */
    NEVER_STREAMS("L3") {
        @Override
        public ClusterRuntime.Options options(ClusterRuntime.Options o) {
            return o.withMechanisms(false, true);
        }
    },
    /** A recovering worker loads its draft and never proposes one. */
    NEVER_ASSISTS("L4") {
        @Override
        public ClusterRuntime.Options options(ClusterRuntime.Options o) {
            return o.withMechanisms(true, false);
        }
    },
    /** The gateway places a request once per run: one that loses its holder runs unprotected although a worker has room. */
    NO_REPROTECTION("S14") {
        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.NO_REPROTECTION;
        }
    },
    /** The server keeps a stale holder table: it streams every page to the request's first holder, even after it was placed elsewhere. */
    STREAMS_TO_STALE_HOLDER("S13") {
        private final Map<Integer, Integer> first = new HashMap<>();

        @Override
        public void reset() {
            first.clear();
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Place p && p.holder() >= 0) {
                first.putIfAbsent(p.req(), p.holder());
            }
            if (e instanceof Event.StreamPage sp && first.containsKey(sp.req()) && first.get(sp.req()) != sp.holder()
                    && before.request(sp.req()).backup() != sp.holder()) {
                return new Event.StreamPage(sp.req(), first.get(sp.req()), sp.ckpt(), sp.pages());
            }
            return e;
        }
    },
    /** The server streams one position past what it has written (the last token's KV, which the next forward pass writes). */
    STREAMS_PAST_WRITTEN("S6") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.StreamPage sp) {
                RequestRec r = before.request(sp.req());
                boolean toBackup = r.backup() >= 0 && sp.holder() == r.backup();
                int have = toBackup ? r.bckpt().length() : r.ckpt().length();
                int past = r.kv().length() + 1;
                PageDigest[] pages = PageDigest.claimed(null, past, c.pageTokens());
                return new Event.StreamPage(sp.req(), sp.holder(), past,
                        Arrays.stream(pages).filter(p -> p.last() > have).toArray(PageDigest[]::new));
            }
            return e;
        }
    },
    /** Under Fixed-Checkpointing a restore drops the last page it saved, and recomputes it. */
    RESTORE_DROPS_LAST_PAGE("S12") {
        @Override
        public List<String> policies() {
            return List.of("fixed-checkpointing");
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r && r.mode() == RouteMode.RESTORE && r.resumed() > 0) {
                int keep = (r.resumed() - 1) / c.pageTokens() * c.pageTokens();
                return new Event.Route(r.req(), r.mode(), r.worker(), keep, r.freed(),
                        Arrays.stream(r.pages()).filter(p -> p.last() <= keep).toArray(PageDigest[]::new));
            }
            return e;
        }
    },
    /**
     * Under DUAL, a backup promoted to holder keeps the failed holder's page list instead of its
     * own copy: a later restore on it brings back the pages the holder had and the backup never
     * received.
     */
    PROMOTES_HOLDER_COPY("S13") {
        /** Per request, the pages streamed to its current holder. */
        private final Map<Integer, List<PageDigest>> toHolder = new HashMap<>();
        /** Per promoted request, the holder's pages its backup never received. */
        private final Map<Integer, List<PageDigest>> carried = new HashMap<>();

        @Override
        public void reset() {
            toHolder.clear();
            carried.clear();
        }

        @Override
        public List<String> policies() {
            return List.of("lumen-dual");
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.StreamPage sp && sp.pages() != null) {
                RequestRec r = before.request(sp.req());
                if (r != null && r.holder() == sp.holder()) {
                    toHolder.computeIfAbsent(sp.req(), k -> new ArrayList<>()).addAll(Arrays.asList(sp.pages()));
                }
            } else if (e instanceof Event.Fail f) {
                for (int id : f.promoted()) {
                    int have = before.request(id).bckpt().length();
                    List<PageDigest> extra = toHolder.getOrDefault(id, List.of()).stream().filter(p -> p.first() > have).toList();
                    toHolder.remove(id);
                    if (!extra.isEmpty()) {
                        carried.put(id, extra);
                    }
                }
                for (int id : f.orphaned()) {
                    toHolder.remove(id);
                }
            } else if (e instanceof Event.Route rt) {
                toHolder.remove(rt.req());
                List<PageDigest> extra = carried.remove(rt.req());
                if (extra != null && rt.mode() == RouteMode.RESTORE && rt.pages() != null) {
                    List<PageDigest> pages = new ArrayList<>(Arrays.asList(rt.pages()));
                    pages.addAll(extra);
                    return new Event.Route(rt.req(), rt.mode(), rt.worker(), extra.get(extra.size() - 1).last(), rt.freed(),
                            pages.toArray(PageDigest[]::new));
                }
            } else if (e instanceof Event.Complete) {
                toHolder.remove(e.req());
                carried.remove(e.req());
            }
            return e;
        }
    },
    /** The adapter stops reporting once the first failure has happened (or after 40 events): a trace cut in the middle of the run. */
    TRUNCATES_RUN("INCOMPLETE") {
        private int events;
        private boolean cut;

        @Override
        public void reset() {
            events = 0;
            cut = false;
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (cut) {
                return null;
            }
            cut = e instanceof Event.Fail || ++events >= 40;
            return e;
        }
    },
    /** The gateway re-issues an interrupted request as a new arrival while the restore also resumes it. */
    REISSUES_INTERRUPTED("S2") {
        @Override
        public List<Event> rewriteAll(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r && r.mode() == RouteMode.RESTORE) {
                RequestRec q = before.request(r.req());
                for (int w = 0; w < c.workers(); w++) {
                    if (w != r.worker() && before.isUp(w)) {
                        return List.of(e, new Event.Arrive(r.req(), w, q.promptLen(), q.ref()));
                    }
                }
            }
            return List.of(e);
        }
    },
    /**
     * Fixed-Checkpointing's holder choice forgets M_budget: the ring neighbour holds whether it has
     * room or not. Caught at that placement as A4, FC's own placement rule, before its pages could
     * break S5 (Eq. 5).
     */
    RING_IGNORES_BUDGET("A4") {
        @Override
        public List<String> policies() {
            return List.of("fixed-checkpointing");
        }

        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.RING_IGNORES_BUDGET;
        }
    },
    /** The implementation is told the waiting-queue reading of Q_w and counts the whole run queue anyway. */
    IGNORES_QUEUE_READING("A2", "lumen", "queue", "waiting", "run"),
    /** Under the session reading of the assist target (the default), every proposal re-targets the most loaded worker of its moment. */
    ASSIST_RETARGETS("A3", "lumen", "assistTarget", "session", "proposal"),
    /** Told the proposal reading of the assist target, the recovering worker keeps the target it chose for its session. */
    ASSIST_KEEPS_TARGET("A3", "lumen", "assistTarget", "proposal", "session"),
    /** Told routeLoads=increment (Algorithm 2's L += cost), the gateway recomputes the loads from the state for each route. */
    ROUTE_LOADS_RECOMPUTED("A2", "lumen", "routeLoads", "increment", "recompute"),
    /** Told budget=stored (Eq. 5 on the pages stored), placement still requires room to reserve the declared maximum. */
    BUDGET_RESERVED_ANYWAY("A1", "lumen", "budget", "stored", "reserve"),
    /**
     * Told citedLoads=stale:1 (no decision rests on a report more than one event old), the gateway's
     * monitor takes the workers' reports only every 12 events, and its decisions cite what it has.
     */
    MONITOR_BEHIND_BOUND("A1", "lumen", "citedLoads", "stale:1", "stale:12"),
    /** Under lumen-dual with the rebackup reading, a request whose backup was promoted or lost never gets a new one. */
    NO_REBACKUP("S14", "lumen-dual", "rebackup", "true", "false"),
    /** Under Fixed-Checkpointing with the ringFallThrough reading, a neighbour without room still leaves the request unprotected. */
    RING_NO_FALL_THROUGH("A4", "fixed-checkpointing", "ringFallThrough", "true", "false"),
    /** Under Fixed-Checkpointing with the ring running backwards (ringDirection=previous), checkpoints still go to the next worker. */
    RING_WRONG_DIRECTION("A4", "fixed-checkpointing", "ringDirection", "previous", "next"),
    /**
     * Told arrival=shortest (the default: the paper's join-the-shortest-queue router), the gateway
     * sends new requests round robin, as a stock serving gateway may (the reference's rule under
     * arrival=any).
     */
    ROUND_ROBIN_GATEWAY("A6", "lumen", "arrival", "shortest", "any"),
    /** Fixed-Checkpointing places each checkpoint on the least loaded worker with room, as LUMEN would, instead of its ring neighbour. */
    FC_PLACES_LEAST_LOADED("A4") {
        @Override
        public List<String> policies() {
            return List.of("fixed-checkpointing");
        }

        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.FC_PLACES_LEAST_LOADED;
        }
    },
    /**
     * Fixed-Checkpointing restores on its live holder only when the saved prefix is longer than tau,
     * and re-prefills otherwise: a wrong decision not to restore, named by FC's routing rule (A5).
     */
    FC_RESTORES_PAST_TAU("A5") {
        @Override
        public List<String> policies() {
            return List.of("fixed-checkpointing");
        }

        @Override
        public RecoveryPolicy policy(Config c) {
            return SeededPolicies.FC_RESTORES_PAST_TAU;
        }
    },
    /** Fixed-Checkpointing re-prefills a request whose holder is lost on the most loaded live worker, not a least loaded one. */
    FC_REPREFILL_ANYWHERE("A5") {
        @Override
        public List<String> policies() {
            return List.of("fixed-checkpointing");
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r && r.mode() == RouteMode.REPREFILL) {
                int most = -1;
                for (int w = 0; w < c.workers(); w++) {
                    if (before.isUp(w) && (most < 0 || before.routeLoad(w) > before.routeLoad(most))) {
                        most = w;
                    }
                }
                if (most >= 0 && before.routeLoad(most) > before.routeLoad(r.worker())) {
                    return new Event.Route(r.req(), r.mode(), most, r.resumed(), r.freed(), r.pages());
                }
            }
            return e;
        }
    },
    /**
     * A re-prefill restarts the request's output: the new server's prefill sends the first token
     * again, although the client already has it (and the tokens after it).
     */
    RESENDS_OUTPUT("S16") {
        @Override
        public List<String> policies() {
            return List.of("stop-and-restart");
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Prefill p && p.tokens().length == 0) {
                RequestRec r = before.request(p.req());
                if (r != null && r.outLen() > 0 && r.ref() != null) {
                    return new Event.Prefill(p.req(), p.worker(), new int[] {r.ref()[0]}, p.pages());
                }
            }
            return e;
        }
    },
    /**
     * Page digests taken over each page's metadata (its first position and count) instead of its
     * bytes: every copy of a page agrees with every other, right or wrong, so only the kit's KV
     * content model, which predicts each digest, can tell.
     */
    DIGEST_OVER_METADATA("S9") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            return withPages(e, pages -> {
                PageDigest[] out = new PageDigest[pages.length];
                for (int i = 0; i < pages.length; i++) {
                    out[i] = new PageDigest(pages[i].first(), pages[i].count(),
                            lumen.core.KitKv.mix(pages[i].first() * 0x9E3779B97F4A7C15L + pages[i].count()));
                }
                return out;
            });
        }
    },
    /**
     * A re-prefill recomputes the KV of the tokens already delivered wrongly (as a recompute with its
     * positions off by one would) and reports the digests of what it wrote, in every event that
     * reports those pages after: every copy agrees with every other, and every token is right, so only
     * a digest the kit can predict (its KV content model, or the same system's failure-free run under
     * --kv-equivalence) shows the KV is wrong.
     */
    RECOMPUTES_WRONG_KV("S9") {
        /** Per re-prefilled request, the last position its re-prefill recomputed. */
        private final Map<Integer, Integer> recomputed = new HashMap<>();

        @Override
        public void reset() {
            recomputed.clear();
        }

        @Override
        public List<String> policies() {
            return List.of("stop-and-restart");
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            RequestRec r = e.req() >= 0 ? before.request(e.req()) : null;
            if (e instanceof Event.Prefill p && r != null && r.outLen() > 0 && p.pages() != null) {
                recomputed.put(p.req(), r.kvLen());
            } else if (e instanceof Event.Complete || e instanceof Event.Route) {
                recomputed.remove(e.req());
                return e;
            }
            Integer upTo = recomputed.get(e.req());
            return upTo == null ? e : withPages(e, pages -> shifted(pages, upTo));
        }

        /** The entries of pages that hold a recomputed position, with the digest of the bytes written there instead. */
        private PageDigest[] shifted(PageDigest[] pages, int upTo) {
            PageDigest[] out = pages.clone();
            for (int i = 0; i < out.length; i++) {
                if (out[i].first() <= upTo) {
                    out[i] = new PageDigest(out[i].first(), out[i].count(), lumen.core.KitKv.mix(out[i].digest() ^ 0x5EED0FF1L));
                }
            }
            return out;
        }
    },
    /**
     * A failure drops its own worker's drafts but not those of the requests it interrupts: a draft
     * in flight when its request's server failed is verified later, on the request's new server.
     */
    DRAFT_SURVIVES_FAILURE("S17") {
        /** Per request, the draft in flight when its server failed. */
        private final Map<Integer, int[]> kept = new HashMap<>();
        /** Per request, its seed: the KV bytes of the positions the stale draft's verification writes. */
        private final Map<Integer, Long> seeds = new HashMap<>();

        @Override
        public void reset() {
            kept.clear();
            seeds.clear();
        }

        @Override
        public void arrived(int req, long seed) {
            seeds.put(req, seed);
        }

        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Fail f) {
                for (int id : f.interrupted()) {
                    RequestRec r = before.request(id);
                    if (r != null && r.proposal() != null && r.proposal().src() != f.worker()) {
                        kept.put(id, r.proposal().toks());
                    }
                }
            } else if (e instanceof Event.Complete) {
                kept.remove(e.req());
            } else if (e instanceof Event.Decode d && kept.containsKey(d.req()) && d.pages() != null) {
                RequestRec r = before.request(d.req());
                int[] draft = kept.remove(d.req());
                if (r != null && r.proposal() == null && r.ref() != null) {
                    // the stale draft verified as if it were in flight: its agreeing prefix, then the target's token
                    int n = r.outLen();
                    int m = 0;
                    while (m < draft.length && n + m < r.refLen() && draft[m] == r.ref()[n + m]) {
                        m++;
                    }
                    if (m > 0) {
                        int[] toks = Arrays.copyOfRange(r.ref(), n, Math.min(r.refLen(), n + m + 1));
                        // the pass writes the KV of every token it keeps but the last, as the kit's KV content model has it
                        long seed = seeds.getOrDefault(d.req(), 0L);
                        int[][] shape = PageDigest.shape(r.kv().length() + 1, r.kv().length() + toks.length, c.pageTokens());
                        PageDigest[] pages = new PageDigest[shape.length];
                        for (int i = 0; i < shape.length; i++) {
                            pages[i] = new PageDigest(shape[i][0], shape[i][1], lumen.core.KitKv.digest(seed, shape[i][0], shape[i][1]));
                        }
                        return new Event.Decode(d.req(), d.worker(), toks, pages);
                    }
                }
            }
            return e;
        }
    },
    /** The handover switches models but keeps the draft model's in-flight drafts. */
    SPECULATION_SURVIVES_HANDOVER("S11") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.FullReady f && f.dropped().length > 0) {
                return new Event.FullReady(f.worker(), new int[0]);
            }
            return e;
        }
    },
    /** The recovering worker proposes for a request on a lightly loaded survivor, not the most loaded one. */
    ASSISTS_LEAST_LOADED("A3") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Assist a) {
                RequestRec target = before.request(a.req());
                for (int id : before.requests().keys()) {
                    RequestRec r = before.request(id);
                    if (r.phase() == RequestPhase.DECODE && r.proposal() == null && r.outLen() < r.refLen() && r.server() >= 0
                            && before.isUp(r.server()) && before.load(r.server()) < before.load(target.server())) {
                        int[] draft = Arrays.copyOf(a.draft(), Math.min(a.draft().length, r.refLen() - r.outLen()));
                        return new Event.Assist(a.worker(), id, draft.length == 0 ? new int[] {0} : draft);
                    }
                }
            }
            return e;
        }
    },
    /** The gateway's reservation counters forget to release a completed request's reservation; its placements cite them. */
    DRIFTS_ACCOUNTING("S15") {
        private long[] own;

        @Override
        public void reset() {
            own = null;
        }

        @Override
        public List<Event> rewriteAll(ClusterState before, Event e, Config c) {
            if (own == null) {
                own = new long[c.workers()];
            }
            RequestRec r = e.req() >= 0 ? before.request(e.req()) : null;
            if (e instanceof Event.Place p && r != null) {
                release(r, r.size());
                if (p.holder() >= 0) {
                    own[p.holder()] += r.size();
                }
                if (p.backup() >= 0) {
                    own[p.backup()] += r.size();
                }
            } else if (e instanceof Event.Route && r != null) {
                release(r, r.size());
            } else if (e instanceof Event.Fail f) {
                own[f.worker()] = 0;
            }
            // the bug: Complete releases nothing
            return List.of(e);
        }

        private void release(RequestRec r, long size) {
            if (r.holder() >= 0) {
                own[r.holder()] -= size;
            }
            if (r.backup() >= 0) {
                own[r.backup()] -= size;
            }
        }

        @Override
        public long[] citedReservations(ClusterState before, Config c) {
            return own == null ? Adapter.reservations(before) : own.clone();
        }
    },
    /**
     * Gray failures: the gateway streams every token a worker sends it into its request's stream,
     * whatever epoch the write carries, so a paused worker that wakes delivers its late tokens.
     */
    GATEWAY_NO_FENCE("S18", true) {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            return e instanceof Event.ZombieToken t ? t.taken() : e;
        }
    },
    /**
     * Gray failures: the gateway fences tokens, but a holder stores every page a worker streams to
     * it, whatever its epoch: a woken zombie's pages enter the checkpoint a later restore reads.
     */
    HOLDER_NO_FENCE("S19", true) {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            // the holder keeps pages by (request, position): it takes the page into the copy of the request it holds now, if any
            if (e instanceof Event.ZombiePage p && holdsCopy(before.request(p.req()), p.holder())) {
                return p.taken();
            }
            return e;
        }

        private boolean holdsCopy(RequestRec r, int h) {
            return r != null && r.phase() != RequestPhase.DONE && (r.holder() == h || r.backup() == h);
        }
    },
    /**
     * Gray failures: the gateway checks the epoch on tokens and on pages but not on
     * acknowledgements: a holder failed while it lived acknowledges the copy it still holds of a
     * request that has no holder now, and the gateway takes it back as the request's checkpoint.
     */
    ACK_NO_FENCE("S19", true) {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.ZombieAck a) {
                RequestRec r = before.request(a.req());
                if (r != null && r.phase() != RequestPhase.DONE && r.holder() < 0) {
                    return a.taken();
                }
            }
            return e;
        }
    },
    /**
     * Gray failures: a restarted worker registers under the epoch it had (an epoch kept per worker
     * id, not raised on restart). The gateway and the holders refuse a failed worker's writes
     * until it restarts, and then take its zombie's, whose epoch is now the current one again.
     */
    RESTART_REUSES_EPOCH("S18", true) {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.ZombieToken t && registered(before, t.worker())) {
                return t.taken();
            }
            if (e instanceof Event.ZombiePage p && registered(before, p.worker())) {
                return p.taken();
            }
            return e;
        }

        /** Whether w has restarted since its failure, and so registered again (under the epoch its zombie has). */
        private boolean registered(ClusterState before, int w) {
            return before.worker(w).state() != WorkerState.FAILED;
        }
    };

    private final String expected;
    private final boolean gray;
    /** For a reading mutant: its policy, the reading, the value it claims and the value it runs; else null. */
    private final String readingPolicy;
    private final String reading;
    private final String claimed;
    private final String runs;

    Mutants(String expected) {
        this(expected, null, null, null, null);
    }

    /** A mutant whose bug is in a fence ({@code gray}): the kit runs it with gray failures. */
    Mutants(String expected, boolean gray) {
        this(expected, null, null, null, null, gray);
    }

    /** A mutant that is told reading {@code reading=claimed} and runs {@code reading=runs} under {@code policy}. */
    Mutants(String expected, String policy, String reading, String claimed, String runs) {
        this(expected, policy, reading, claimed, runs, false);
    }

    Mutants(String expected, String policy, String reading, String claimed, String runs, boolean gray) {
        this.gray = gray;
        this.expected = expected;
        this.readingPolicy = policy;
        this.reading = reading;
        this.claimed = claimed;
        this.runs = runs;
    }

    @Override
    public Readings readings(Config c) {
        return reading == null ? c.readings() : c.readings().with(reading, runs);
    }

    @Override
    public String expected() {
        return expected;
    }

    /** The readings the kit tells this mutant to run under (the default, unless its bug is in a reading). */
    public Readings claims() {
        return reading == null ? Readings.DEFAULT : Readings.DEFAULT.with(reading, claimed);
    }

    /** Whether the kit runs this mutant's schedules with gray failures (its bug is in a fence). */
    public boolean gray() {
        return gray;
    }

    /** The policies the kit runs this mutant under (LUMEN, unless its bug lives in another policy). */
    public List<String> policies() {
        return List.of(readingPolicy == null ? "lumen" : readingPolicy);
    }

    /** The program name of this mutant, as in docs/conformance.md. */
    public String programName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The main class of this mutant's own program. */
    public String mainClass() {
        StringBuilder b = new StringBuilder("lumen.conform.sut.mutants.");
        for (String part : name().toLowerCase(java.util.Locale.ROOT).split("_")) {
            b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return b.toString();
    }

    /**
     * The content a step that claims positions from..to reports: the runtime's own page entries
     * where it wrote the same page with the same count, digest 0 (bytes never computed) elsewhere.
     */
    static PageDigest[] written(PageDigest[] real, int from, int to, int pageTokens) {
        int[][] shape = PageDigest.shape(from, to, pageTokens);
        PageDigest[] out = new PageDigest[shape.length];
        for (int i = 0; i < shape.length; i++) {
            out[i] = new PageDigest(shape[i][0], shape[i][1], 0);
            for (PageDigest p : real) {
                if (p.first() == shape[i][0] && p.count() == shape[i][1]) {
                    out[i] = p;
                }
            }
        }
        return out;
    }

    /** Event e with the pages it reports (a Prefill's, Decode's, StreamPage's or Route's) replaced by f of them; others as they are. */
    static Event withPages(Event e, java.util.function.UnaryOperator<PageDigest[]> f) {
        return switch (e.action()) {
            case PREFILL -> {
                Event.Prefill p = (Event.Prefill) e;
                yield p.pages() == null ? e : new Event.Prefill(p.req(), p.worker(), p.tokens(), f.apply(p.pages()));
            }
            case DECODE -> {
                Event.Decode d = (Event.Decode) e;
                yield d.pages() == null ? e : new Event.Decode(d.req(), d.worker(), d.tokens(), f.apply(d.pages()));
            }
            case STREAM_PAGE -> {
                Event.StreamPage sp = (Event.StreamPage) e;
                yield sp.pages() == null ? e : new Event.StreamPage(sp.req(), sp.holder(), sp.ckpt(), f.apply(sp.pages()));
            }
            case ROUTE -> {
                Event.Route r = (Event.Route) e;
                yield r.pages() == null ? e : new Event.Route(r.req(), r.mode(), r.worker(), r.resumed(), r.freed(), f.apply(r.pages()));
            }
            default -> e;
        };
    }

    private static int firstIn(ClusterState s, WorkerState st) {
        for (int w = 0; w < s.config().workers(); w++) {
            if (s.worker(w).state() == st) {
                return w;
            }
        }
        return -1;
    }

}
