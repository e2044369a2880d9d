package lumen.conform.sut;

import java.util.Arrays;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Policies;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.core.RouteMode;
import lumen.core.WorkerState;

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
                    return new Event.Route(r.req(), r.mode(), dead, r.resumed(), r.freed());
                }
            }
            return e;
        }
    },
    /** Placement forgets to exclude the request's own server from the holder candidates. */
    HOLDER_IS_SERVER("S4") {
        @Override
        public String policy(Config c) {
            return register("mutant-holder-is-server");
        }
    },
    /** Placement picks the least loaded worker without checking M_budget (Eq. 5). */
    IGNORES_BUDGET("A1") {
        @Override
        public String policy(Config c) {
            return register("mutant-ignores-budget");
        }
    },
    /** Eq. 6 with the prefix test inverted: restore when |C_r| <= tau. */
    INVERTED_TAU("A2") {
        @Override
        public String policy(Config c) {
            return register("mutant-inverted-tau");
        }
    },
    /** A restore resumes after the last page it received, counting a partly streamed page as whole. */
    RESUMES_FROM_WRONG_PREFIX("S9") {
        @Override
        public Event rewrite(ClusterState before, Event e, Config c) {
            if (e instanceof Event.Route r && r.mode() == RouteMode.RESTORE && r.resumed() > 0) {
                return new Event.Route(r.req(), r.mode(), r.worker(), r.resumed() + c.pageTokens(), r.freed());
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
                return new Event.Arrive(a.req(), early, a.promptLen(), a.ref());
            }
            if (early >= 0 && e instanceof Event.Route r) {
                return new Event.Route(r.req(), RouteMode.REPREFILL, early, 0, r.freed());
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
                if (r != null && r.proposal() != null) {
                    int room = r.refLen() - r.outLen();
                    int[] draft = r.proposal().toks();
                    int take = Math.min(draft.length, room);
                    int[] toks = Arrays.copyOf(draft, take < room ? take + 1 : take);
                    if (take < room) {
                        toks[take] = r.targetToken(r.outLen() + take + 1);
                    }
                    return new Event.Decode(d.req(), d.worker(), toks);
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
    };

    private final String expected;

    Mutants(String expected) {
        this.expected = expected;
    }

    @Override
    public String expected() {
        return expected;
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

    private static int firstIn(ClusterState s, WorkerState st) {
        for (int w = 0; w < s.config().workers(); w++) {
            if (s.worker(w).state() == st) {
                return w;
            }
        }
        return -1;
    }

    /** Registers the three policy mutants (once) and returns the key asked for. */
    static synchronized String register(String key) {
        if (Policies.find("mutant-holder-is-server") == null) {
            Policies.register(new MutantPolicy("mutant-holder-is-server") {
                @Override
                public int chooseHolder(ClusterState s, RequestRec r) {
                    return r.server();
                }
            });
            Policies.register(new MutantPolicy("mutant-inverted-tau") {
                @Override
                public boolean restoreOnHolder(ClusterState s, RequestRec r) {
                    return s.load(r.holder()) <= s.config().theta() || r.ckpt().length() <= s.config().tau();
                }
            });
            Policies.register(new MutantPolicy("mutant-ignores-budget") {
                @Override
                public int chooseHolder(ClusterState s, RequestRec r) {
                    return s.index().minLoadWithRoom(Long.MIN_VALUE, r.server());
                }
            });
        }
        return key;
    }

    /**
     * LUMEN with one decision replaced, written consistently: the policy's own idea of what is
     * allowed agrees with its buggy choice, so the core takes the step, as a buggy system would.
     */
    public abstract static class MutantPolicy implements RecoveryPolicy {
        private final RecoveryPolicy base = Policies.find("lumen");
        private final String key;

        protected MutantPolicy(String key) {
            this.key = key;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public String description() {
            return "seeded bug: " + key;
        }

        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            return base.chooseHolder(s, r);
        }

        @Override
        public boolean allowsHolder(ClusterState s, RequestRec r, int h) {
            return h == chooseHolder(s, r);
        }

        @Override
        public boolean restoreOnHolder(ClusterState s, RequestRec r) {
            return base.restoreOnHolder(s, r);
        }

        @Override
        public WorkerState restartState() {
            return base.restartState();
        }

        @Override
        public boolean loadAwarePlacement() {
            return true;
        }

        @Override
        public boolean eq6Routing() {
            return true;
        }
    }
}
