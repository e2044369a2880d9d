package lumen.trace;

import java.nio.charset.StandardCharsets;

/**
 * Trace input quoted back in an error message or a report (a field name, a string value, a
 * number's text, an event) is cut to at most {@link #MAX_BYTES} bytes of UTF-8, with a marker
 * saying how long it was: {@code ... (10485760 bytes)}. A report about a 10 MB line stays short.
 */
public final class Echo {
    /** The most bytes of input one quote shows. */
    public static final int MAX_BYTES = 200;

    private Echo() {}

    /** {@code s} itself when it is at most {@link #MAX_BYTES} bytes of UTF-8, else its start and the marker; null stays null. */
    public static String cut(String s) {
        if (s == null || s.length() <= MAX_BYTES / 3) {
            return s;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length <= MAX_BYTES) {
            return s;
        }
        int end = MAX_BYTES;
        while (end > 0 && (b[end] & 0xC0) == 0x80) {
            end--; // not inside a multi-byte character
        }
        return new String(b, 0, end, StandardCharsets.UTF_8) + "... (" + b.length + " bytes)";
    }
}
