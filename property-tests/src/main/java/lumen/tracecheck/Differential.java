package lumen.tracecheck;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Locale;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * The differential check of the two validators on one trace: the Java mirror and TLC must give
 * the same verdict and, when they reject a trace or find it malformed, name the same line.
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

        public boolean agree() {
            return mirror.verdict() == tlc.verdict() && mirrorLine() == tlcLine();
        }

        /** A disagreement, in words: which checker said what, where. */
        public String describe() {
            return String.format(Locale.ROOT, "%s: mirror %s%s, TLC %s%s", name, mirror.verdict(),
                    mirrorLine() < 0 ? "" : " at line " + mirrorLine() + " ("
                            + (mirror.divergence() != null ? mirror.divergence().finding() : mirror.error().getMessage()) + ")",
                    tlc.verdict(), tlcLine() < 0 ? "" : " at line " + tlcLine() + (tlc.event() == null ? "" : " (no spec step matches " + tlc.event() + ")"));
        }
    }

    private Differential() {}

    public static Outcome compare(byte[] trace, String name, String id, TlcTraceCheck tlc)
            throws IOException, TraceModule.Unsupported, TlcTraceCheck.ToolFailure {
        ValidationResult m = Validator.validate(new ByteArrayInputStream(trace), name);
        return new Outcome(name, m, tlc.check(new ByteArrayInputStream(trace), name, id));
    }
}
