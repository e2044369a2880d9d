package lumen.trace;

/**
 * Trace contract v1: JSON Lines, a header line then one event per line. The schema is
 * {@code lumen/trace/trace-v1.schema.json} on the classpath; docs/trace-format.md shows an
 * example of every event.
 */
public final class TraceFormat {
    /** The header's {@code format} value. */
    public static final String FORMAT = "lumen-trace";
    /** The version this kit reads and writes. */
    public static final int VERSION = 1;
    /** The schema resource. */
    public static final String SCHEMA_RESOURCE = "/lumen/trace/trace-v1.schema.json";

    private TraceFormat() {}
}
