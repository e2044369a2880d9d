package lumen.trace;

/** A trace that is not valid JSON Lines or breaks the trace schema, located by line. */
public final class TraceFormatException extends Exception {
    private final String source;
    private final long line;

    public TraceFormatException(String source, long line, String message) {
        super(source + ":" + line + ": " + message);
        this.source = source;
        this.line = line;
    }

    public String source() {
        return source;
    }

    public long line() {
        return line;
    }
}
