package lumen.tracecheck;

import java.io.IOException;
import java.util.Locale;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * The differential check of the two validators on one trace: the Java mirror and TLC must give
 * the same verdict and, when they reject a trace or find it malformed, name the same line and,
 * for a rejection, the same property (or both "not a step of the spec").
 */
public final class Differential {

    /** Both verdicts on one trace. */
    public record Outcome(String name, ValidationResult mirror, TlcTraceCheck.Result tlc) {
        public long mirrorLine() {
            return mirror.divergence() != null ? mirror.divergence().line() : mirror.error() != null ? mirror.error().line() : -1;
        }

        public long tlcLine() {
            return tlc.verdict() == Verdict.MALFORMED ? tlc.error().line() : tlc.line();
        }

        public lumen.core.PropertyId mirrorProperty() {
            return mirror.divergence() == null ? null : mirror.divergence().finding().property();
        }

        public boolean agree() {
            return mirror.verdict() == tlc.verdict() && mirrorLine() == tlcLine()
                    && (mirror.verdict() != Verdict.REJECTED || mirrorProperty() == tlc.property());
        }

        /** A disagreement, in words: which checker said what, where. */
        public String describe() {
            return String.format(Locale.ROOT, "%s: mirror %s%s, TLC %s%s", name, mirror.verdict(),
                    mirrorLine() < 0 ? "" : " at line " + mirrorLine() + " ("
                            + (mirror.divergence() != null ? mirror.divergence().finding() : mirror.error().getMessage()) + ")",
                    tlc.verdict(), tlcLine() < 0 ? "" : " at line " + tlcLine() + (tlc.event() == null ? ""
                            : " (" + (tlc.property() == null ? "not a step of the spec" : tlc.property().label()) + ": " + tlc.event() + ")"));
        }
    }

    private Differential() {}

    public static Outcome compare(byte[] trace, String name, String id, TlcTraceCheck tlc)
            throws IOException, TraceModule.Unsupported, TlcTraceCheck.ToolFailure {
        return compare(trace, name, id, tlc, Validator.Options.defaults());
    }

    public static Outcome compare(byte[] trace, String name, String id, TlcTraceCheck tlc, Validator.Options opt)
            throws IOException, TraceModule.Unsupported, TlcTraceCheck.ToolFailure {
        // every form a trace may take (begin and end, partial), judged by both as written
        ValidationResult m = Validator.validate(trace, name, opt);
        try {
            return new Outcome(name, m, tlc.checkWritten(trace, name, id, opt));
        } catch (lumen.trace.TraceFormatException ex) {
            // a declaration neither checker can read: TLC gets no module, so it is malformed there too
            return new Outcome(name, m, new TlcTraceCheck.Result(name, Verdict.MALFORMED, 0, 0, -1, null, null, 0, ex, java.time.Duration.ZERO));
        }
    }
}
