package lumen.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Drives the decision core with random enabled actions, the way a cluster could schedule them:
 * a test fixture for checking that every step the core takes is a step of the spec.
 */
final class RandomWalk {
    final Random rnd;
    final int requests;
    final int maxFailures;
    ClusterState state;
    int arrived;
    final List<Event> events = new ArrayList<>();

    RandomWalk(Config cfg, long seed, int requests, int maxFailures) {
        this.rnd = new Random(seed);
        this.requests = requests;
        this.maxFailures = maxFailures;
        this.state = ClusterState.initial(cfg);
    }

    /** Takes one random enabled action; false when none is enabled. */
    boolean step(Consumer<Step> onStep) {
        List<java.util.function.Supplier<Step>> options = new ArrayList<>();
        ClusterState s = state;
        if (arrived < requests && s.arriveTarget() >= 0) {
            int id = arrived;
            int prompt = 1 + rnd.nextInt(6);
            int[] ref = new int[1 + rnd.nextInt(5)];
            for (int i = 0; i < ref.length; i++) {
                ref[i] = rnd.nextInt(50);
            }
            options.add(() -> {
                arrived++;
                return Core.arrive(s, id, prompt, ref);
            });
        }
        s.requests().forEachKey(id -> {
            RequestRec r = s.request(id);
            switch (r.phase()) {
                case QUEUED -> {
                    if ((!r.placed() || s.needsProtection(r)) && s.isUp(r.server())) {
                        options.add(() -> Core.place(s, id));
                    }
                    if (r.placed() && !s.needsProtection(r) && s.isUp(r.server())) {
                        options.add(() -> Core.prefill(s, id));
                    }
                }
                case DECODE -> {
                    if ((!r.placed() || s.needsProtection(r)) && s.isUp(r.server())) {
                        options.add(() -> Core.place(s, id));
                    }
                    if (r.outLen() < r.refLen() && r.kv().length() == r.kvLen() && !s.needsProtection(r)) {
                        options.add(() -> Core.decode(s, id));
                    }
                    if (r.outLen() == r.refLen()) {
                        options.add(() -> Core.complete(s, id));
                    }
                }
                case INTERRUPTED -> {
                    if (s.index().size() > 0) {
                        options.add(() -> Core.route(s, id));
                    }
                }
                default -> { }
            }
            if (r.holder() >= 0 && r.ckpt().length() < r.kv().length()
                    && (r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.DECODE)) {
                int upTo = cut(r.ckpt().length(), r.kv().length(), s.config().pageTokens());
                options.add(() -> Core.streamPage(s, id, upTo));
            }
            if (r.backup() >= 0 && r.bckpt().length() < r.kv().length()
                    && (r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.DECODE)) {
                int upTo = cut(r.bckpt().length(), r.kv().length(), s.config().pageTokens());
                options.add(() -> Core.streamBackupPage(s, id, upTo));
            }
        });
        for (int w = 0; w < s.workerCount(); w++) {
            int ww = w;
            WorkerRec rec = s.worker(w);
            switch (rec.state()) {
                case UP -> {
                    if (s.failures() < maxFailures && s.index().size() > 1) {
                        options.add(() -> Core.fail(s, ww));
                    }
                }
                case FAILED -> options.add(() -> Core.restart(s, ww));
                case LOADING_DRAFT -> {
                    options.add(() -> Core.draftReady(s, ww, true));
                    options.add(() -> Core.draftReady(s, ww, false));
                }
                case ASSISTING -> {
                    options.add(() -> Core.fullReady(s, ww));
                    int r = Core.assistCandidate(s, ww);
                    if (r >= 0) {
                        RequestRec rr = s.request(r);
                        int[] d = draft(rr, s.config().k());
                        options.add(() -> Core.assist(s, ww, r, d));
                    }
                    if (s.failures() < maxFailures && s.index().size() > 0) {
                        options.add(() -> Core.fail(s, ww));
                    }
                }
                case LOADING_FULL -> options.add(() -> Core.fullReady(s, ww));
            }
            Zombie z = rec.zombie();
            if (z != null) {
                // the incarnation a Fail fenced lives on: its late writes, each refused, and its stop
                options.add(() -> Core.zombieStops(s, ww));
                for (int r : z.reqs().keys()) {
                    Zombie.Req q = z.reqs().get(r);
                    if (q.out() < q.refLen()) {
                        options.add(() -> Core.zombieToken(s, ww, r, q.out()));
                    }
                    if (q.holder() >= 0 && q.next() <= q.kv().length()) {
                        options.add(() -> Core.zombiePage(s, ww, r, null));
                    }
                }
                for (int r : z.held().keys()) {
                    options.add(() -> Core.zombieAck(s, ww, r));
                }
            }
        }
        if (options.isEmpty()) {
            return false;
        }
        Step st = options.get(rnd.nextInt(options.size())).get();
        onStep.accept(st);
        state = st.state();
        events.add(st.event());
        return true;
    }

    /**
     * Where a stream from {@code have} positions may stop: a page boundary up to the written KV,
     * or the written KV itself (a copy takes pages as the server wrote them).
     */
    int cut(int have, int kv, int pt) {
        int boundaries = kv / pt - have / pt;
        int k = rnd.nextInt(boundaries + 1);
        int upTo = k < boundaries ? (have / pt + 1 + k) * pt : kv;
        return upTo > have ? upTo : kv;
    }

    /** A draft that agrees with the reference for a random number of tokens, then does not. */
    int[] draft(RequestRec r, int k) {
        int len = 1 + rnd.nextInt(k);
        int[] d = new int[len];
        int agree = rnd.nextInt(len + 1);
        for (int i = 0; i < len; i++) {
            int pos = r.outLen() + i;
            int right = pos < r.refLen() ? r.ref()[pos] : 7;
            d[i] = i < agree ? right : right + 1;
        }
        return d;
    }
}
