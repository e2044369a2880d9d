package lumen.assertj;

import lumen.core.PropertyId;
import lumen.validate.Divergence;
import lumen.validate.ValidationReport;
import lumen.validate.ValidationResult;
import lumen.validate.Verdict;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a {@link Trace}. A failed assertion's message is the validator's located report:
 * the first event that diverges (its line), the property it breaks, the expected and actual
 * values, and the spec state there.
 */
public final class TraceAssert extends AbstractAssert<TraceAssert, Trace> {

    TraceAssert(Trace actual) {
        super(actual, TraceAssert.class);
    }

    /** Every event is a step of the spec and every property holds (the run may be unfinished). */
    public TraceAssert isBehaviourOfSpec() {
        isNotNull();
        ValidationResult r = actual.result(false);
        if (r.verdict() != Verdict.ACCEPTED && r.verdict() != Verdict.INCOMPLETE) {
            failWithMessage("expected %s to be a behaviour of the spec in which every property holds, but it is %s:%n%s",
                    actual.name(), r.verdict(), ValidationReport.text(r));
        }
        return this;
    }

    /**
     * As {@link #isBehaviourOfSpec()}, and the run is finished: every request that arrived is DONE
     * with its whole output and every failed worker is UP again.
     */
    public TraceAssert isComplete() {
        isNotNull();
        ValidationResult r = actual.result(true);
        if (r.verdict() != Verdict.ACCEPTED) {
            failWithMessage("expected %s to be a finished behaviour of the spec, but it is %s:%n%s",
                    actual.name(), r.verdict(), ValidationReport.text(r));
        }
        return this;
    }

    /**
     * Property {@code id} holds over the whole trace. The validator stops at the first divergence,
     * so a trace that breaks another property first has not been judged on {@code id} past that
     * event, and this assertion fails too, saying so.
     */
    public TraceAssert satisfies(PropertyId id) {
        isNotNull();
        ValidationResult r = actual.result(false);
        switch (r.verdict()) {
            case ACCEPTED, INCOMPLETE -> { }
            case MALFORMED -> failWithMessage("expected %s to satisfy %s, but it cannot be read:%n%s", actual.name(), id.label(),
                    ValidationReport.text(r));
            case REJECTED -> {
                Divergence d = r.divergence();
                if (d.finding().property() == id) {
                    failWithMessage("expected %s to satisfy %s, but it breaks it at line %d:%n%s", actual.name(), id.label(), d.line(),
                            ValidationReport.text(r));
                }
                failWithMessage("expected %s to satisfy %s, but it was judged on it only up to line %d, where %s breaks:%n%s",
                        actual.name(), id.label(), d.line(), d.finding().label(), ValidationReport.text(r));
            }
            default -> throw new IllegalStateException(r.verdict().name());
        }
        return this;
    }

    /** The trace is rejected, and the first thing wrong with it is property {@code id}. */
    public TraceAssert isRejectedWith(PropertyId id) {
        isNotNull();
        ValidationResult r = actual.result(false);
        if (r.verdict() != Verdict.REJECTED || r.divergence().finding().property() != id) {
            failWithMessage("expected %s to be rejected with %s, but it is %s:%n%s", actual.name(), id.label(), r.verdict(),
                    ValidationReport.text(r));
        }
        return this;
    }

    /** The outputs were judged against a reference the kit owns, not the one the trace reports. */
    public TraceAssert isJudgedAgainstTheKitsReference() {
        isNotNull();
        ValidationResult r = actual.result(false);
        if (lumen.validate.Validator.SELF_REPORTED.equals(r.reference())) {
            failWithMessage("expected %s to be judged against a reference the kit owns, but it was judged against %s;"
                    + " give one with Trace.withReference", actual.name(), r.reference());
        }
        return this;
    }
}
