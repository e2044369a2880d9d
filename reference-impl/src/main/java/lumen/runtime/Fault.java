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
 *
 * <p>With {@code partition} other than {@link Partition#NONE} the gray failure is a partition
 * between the gateway and the worker for {@code pauseMs}: the worker does not stall, it goes on
 * working and cannot reach the gateway (nor the gateway it), so the detector declares it failed
 * the same. Its pages still reach its holders, which the Fail fenced: the zombie's next page per
 * request goes at once, refused. Its tokens and acknowledgements wait for the partition to heal
 * ({@link Partition#DELAYED}), refused then, or are lost in it ({@link Partition#LOST}); at the
 * heal the zombie learns of its fence and stops.
 */
public record Fault(int worker, double afterMs, Point point, double pauseMs, Partition partition) {

    public Fault {
        if (!(pauseMs >= 0) || Double.isInfinite(pauseMs)) {
            throw new IllegalArgumentException("a pause lasts a finite time of at least 0 ms, found " + pauseMs);
        }
        if (partition == null || partition != Partition.NONE && pauseMs == 0) {
            throw new IllegalArgumentException("a partition lasts a time above 0 ms");
        }
    }

    /** A crash (fail-stop). */
    public Fault(int worker, double afterMs, Point point) {
        this(worker, afterMs, point, 0);
    }

    /** A crash ({@code pauseMs} 0) or a pause of the worker. */
    public Fault(int worker, double afterMs, Point point, double pauseMs) {
        this(worker, afterMs, point, pauseMs, Partition.NONE);
    }

    /** Whether the failure is gray: the worker stalls, or is cut off from the gateway, and lives on as a zombie instead of crashing. */
    public boolean paused() {
        return pauseMs > 0;
    }

    /** Whether the gray failure is a partition from the gateway (the worker goes on working) rather than a stall. */
    public boolean partitioned() {
        return partition != Partition.NONE;
    }

    /** This fault moved to {@code at}, its point, pause and partition kept. */
    public Fault at(double at) {
        return new Fault(worker, at, point, pauseMs, partition);
    }

    /** This fault as a crash: the same worker, moment and point, no pause. */
    public Fault asCrash() {
        return new Fault(worker, afterMs, point, 0);
    }

    /** What a partition from the gateway does to the writes the worker sends it meanwhile. */
    public enum Partition {
        /** No partition: a crash, or a pause. */
        NONE,
        /** They arrive when the partition heals (a TCP connection that outlives it). */
        DELAYED,
        /** They are lost. */
        LOST
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
