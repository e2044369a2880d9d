package lumen.core;

/**
 * A request's phase, as in the spec's {@code Phases}. The spec's Prefill is one atomic step
 * (QUEUED to DECODE); runtimes that time it report PREFILL for its duration.
 */
public enum RequestPhase {
    /** Not yet arrived at the gateway. */
    NEW,
    /** In a worker's run queue, waiting for its prefill (or for the catch-up after a restore). */
    QUEUED,
    /** Its prefill is running (runtime only; atomic in the spec). */
    PREFILL,
    /** Decoding on its server. */
    DECODE,
    /** Its server failed; waiting to be routed (RESTORE or REPREFILL). */
    INTERRUPTED,
    /** Complete, with its whole output delivered. */
    DONE
}
