package lumen.trace;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * A trace's bytes on their way to the JSON parser, checked for the rules of trace-format.md that
 * the parser does not enforce: a trace is UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF) without a byte-order mark (Jackson skips a UTF-8 BOM, and reads UTF-16
 * or UTF-32 when it detects them), lines end with LF or CRLF (Jackson also counts a lone CR as a
 * line end), and there is no NUL byte.
 *
 * <p>The bytes before the first fault pass through, so the parser reads, and reports on, every
 * line before it; the next read throws {@link Refused} with the fault's line. One pass, no copy.
 */
final class TraceBytes extends FilterInputStream {

    /** A fault in the bytes, on a line counted from 1. */
    static final class Refused extends IOException {
        final long line;

        Refused(long line, String message) {
            super(message);
            this.line = line;
        }
    }

    private long line = 1;
    private long offset;
    private int head;
    /** Continuation bytes the current UTF-8 character still needs, and the range of the next one. */
    private int need;
    private int lo = 0x80;
    private int hi = 0xBF;
    /** The last byte was a CR: the next must be LF. */
    private boolean cr;
    private Refused fault;

    TraceBytes(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (fault != null) {
            throw fault;
        }
        if (len == 0) {
            return 0;
        }
        int n = in.read(b, off, len);
        if (n < 0) {
            if (cr) {
                throw fault = loneCr();
            }
            if (need > 0) {
                throw fault = new Refused(line, "not UTF-8: the file ends inside a multi-byte character");
            }
            return -1;
        }
        int end = off + n;
        for (int i = off; i < end; i++) {
            if (need == 0 && !cr) {
                // printable ASCII, the common case: eight bytes at a time while none is a control
                // byte (below 0x20) or past ASCII (a high bit), then byte by byte
                while (i + 8 <= end && plain((long) LONGS.get(b, i))) {
                    i += 8;
                }
                while (i < end && b[i] >= 0x20) {
                    i++;
                }
                if (i == end) {
                    break;
                }
            }
            String bad = check(b[i] & 0xFF, offset + i - off);
            if (bad != null) {
                fault = new Refused(line, bad);
                if (i == off) {
                    throw fault;
                }
                offset += i - off;
                return i - off;
            }
        }
        offset += n;
        return n;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH = 0x8080808080808080L;

    /** Whether all eight bytes of x are within 0x20..0x7F: no high bit, and no byte below 0x20 (x - 0x20 borrows). */
    private static boolean plain(long x) {
        return ((x | (x - 0x20 * ONES)) & HIGH) == 0;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] buf = new byte[(int) Math.min(n, 8192)];
        int r = read(buf, 0, buf.length);
        return Math.max(r, 0);
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private Refused loneCr() {
        return new Refused(line, "a carriage return (CR) not followed by a line feed: lines end with LF or CRLF");
    }

    /** What is wrong with byte {@code c} at {@code at}, or null; advances the state. */
    private String check(int c, long at) {
        if (at < 3) {
            head = head << 8 | c;
            if (at == 2 && head == 0xEFBBBF) {
                return "the file starts with a UTF-8 byte-order mark (BOM); a trace is UTF-8 without a BOM";
            }
        }
        if (need > 0) {
            if (c < lo || c > hi) {
                return String.format(Locale.ROOT, "not UTF-8: byte 0x%02X where a continuation byte is due", c);
            }
            need--;
            lo = 0x80;
            hi = 0xBF;
            return null;
        }
        if (cr) {
            if (c != '\n') {
                return loneCr().getMessage();
            }
            cr = false;
        }
        if (c < 0x80) {
            if (c == '\n') {
                line++;
            } else if (c == '\r') {
                cr = true;
            } else if (c == 0) {
                return "a NUL byte; a trace is UTF-8 JSON text (is this file UTF-16 or UTF-32?)";
            }
            return null;
        }
        if (at == 0 && (c == 0xFE || c == 0xFF)) {
            return "the file starts with a UTF-16 or UTF-32 byte-order mark; a trace is UTF-8 without a BOM";
        }
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong form
            hi = c == 0xED ? 0x9F : 0xBF; // no surrogate
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            lo = c == 0xF0 ? 0x90 : 0x80; // no overlong form
            hi = c == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
        } else {
            return String.format(Locale.ROOT, "not UTF-8: byte 0x%02X cannot start a character", c);
        }
        return null;
    }
}
