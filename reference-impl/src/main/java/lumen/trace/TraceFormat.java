package lumen.trace;

/**
 * The trace contract: JSON Lines, a header line then one event per line. Version 2 (what the kit
 * writes) adds the KV content of every event that writes or copies KV ({@code pages}); version 1
 * traces are still read, and the verdict says what they cannot show. The schema is
 * {@code lumen/trace/trace-v2.schema.json} on the classpath; docs/trace-format.md shows an
 * example of every event and states the limits below.
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

    // ---- limits (docs/trace-format.md, "Numbers and limits") ----------------------------------

    /**
     * The largest integer a trace may hold, 2^31-1: TLC's integers are signed 32-bit, and the
     * Java mirror and TLC must accept the same traces.
     */
    public static final int MAX_INT = Integer.MAX_VALUE;
    /** The most workers a header may declare. */
    public static final int MAX_WORKERS = 4096;
    /** The longest draft ({@code k}) a header may declare. */
    public static final int MAX_K = 64;
    /** The largest physical page ({@code pageTokens}) a header may declare. */
    public static final int MAX_PAGE_TOKENS = 65_536;
    /**
     * The longest context a request may have, promptLen + the length of its reference output:
     * 2^24 positions, above any model's context window today. The mirror streams and restores
     * position by position, so a context of 2^31 positions took seconds per event.
     */
    public static final int MAX_CONTEXT = 1 << 24;
    /** How deep JSON may nest on one line, counting the line's own object (an {@code ext} object included). */
    public static final int MAX_NESTING = 64;
    /** The longest number literal, in characters. */
    public static final int MAX_NUMBER_LENGTH = 1000;
    /** The longest string value, in characters. */
    public static final int MAX_STRING_LENGTH = 20_000_000;
    /** The longest field name, in characters. */
    public static final int MAX_NAME_LENGTH = 50_000;

    private TraceFormat() {}
}
