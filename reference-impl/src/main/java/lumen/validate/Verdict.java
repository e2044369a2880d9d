package lumen.validate;

/** The outcome of validating one trace. */
public enum Verdict {
    /** Every event is a step of the spec and no property breaks. */
    ACCEPTED,
    /** Some event is not a step of the spec or breaks a property: see the divergence. */
    REJECTED,
    /**
     * Every event is a step of the spec and no property breaks, but the run is not finished: some
     * request is not DONE or some failed worker is not UP at the end (with {@code --complete}, and
     * always in conformance).
     */
    INCOMPLETE,
    /**
     * The kit could not decide: a partial trace's search for hidden steps was cut short by its
     * declared bound and no candidate kept takes an event (the divergence is what the kept ones
     * say), or the trace declares an observation the kit cannot search yet. Not a pass.
     */
    UNDECIDED,
    /** The trace could not be read: not JSON Lines, a schema violation, an unknown worker or request. */
    MALFORMED
}
