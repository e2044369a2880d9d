package lumen.validate;

import java.util.Map;
import lumen.core.Config;
import lumen.trace.TraceFormatException;

/**
 * What the validator concluded about one trace.
 *
 * @param events   events replayed (up to and including the divergent one)
 * @param byType   events replayed, per event type
 * @param done     requests that completed
 * @param open     requests still running at the end (a finite trace may end mid-run)
 */
public record ValidationResult(String source, Verdict verdict, Config config, long events,
                               Map<String, Long> byType, long done, long open, Divergence divergence,
                               TraceFormatException error) {}
