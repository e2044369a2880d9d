package lumen.core;

import java.util.List;
import java.util.Map;

/**
 * The recovery policies a config may name: one line each, one config key each. The set is fixed;
 * seeded-bug policies live with the tests that run them and are handed to a cluster directly
 * ({@link ClusterState#initial(Config, RecoveryPolicy)}), so no caller filters them out of here.
 */
public final class Policies {
    private static final Map<String, RecoveryPolicy> BY_KEY = new java.util.LinkedHashMap<>();

    static {
        register(new MechanismPolicy("lumen", "LUMEN: load-aware placement, Eq. 6 routing, draft assist",
                MechanismPolicy.Placement.LOAD_AWARE, MechanismPolicy.Routing.EQ6, MechanismPolicy.Recovery.DRAFT_ASSIST));
        register(new MechanismPolicy("lumen-dual", "LUMEN with a backup holder per request: a holder failure does not lose the checkpoint",
                MechanismPolicy.Placement.LOAD_AWARE_DUAL, MechanismPolicy.Routing.EQ6, MechanismPolicy.Recovery.DRAFT_ASSIST));
        register(new MechanismPolicy("stop-and-restart", "Stop-and-Restart: no checkpoints, re-prefill on survivors",
                MechanismPolicy.Placement.NONE, MechanismPolicy.Routing.NEVER, MechanismPolicy.Recovery.FULL_ONLY));
        register(new MechanismPolicy("fixed-checkpointing", "Fixed-Checkpointing (DejaVu): ring neighbour holds, always restore there",
                MechanismPolicy.Placement.RING, MechanismPolicy.Routing.HOLDER_ALWAYS, MechanismPolicy.Recovery.FULL_ONLY));
        register(new MechanismPolicy("lumen-no-placement", "LUMEN without load-aware placement (ring neighbour holds)",
                MechanismPolicy.Placement.RING, MechanismPolicy.Routing.EQ6, MechanismPolicy.Recovery.DRAFT_ASSIST));
        register(new MechanismPolicy("lumen-no-routing", "LUMEN without locality-aware routing (always restore on the holder)",
                MechanismPolicy.Placement.LOAD_AWARE, MechanismPolicy.Routing.HOLDER_ALWAYS, MechanismPolicy.Recovery.DRAFT_ASSIST));
        register(new MechanismPolicy("lumen-no-assist", "LUMEN without speculative assist (full model only on restart)",
                MechanismPolicy.Placement.LOAD_AWARE, MechanismPolicy.Routing.EQ6, MechanismPolicy.Recovery.FULL_ONLY));
        register(new MechanismPolicy("lumen-placement-only", "Fixed-Checkpointing plus LUMEN's load-aware placement alone",
                MechanismPolicy.Placement.LOAD_AWARE, MechanismPolicy.Routing.HOLDER_ALWAYS, MechanismPolicy.Recovery.FULL_ONLY));
        register(new MechanismPolicy("lumen-routing-only", "Fixed-Checkpointing plus LUMEN's locality-aware routing (Eq. 6) alone",
                MechanismPolicy.Placement.RING, MechanismPolicy.Routing.EQ6, MechanismPolicy.Recovery.FULL_ONLY));
        register(new MechanismPolicy("lumen-assist-only", "Fixed-Checkpointing plus LUMEN's speculative assist alone",
                MechanismPolicy.Placement.RING, MechanismPolicy.Routing.HOLDER_ALWAYS, MechanismPolicy.Recovery.DRAFT_ASSIST));
    }

    private Policies() {}

    private static void register(RecoveryPolicy p) {
        if (BY_KEY.putIfAbsent(p.key(), p) != null) {
            throw new IllegalStateException("two policies under the key '" + p.key() + "'");
        }
    }

    /** The policy with this key, or null. */
    public static RecoveryPolicy find(String key) {
        return BY_KEY.get(key);
    }

    /** The keys, in registration order. */
    public static List<String> keys() {
        return List.copyOf(BY_KEY.keySet());
    }
}
