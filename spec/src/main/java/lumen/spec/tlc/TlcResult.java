package lumen.spec.tlc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one TLC run found, typed.
 *
 * @param status            how the run ended
 * @param violatedProperty  the invariant or property TLC reported violated (for temporal
 *                          properties TLC does not say which; then the single checked one, if any)
 * @param statesGenerated   states generated, -1 if TLC did not say
 * @param distinctStates    distinct states found, -1 if TLC did not say
 * @param depth             depth of the state graph search, -1 if TLC did not say
 * @param duration          wall time of the TLC process
 * @param counterexample    the behaviour that violates the property, empty otherwise
 * @param loopBackTo        for a liveness counterexample, the state the lasso returns to (1-based)
 * @param errorText         TLC's own words for an error that is not a violation
 */
public record TlcResult(
        Status status,
        String violatedProperty,
        long statesGenerated,
        long distinctStates,
        int depth,
        Duration duration,
        List<TraceState> counterexample,
        int loopBackTo,
        String errorText) {

    public enum Status {
        /** Every checked property holds on every reachable state. */
        PASS,
        /** An invariant or action property is violated. */
        SAFETY_VIOLATION,
        /** A temporal (liveness) property is violated. */
        LIVENESS_VIOLATION,
        /** A reachable state has no successor and deadlock checking is on. */
        DEADLOCK,
        /** TLC could not check: a parse error, a bad config, an evaluation error, a crash. */
        ERROR,
        /** The run exceeded its time limit and was stopped. */
        TIMEOUT
    }

    public boolean isViolation() {
        return status == Status.SAFETY_VIOLATION || status == Status.LIVENESS_VIOLATION
                || status == Status.DEADLOCK;
    }

    /** The property ID (such as "S4" or "L1") of the violated property, when it carries one. */
    public Optional<String> violatedPropertyId() {
        return PropertyIds.idOf(violatedProperty);
    }

    /** Distinct states per minute, the rate TLC itself reports. */
    public long distinctStatesPerMinute() {
        long millis = Math.max(1, duration.toMillis());
        return distinctStates < 0 ? -1 : distinctStates * 60_000 / millis;
    }
}
