package lumen.core;

/**
 * A policy assembled from one choice per mechanism. LUMEN, the two baselines and the ablations
 * differ only in these three choices; the spec's Policy values are three of them (LUMEN =
 * LOAD_AWARE/EQ6/DRAFT_ASSIST, DUAL = LOAD_AWARE_DUAL/EQ6/DRAFT_ASSIST, FC =
 * RING/HOLDER_ALWAYS/FULL_ONLY, SR = NONE/NEVER/FULL_ONLY).
 */
public record MechanismPolicy(String key, String description, Placement placement, Routing routing,
                              Recovery recovery) implements RecoveryPolicy {

    /** Mechanism 1: where a checkpoint goes. */
    public enum Placement {
        /** Algorithm 1: argmin of Eq. 4 over the UP non-server workers with room. */
        LOAD_AWARE,
        /** Algorithm 1 twice: a holder, then a backup among the rest (the spec's DUAL). */
        LOAD_AWARE_DUAL,
        /** DejaVu: the first UP worker after the server on the fixed ring, if it has room. */
        RING,
        /** No checkpoints. */
        NONE
    }

    /** Mechanism 2: where an interrupted request goes. */
    public enum Routing {
        /** Eq. 6: the holder when L(h) <= theta or |C_r| > tau, else the least loaded survivor. */
        EQ6,
        /** Always the live holder (DejaVu). */
        HOLDER_ALWAYS,
        /** Always re-prefill on the least loaded survivor. */
        NEVER
    }

    /** Mechanism 3: how a failed worker comes back. */
    public enum Recovery {
        /** Draft first, assist the most loaded survivor, then the atomic handover. */
        DRAFT_ASSIST,
        /** Load the full model only. */
        FULL_ONLY
    }

    @Override
    public int chooseHolder(ClusterState s, RequestRec r) {
        return switch (placement) {
            case LOAD_AWARE, LOAD_AWARE_DUAL -> s.index().minLoadWithRoom(s.roomNeeded(r), r.server());
            case RING -> s.ringHolder(r);
            case NONE -> -1;
        };
    }

    @Override
    public boolean allowsHolder(ClusterState s, RequestRec r, int h) {
        int pick = chooseHolder(s, r);
        if (h < 0 || pick < 0) {
            return h == pick;
        }
        if (!loadAwarePlacement()) {
            return h == pick;
        }
        return s.isHolderCandidate(h, r) && s.seen(h) == s.seen(pick);
    }

    @Override
    public int chooseBackup(ClusterState s, RequestRec r, int h) {
        return placement == Placement.LOAD_AWARE_DUAL && h >= 0 ? s.index().minLoadWithRoom(s.roomNeeded(r), r.server(), h) : -1;
    }

    @Override
    public boolean allowsBackup(ClusterState s, RequestRec r, int h, int b) {
        int pick = chooseBackup(s, r, h);
        if (b < 0 || pick < 0) {
            return b == pick;
        }
        return b != h && s.isHolderCandidate(b, r) && s.seen(b) == s.seen(pick);
    }

    @Override
    public boolean restoreOnHolder(ClusterState s, RequestRec r) {
        return switch (routing) {
            case EQ6 -> s.routeLoad(r.holder()) <= s.config().theta() || r.ckpt().length() > s.config().tau();
            case HOLDER_ALWAYS -> true;
            case NEVER -> false;
        };
    }

    @Override
    public WorkerState restartState() {
        return recovery == Recovery.DRAFT_ASSIST ? WorkerState.LOADING_DRAFT : WorkerState.LOADING_FULL;
    }

    @Override
    public boolean loadAwarePlacement() {
        return placement == Placement.LOAD_AWARE || placement == Placement.LOAD_AWARE_DUAL;
    }

    @Override
    public boolean placesCheckpoints() {
        return placement != Placement.NONE;
    }

    @Override
    public boolean ringPlacement() {
        return placement == Placement.RING;
    }

    @Override
    public boolean dualPlacement() {
        return placement == Placement.LOAD_AWARE_DUAL;
    }

    @Override
    public boolean eq6Routing() {
        return routing == Routing.EQ6;
    }

    @Override
    public boolean neverRestores() {
        return routing == Routing.NEVER;
    }
}
