package lumen.core;

/**
 * A policy assembled from one choice per mechanism. LUMEN, the two baselines and the ablations
 * differ only in these three choices; the spec's Policy values are three of them (LUMEN =
 * LOAD_AWARE/EQ6/DRAFT_ASSIST, FC = RING/HOLDER_ALWAYS/FULL_ONLY, SR = NONE/NEVER/FULL_ONLY).
 */
public record MechanismPolicy(String key, String description, Placement placement, Routing routing,
                              Recovery recovery) implements RecoveryPolicy {

    /** Mechanism 1: where a checkpoint goes. */
    public enum Placement {
        /** Algorithm 1: argmin of Eq. 4 over the UP non-server workers with room. */
        LOAD_AWARE,
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
            case LOAD_AWARE -> s.index().minLoadWithRoom(r.size(), r.server());
            case RING -> {
                int h = s.ringNext(r.server());
                yield h >= 0 && s.isHolderCandidate(h, r) ? h : -1;
            }
            case NONE -> -1;
        };
    }

    @Override
    public boolean allowsHolder(ClusterState s, RequestRec r, int h) {
        int pick = chooseHolder(s, r);
        if (h < 0 || pick < 0) {
            return h == pick;
        }
        if (placement != Placement.LOAD_AWARE) {
            return h == pick;
        }
        return s.isHolderCandidate(h, r) && s.load(h) == s.load(pick);
    }

    @Override
    public boolean restoreOnHolder(ClusterState s, RequestRec r) {
        return switch (routing) {
            case EQ6 -> s.load(r.holder()) <= s.config().theta() || r.ckpt().length() > s.config().tau();
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
        return placement == Placement.LOAD_AWARE;
    }

    @Override
    public boolean eq6Routing() {
        return routing == Routing.EQ6;
    }
}
