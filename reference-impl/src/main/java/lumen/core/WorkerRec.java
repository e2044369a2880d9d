package lumen.core;

/**
 * One worker's part of the spec state: {@code wstate[w]}, {@code active[w]}, {@code runq[w]},
 * and the requests whose checkpoint it holds, with their saved positions ({@code Stored(w)}) and
 * their reserved sizes ({@code Reserved(w)}). A run-queue entry is {@code true} while its request
 * waits for its prefill (phase QUEUED) and {@code false} once it runs; {@code waiting} counts the
 * {@code true} ones, for the waiting-queue reading of Q_w ({@link Readings}). {@code target} is the
 * spec's {@code atarget[w]}: the survivor this worker assists in its assist session, or -1 while
 * none is chosen (the session reading of the assist target).
 */
public record WorkerRec(int id, WorkerState state, ActiveModel active, PIntMap<Boolean> runq, int waiting,
                        PIntMap<Boolean> held, long stored, long reserved, int target, int epoch, Zombie zombie) {

    public static WorkerRec initial(int id) {
        return new WorkerRec(id, WorkerState.UP, ActiveModel.FULL, PIntMap.empty(), 0, PIntMap.empty(), 0, 0, -1, 0, null);
    }

    /** The whole run queue, queued and running. */
    public int queue() {
        return runq.size();
    }

    /** Q(w) under a queue reading: the whole run queue, or the requests waiting for their prefill. */
    public int depth(Readings.QueueDepth reading) {
        return reading == Readings.QueueDepth.RUN ? runq.size() : waiting;
    }

    /** This worker in another state; its assist session, if any, ends ({@code target} -1). */
    public WorkerRec withState(WorkerState s, ActiveModel a) {
        return new WorkerRec(id, s, a, runq, waiting, held, stored, reserved, -1, epoch, zombie);
    }

    /** This worker with its assist target {@code t} (-1: none chosen). */
    public WorkerRec withTarget(int t) {
        return t == target ? this : new WorkerRec(id, state, active, runq, waiting, held, stored, reserved, t, epoch, zombie);
    }

    /** Queues r, waiting for its prefill. */
    public WorkerRec enqueue(int r) {
        Boolean was = runq.get(r);
        return new WorkerRec(id, state, active, runq.put(r, Boolean.TRUE), waiting + (Boolean.TRUE.equals(was) ? 0 : 1),
                held, stored, reserved, target, epoch, zombie);
    }

    /** r's prefill ran: it stays in the run queue, no longer waiting. */
    public WorkerRec started(int r) {
        Boolean was = runq.get(r);
        return Boolean.TRUE.equals(was)
                ? new WorkerRec(id, state, active, runq.put(r, Boolean.FALSE), waiting - 1, held, stored, reserved, target, epoch, zombie)
                : this;
    }

    public WorkerRec dequeue(int r) {
        Boolean was = runq.get(r);
        return was == null ? this
                : new WorkerRec(id, state, active, runq.remove(r), waiting - (was ? 1 : 0), held, stored, reserved, target, epoch, zombie);
    }

    /** Takes r's checkpoint: its reservation and the positions already saved. */
    public WorkerRec hold(int r, long size, long pages) {
        return new WorkerRec(id, state, active, runq, waiting, held.put(r, Boolean.TRUE), stored + pages, reserved + size, target, epoch, zombie);
    }

    public WorkerRec release(int r, long size, long pages) {
        return new WorkerRec(id, state, active, runq, waiting, held.remove(r), stored - pages, reserved - size, target, epoch, zombie);
    }

    public WorkerRec addStored(long pages) {
        return new WorkerRec(id, state, active, runq, waiting, held, stored + pages, reserved, target, epoch, zombie);
    }

    /** A crash: the queue is gone; the host memory keeps what the Fail event left listed (a leak S8 reports). */
    public WorkerRec crashed(PIntMap<Boolean> survivingHeld, long st, long res, Zombie z) {
        return new WorkerRec(id, WorkerState.FAILED, ActiveModel.NONE, PIntMap.empty(), 0, survivingHeld, st, res, -1, epoch + 1, z);
    }

    /** This worker with other checkpoint counters (benchmarks and tests build states this way). */
    public WorkerRec withCounters(long st, long res) {
        return new WorkerRec(id, state, active, runq, waiting, held, st, res, target, epoch, zombie);
    }

    /** This worker with its zombie {@code z} (null: none), as a zombie's write or its stop leaves it. */
    public WorkerRec withZombie(Zombie z) {
        return new WorkerRec(id, state, active, runq, waiting, held, stored, reserved, target, epoch, z);
    }
}
