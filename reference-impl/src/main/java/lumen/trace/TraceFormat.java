package lumen.trace;

/**
 * The trace contract: JSON Lines, a header line then one event per line. Version 2 (what the kit
 * writes) adds the KV content of every event that writes or copies KV ({@code pages}); version 1
 * traces are still read, and the verdict says what they cannot show. The schema is
 * {@code lumen/trace/trace-v2.schema.json} on the classpath; docs/trace-format.md shows an
 * example of every event.
 */
public final class TraceFormat {
    /** The header's {@code format} value. */
    public static final String FORMAT = "lumen-trace";
    /** The version this kit writes. */
    public static final int VERSION = 2;
    /** The oldest version this kit reads. */
    public static final int OLDEST = 1;
    /** The schema resource of the current version. */
    public static final String SCHEMA_RESOURCE = "/lumen/trace/trace-v2.schema.json";

    private TraceFormat() {}
}
