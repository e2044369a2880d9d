package lumen.assertj;

import lumen.conform.ConformReport;
import lumen.conform.Conformance;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a {@code lumen conform} run ({@link Conformance#run}). A failed assertion's
 * message is the kit's conformance report: the verdict, the shrunk schedule confirmed in a fresh
 * process, the first divergent event with its property, expected and actual values, and coverage.
 */
public final class ConformanceReportAssert extends AbstractAssert<ConformanceReportAssert, Conformance.Report> {

    ConformanceReportAssert(Conformance.Report actual) {
        super(actual, ConformanceReportAssert.class);
    }

    /** Every schedule passed: behaviours of the spec, the kit's outputs, every run finished. */
    public ConformanceReportAssert passed() {
        isNotNull();
        if (!actual.passed()) {
            failWithMessage("expected the system to pass conformance, but:%n%s", ConformReport.text(actual));
        }
        return this;
    }

    /** As {@link #passed()}, and every feature of the coverage table was exercised at least once. */
    public ConformanceReportAssert passedWithCoverage() {
        passed();
        if (!actual.passedWithCoverage()) {
            failWithMessage("expected every feature to be exercised, but some were not:%n%s", ConformReport.text(actual));
        }
        return this;
    }

    /**
     * The run failed, caught as {@code label}: a property ID ("S7", "A1", "L3"), "INCOMPLETE", or
     * "step" (a step that is not one of the spec's).
     */
    public ConformanceReportAssert failedWith(String label) {
        isNotNull();
        if (actual.passed() || actual.failure == null) {
            failWithMessage("expected the system to fail conformance with %s, but it passed %d schedules", label, actual.schedules);
        } else if (!label.equals(actual.failure.reported().caughtAs())) {
            failWithMessage("expected the system to fail conformance with %s, but it failed with %s:%n%s", label,
                    actual.failure.reported().caughtAs(), ConformReport.text(actual));
        }
        return this;
    }
}
