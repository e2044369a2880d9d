package lumen.validate;

/** The outcome of validating one trace. */
public enum Verdict {
    /** Every event is a step of the spec and no property breaks. */
    ACCEPTED,
    /** Some event is not a step of the spec or breaks a property: see the divergence. */
    REJECTED,
    /** The trace could not be read: not JSON Lines, a schema violation, an unknown worker or request. */
    MALFORMED
}
