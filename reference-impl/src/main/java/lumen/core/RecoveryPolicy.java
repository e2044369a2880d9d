package lumen.core;

/**
 * A recovery policy: the three choices the spec leaves to {@code Policy}, one per mechanism.
 * The spec's {@code PlacementChoice}, {@code UseHolder} and {@code Restart} read the policy and
 * nothing else does. Implementations are registered in {@link Policies} under one config key.
 */
public interface RecoveryPolicy {
    /** The config key, e.g. "lumen". */
    String key();

    /** One line for listings. */
    String description();

    /**
     * The policy's pick from {@code PlacementChoice(r)}: a holder for r's checkpoint, or -1 to run
     * r unprotected. Deterministic.
     */
    int chooseHolder(ClusterState s, RequestRec r);

    /** Whether {@code h} (or -1, unprotected) is in {@code PlacementChoice(r)}. */
    boolean allowsHolder(ClusterState s, RequestRec r, int h);

    /**
     * The policy's pick from {@code BackupChoice(r, h)}: a second holder for r's checkpoint given
     * its first {@code h}, or -1 for none (every policy but lumen-dual).
     */
    default int chooseBackup(ClusterState s, RequestRec r, int h) {
        return -1;
    }

    /** Whether {@code b} (or -1) is in {@code BackupChoice(r, h)}. */
    default boolean allowsBackup(ClusterState s, RequestRec r, int h, int b) {
        return b == chooseBackup(s, r, h);
    }

    /** The policy's clause of Eq. 6's {@code UseHolder(r)}, for a live holder. */
    boolean restoreOnHolder(ClusterState s, RequestRec r);

    /** The state a failed worker restarts in: LOADING_DRAFT (assist) or LOADING_FULL. */
    WorkerState restartState();

    /** Whether the policy places checkpoints at all (every policy but stop-and-restart). */
    default boolean placesCheckpoints() {
        return true;
    }

    /** Whether the policy places on FC's fixed ring (where the ring readings apply). */
    default boolean ringPlacement() {
        return false;
    }

    /** Whether the policy places a backup as well as a holder (the spec's DUAL). */
    default boolean dualPlacement() {
        return false;
    }

    /** Whether A1 (placement is Eq. 4's argmin) applies to this policy. */
    boolean loadAwarePlacement();

    /** Whether A2 (routing follows Eq. 6) applies to this policy. */
    boolean eq6Routing();

    /**
     * Whether the policy's routing never restores (Stop-and-Restart's). A policy that neither routes
     * by Eq. 6 nor never restores routes as Fixed-Checkpointing does, restoring on every live holder;
     * A5 holds those two to their rules.
     */
    default boolean neverRestores() {
        return false;
    }
}
