package lumen.live;

/** A call found worker {@code worker}'s process gone (refused, reset, or past its deadline): the gateway takes it as failed. */
public final class WorkerLost extends RuntimeException {
    public final int worker;

    public WorkerLost(int worker, String why) {
        super("worker " + worker + " lost: " + why, null, false, false);
        this.worker = worker;
    }
}
