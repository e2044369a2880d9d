package lumen.runtime;

/**
 * A failure to inject: worker {@code worker} crashes at the first moment at or after
 * {@code afterMs} when it is doing what {@code point} names (halfway through that work).
 *
 * <p>With {@code pauseMs} above 0 the failure is gray: the worker does not crash but stalls (a
 * long GC pause, a stuck call, SIGSTOP), long enough for the failure detector to declare it
 * failed, which fences it (its Fail); {@code pauseMs} later it wakes, a zombie with its old
 * state, and goes on writing what it was writing (ZombieToken, ZombiePage), each write of which
 * a fence must refuse, until it learns of its fence and stops (ZombieStops).
 */
public record Fault(int worker, double afterMs, Point point, double pauseMs) {

    public Fault {
        if (!(pauseMs >= 0) || Double.isInfinite(pauseMs)) {
            throw new IllegalArgumentException("a pause lasts a finite time of at least 0 ms, found " + pauseMs);
        }
    }

    /** A crash (fail-stop). */
    public Fault(int worker, double afterMs, Point point) {
        this(worker, afterMs, point, 0);
    }

    /** Whether the failure is gray: the worker stalls and wakes a zombie instead of crashing. */
    public boolean paused() {
        return pauseMs > 0;
    }

    /** This fault moved to {@code at}, its point and pause kept. */
    public Fault at(double at) {
        return new Fault(worker, at, point, pauseMs);
    }

    /** This fault as a crash: the same worker, moment and point, no pause. */
    public Fault asCrash() {
        return new Fault(worker, afterMs, point, 0);
    }

    /** Where in a worker's work the crash lands. */
    public enum Point {
        /** At {@code afterMs} exactly, whatever the worker is doing. */
        AT_TIME,
        /** Halfway through a prefill (of a new or re-prefilled request). */
        MID_PREFILL,
        /** Halfway through a decode iteration. */
        MID_DECODE,
        /** Halfway through streaming a page, as the server or as the holder. */
        MID_STREAM,
        /** Halfway through restoring a checkpoint (the restore and catch-up of a RESTOREd request). */
        MID_RESTORE,
        /** While assisting, halfway between DraftReady and the handover. */
        MID_HANDOVER,
        /**
         * Halfway through a decode iteration that verifies a draft: the worker is an assist target
         * with a draft in flight for one of its requests, which its failure must drop (S17).
         */
        MID_VERIFY
    }
}
