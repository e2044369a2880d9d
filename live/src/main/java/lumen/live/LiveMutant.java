package lumen.live;

/**
 * Seeded distributed bugs of {@code lumen serve} ({@code --mutant NAME}): each is a mistake a real
 * serving system makes around a failure, and {@code lumen conform --live} must catch each, from
 * what the clients saw, from the logs, or both.
 */
public enum LiveMutant {
    NONE("none", "the reference"),
    REISSUE_INTERRUPTED("reissue-interrupted",
            "the gateway re-issues a request interrupted by a failure while the restore also resumes it"),
    DROP_INTERRUPTED("drop-interrupted", "the gateway drops the requests of a worker that died"),
    APPEND_UNACKED("append-unacked", "a holder appends a page sent again instead of replacing it, so a restore brings back"
            + " a page whose acknowledgement was lost"),
    LATE_DRAFT("late-draft", "the handover races a late draft: a draft that arrives after its worker handed over is still verified"),
    HOLDER_NO_FENCE("holder-no-fence", "a holder stores a page whatever epoch its sender wrote it under: a worker that stalled and was"
            + " failed meanwhile gets its late page into a checkpoint"),
    GATEWAY_NO_FENCE("gateway-no-fence", "the gateway streams every token a worker's answer carries to its client, also an answer that"
            + " came after the gateway failed the worker: a worker that stalled in an iteration wakes and its late tokens reach the client"),
    RESTART_REUSES_EPOCH("restart-reuses-epoch", "the gateway fences a failed worker, but its restart registers it under the epoch it had: an"
            + " iteration stuck in the engine of the fenced incarnation answers after the restart, passes the fence, and its tokens reach"
            + " the client"),
    FLAPPING_DETECTOR("flapping-detector", "the detector's timeout is below the heartbeat interval, so it fails workers that are only"
            + " slow, and it takes a failed worker that answers again for a flap: back as the incarnation it was, without a reset and"
            + " under its old epoch, so an iteration stuck in its engine still answers through the fence and the client is served twice");

    public final String key;
    public final String bug;

    LiveMutant(String key, String bug) {
        this.key = key;
        this.bug = bug;
    }

    /** Whether only a gray failure (a worker failed while it lives, then waking) reaches the bug: a kill -9 leaves no zombie. */
    public boolean gray() {
        return this == HOLDER_NO_FENCE || this == GATEWAY_NO_FENCE || this == RESTART_REUSES_EPOCH || this == FLAPPING_DETECTOR;
    }

    /** The mutant of this name; null when none is. */
    public static LiveMutant of(String key) {
        for (LiveMutant m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        return null;
    }
}
