package lumen.trace;

/** A trace that is not valid JSON Lines or breaks the trace schema, located by line. */
public final class TraceFormatException extends Exception {
    private final String source;
    private final long line;
    private final String reason;

    public TraceFormatException(String source, long line, String message) {
        super(source + ":" + line + ": " + message);
        this.source = source;
        this.line = line;
        this.reason = message;
    }

    /** What is wrong, without where ("source:line: "). */
    public String reason() {
        return reason;
    }

    /** The same error, placed at {@code line} of {@code source} (a line read from a copy, named where it was written). */
    public TraceFormatException at(String source, long line) {
        return new TraceFormatException(source, line, reason);
    }

    public String source() {
        return source;
    }

    public long line() {
        return line;
    }
}
