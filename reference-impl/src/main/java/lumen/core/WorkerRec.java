package lumen.core;

/**
 * One worker's part of the spec state: {@code wstate[w]}, {@code active[w]}, {@code runq[w]},
 * and the requests whose checkpoint it holds, with their saved positions ({@code Stored(w)}) and
 * their reserved sizes ({@code Reserved(w)}).
 */
public record WorkerRec(int id, WorkerState state, ActiveModel active, PIntMap<Boolean> runq,
                        PIntMap<Boolean> held, long stored, long reserved) {

    public static WorkerRec initial(int id) {
        return new WorkerRec(id, WorkerState.UP, ActiveModel.FULL, PIntMap.empty(), PIntMap.empty(), 0, 0);
    }

    /** Q(w): the queue depth. */
    public int queue() {
        return runq.size();
    }

    public WorkerRec withState(WorkerState s, ActiveModel a) {
        return new WorkerRec(id, s, a, runq, held, stored, reserved);
    }

    public WorkerRec withRunq(PIntMap<Boolean> q) {
        return new WorkerRec(id, state, active, q, held, stored, reserved);
    }

    public WorkerRec enqueue(int r) {
        return withRunq(runq.put(r, Boolean.TRUE));
    }

    public WorkerRec dequeue(int r) {
        return withRunq(runq.remove(r));
    }

    /** Takes r's checkpoint: its reservation and the positions already saved. */
    public WorkerRec hold(int r, long size, long pages) {
        return new WorkerRec(id, state, active, runq, held.put(r, Boolean.TRUE), stored + pages, reserved + size);
    }

    public WorkerRec release(int r, long size, long pages) {
        return new WorkerRec(id, state, active, runq, held.remove(r), stored - pages, reserved - size);
    }

    public WorkerRec addStored(long pages) {
        return new WorkerRec(id, state, active, runq, held, stored + pages, reserved);
    }

    /** A crash: queue and host memory are gone. */
    public WorkerRec crashed(PIntMap<Boolean> survivingQueue, PIntMap<Boolean> survivingHeld, long st, long res) {
        return new WorkerRec(id, WorkerState.FAILED, ActiveModel.NONE, survivingQueue, survivingHeld, st, res);
    }
}
