package lumen.conform.sut;

import lumen.core.ClusterState;
import lumen.core.Policies;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.core.WorkerState;

/**
 * The seeded-bug policies of the mutants: a standard policy with one decision replaced. They are
 * not among the {@link Policies} a config may name: a mutant runtime is handed one directly, and
 * its trace names the policy it was told, as a buggy implementation's would.
 */
final class SeededPolicies {
    private SeededPolicies() {}

    static final RecoveryPolicy HOLDER_IS_SERVER = new MutantPolicy("mutant-holder-is-server") {
        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            return r.server();
        }
    };

    static final RecoveryPolicy INVERTED_TAU = new MutantPolicy("mutant-inverted-tau") {
        @Override
        public boolean restoreOnHolder(ClusterState s, RequestRec r) {
            return s.load(r.holder()) <= s.config().theta() || r.ckpt().length() <= s.config().tau();
        }
    };

    static final RecoveryPolicy IGNORES_BUDGET = new MutantPolicy("mutant-ignores-budget") {
        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            return s.index().minLoadWithRoom(Long.MIN_VALUE, r.server());
        }
    };

    static final RecoveryPolicy NO_REPROTECTION = new MutantPolicy("mutant-no-reprotection") {
        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            // a request is placed once per run: with its decision taken, no holder is ever found again
            return r.placed() ? -1 : super.chooseHolder(s, r);
        }
    };

    static final RecoveryPolicy RING_IGNORES_BUDGET = new MutantPolicy("mutant-ring-ignores-budget", "fixed-checkpointing") {
        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            return s.ringNext(r.server());
        }
    };

    /** Fixed-Checkpointing that places each checkpoint on the least loaded worker with room, as LUMEN would, instead of its ring neighbour. */
    static final RecoveryPolicy FC_PLACES_LEAST_LOADED = new MutantPolicy("mutant-fc-places-least-loaded", "fixed-checkpointing") {
        @Override
        public int chooseHolder(ClusterState s, RequestRec r) {
            return s.index().minLoadWithRoom(s.roomNeeded(r), r.server());
        }
    };

    /**
     * Fixed-Checkpointing that re-prefills although its holder is live with a checkpoint: it restores
     * a non-empty checkpoint only when the saved prefix is longer than tau.
     */
    static final RecoveryPolicy FC_RESTORES_PAST_TAU = new MutantPolicy("mutant-fc-restores-past-tau", "fixed-checkpointing") {
        @Override
        public boolean restoreOnHolder(ClusterState s, RequestRec r) {
            return r.ckpt().length() == 0 || r.ckpt().length() > s.config().tau();
        }
    };

    /**
     * LUMEN with one decision replaced, written consistently: the policy's own idea of what is
     * allowed agrees with its buggy choice, so the core takes the step, as a buggy system would.
     */
    abstract static class MutantPolicy implements RecoveryPolicy {
        private final RecoveryPolicy base;
        private final String key;

        protected MutantPolicy(String key) {
            this(key, "lumen");
        }

        protected MutantPolicy(String key, String baseKey) {
            this.key = key;
            this.base = Policies.find(baseKey);
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
            return base.loadAwarePlacement();
        }

        @Override
        public boolean eq6Routing() {
            return base.eq6Routing();
        }

        @Override
        public boolean neverRestores() {
            return base.neverRestores();
        }

        @Override
        public boolean placesCheckpoints() {
            return base.placesCheckpoints();
        }

        @Override
        public boolean ringPlacement() {
            return base.ringPlacement();
        }

        @Override
        public boolean dualPlacement() {
            return base.dualPlacement();
        }
    }
}
