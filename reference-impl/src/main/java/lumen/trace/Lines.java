package lumen.trace;

import java.io.IOException;
import java.io.InputStream;

/**
 * A trace's bytes, buffered a line at a time for {@link TraceReader}: the reader scans a line of
 * the common shape in place ({@link #buf} from {@link #pos}), and every other line goes to the
 * JSON parser, which reads it through this stream ({@link #read(byte[], int, int)}). The parser is
 * handed at most one line per read, so its buffer never holds a line the scan takes; the lines it
 * skipped are the parser's only difference from reading the whole file, which
 * {@link #served} lets the reader correct in the line numbers it reports.
 */
final class Lines extends InputStream {
    /** The most a line may hold before it goes to the parser unscanned, streamed as the parser reads it. */
    static final int MAX_SCANNED = 1 << 20;

    private final InputStream in;
    byte[] buf = new byte[1 << 16];
    /** The first byte not yet read, by the scan or the parser; the start of a line whenever the scan looks. */
    int pos;
    /** The end of the bytes in {@link #buf}. */
    int lim;
    private boolean eof;
    /** The line, counted from 1, that starts at {@link #pos} (or that {@link #pos} is in while the parser reads it). */
    long line = 1;
    /** Line breaks handed to the parser so far: its line count is one more once it has read past them all. */
    long served;
    /** Bytes handed to the parser so far. */
    long bytes;

    Lines(InputStream in) {
        this.in = in;
    }

    /**
     * Reads more bytes after {@link #lim}, keeping the line from {@link #pos} whole (the bytes
     * before it are dropped, and the buffer grows up to {@link #MAX_SCANNED} when the line fills
     * it). False at the end of the input, or when the line is longer than that.
     */
    boolean more() throws IOException {
        if (eof) {
            return false;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        if (lim == buf.length) {
            if (buf.length >= MAX_SCANNED) {
                return false;
            }
            buf = java.util.Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            eof = true;
            return false;
        }
        lim += n;
        return true;
    }

    /** The parser's read: the bytes from {@link #pos} up to and including the next line break, at most {@code len}. */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == lim) {
            pos = lim = 0;
            if (!more()) {
                return -1;
            }
        }
        int stop = Math.min(lim, pos + len);
        int n = stop - pos;
        for (int i = pos; i < stop; i++) {
            if (buf[i] == '\n') {
                n = i + 1 - pos;
                line++;
                served++;
                break;
            }
        }
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        bytes += n;
        return n;
    }

    /**
     * Whether the parser, having read {@code consumed} bytes of what it was handed, has only the
     * line break of its last line left (LF or CR LF): the scan may then read the next line. Anything
     * else after the object on that line (whitespace, or the rest of a line the parser was not
     * handed whole) is the parser's to read first.
     */
    boolean onlyLineBreakLeft(long consumed) {
        long rest = bytes - consumed;
        return rest == 1 && pos >= 1 && buf[pos - 1] == '\n' || rest == 2 && pos >= 2 && buf[pos - 2] == '\r' && buf[pos - 1] == '\n';
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
