package lumen.runtime;

/**
 * A failure to inject: worker {@code worker} crashes at the first moment at or after
 * {@code afterMs} when it is doing what {@code point} names (halfway through that work).
 */
public record Fault(int worker, double afterMs, Point point) {

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
