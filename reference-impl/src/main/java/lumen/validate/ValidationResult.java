package lumen.validate;

import java.util.List;
import java.util.Map;
import lumen.core.Config;
import lumen.trace.TraceFormatException;

/**
 * What the validator concluded about one trace.
 *
 * @param version    the trace contract version the header declares (0 when unreadable)
 * @param events     events replayed (up to and including the divergent one)
 * @param byType     events replayed, per event type
 * @param done       requests that completed
 * @param open       requests still running at the end (a finite trace may end mid-run)
 * @param unfinished for INCOMPLETE: each request not DONE and each worker not UP at the end
 * @param reference  whose reference outputs judged the tokens (S7): the kit's, a file's, or the
 *                   system's self-reported {@code Arrive.ref}
 * @param notes      what this trace could not show, so the verdict does not cover it
 */
public record ValidationResult(String source, Verdict verdict, Config config, int version, long events,
                               Map<String, Long> byType, long done, long open, Divergence divergence,
                               TraceFormatException error, List<String> unfinished, String reference, List<String> notes) {
    /** This result with another verdict and notes (a search over several orders says what it did). */
    public ValidationResult with(Verdict v, List<String> otherNotes) {
        return new ValidationResult(source, v, config, version, events, byType, done, open, divergence, error, unfinished, reference,
                List.copyOf(otherNotes));
    }
}
