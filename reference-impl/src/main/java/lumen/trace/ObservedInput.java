package lumen.trace;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A partial trace ({@link Observation}) as the trace the validator replays, streamed: the header
 * without its {@code observes}, each batch Decode line as its Decode lines and each size report as
 * its StreamPage lines, every other line as it is. It reads one line at a time, so memory is bounded
 * by the longest line, not by the trace; the lines it writes keep where they came from for as long
 * as a reader behind it can still name them ({@link #writtenLineOf}).
 *
 * <p>A line it cannot rewrite (a composed line that is not JSON, or breaks the composed line's
 * rules) is refused as the byte checks refuse a line ({@link TraceBytes.Refused}): the lines before
 * it are read and judged first, then the next read throws, at that line.
 */
public final class ObservedInput extends InputStream {
    /** How many of the last lines written keep their origin: far more than a parser reads ahead. */
    private static final int REMEMBERED = 1 << 16;

    private final InputStream in;
    private final String source;
    private final Observation observation;
    private final boolean keepAll;

    private final byte[] buf = new byte[1 << 16];
    private int bufPos;
    private int bufLen;
    private boolean eof;
    private byte[] line = new byte[512];
    private int lineLen;

    private byte[] out = new byte[0];
    private int outPos;
    private TraceBytes.Refused fault;

    /** Lines read from the trace as written, and lines written for the reader. */
    private long read;
    private long written;
    /** For each of the last lines read (a ring): the first written line it became, and its own number. */
    private long[] firstWritten;
    private long[] origin;
    private int ringStart;
    private int ringSize;

    /**
     * Reads the header and what it declares. {@code keepAll}: keep every line's origin (for a
     * checker that names lines after reading the whole trace), else the last {@value #REMEMBERED}.
     */
    public ObservedInput(InputStream in, String source, boolean keepAll) throws IOException, TraceFormatException {
        this.in = in;
        this.source = source;
        this.keepAll = keepAll;
        int ring = keepAll ? 1024 : REMEMBERED;
        this.firstWritten = new long[ring];
        this.origin = new long[ring];
        String h = null;
        while (h == null && nextLine()) {
            String l = new String(line, 0, lineLen, StandardCharsets.UTF_8);
            if (l.isBlank()) {
                if (!lastLine()) {
                    emit(l, read);
                }
                continue;
            }
            h = l;
        }
        if (h == null) {
            throw new TraceFormatException(source, 1, "empty trace: the first line must be the header");
        }
        ObjectNode header = WrittenTrace.object(h, source, read);
        this.observation = Observation.declaration(header.remove("observes"), source, read);
        emit(header.toString(), read);
    }

    public Observation observation() {
        return observation;
    }

    /** What the rewrite did, for a verdict. */
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        if (observation.batchDecode()) {
            notes.add("Decode per batch iteration: each batch line judged as its requests' Decode steps in the listed order");
        }
        if (observation.streamSizes()) {
            notes.add("checkpoint sizes without content: each size report judged as the StreamPage steps of its entries in the"
                    + " listed order; the copies' bytes were not observed, so S6 judged their sizes only, and a RESTORE's bytes were"
                    + " held to what the request's server wrote (S9)");
        }
        return notes;
    }

    /** Line n of what this stream wrote, as a line of the trace as written. */
    public long writtenLineOf(long n) {
        if (ringSize == 0 || n < firstWritten[ringStart]) {
            return n;
        }
        // the last line read whose first written line is at most n
        int lo = 0;
        int hi = ringSize - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (firstWritten[(ringStart + mid) % firstWritten.length] <= n) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return origin[(ringStart + lo) % origin.length];
    }

    /** Every line's origin, in order, when kept whole ({@code keepAll}): what a checker replaying the whole trace maps by. */
    public List<Long> origins() {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < ringSize; i++) {
            int at = (ringStart + i) % origin.length;
            long next = i + 1 < ringSize ? firstWritten[(at + 1) % firstWritten.length] : written + 1;
            for (long w = firstWritten[at]; w < next; w++) {
                out.add(origin[at]);
            }
        }
        return out;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (outPos == out.length) {
            if (fault != null) {
                throw fault;
            }
            if (!refill()) {
                return -1;
            }
        }
        int n = Math.min(len, out.length - outPos);
        System.arraycopy(out, outPos, b, off, n);
        outPos += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** The next line's lines, written for the reader; false at the end of the trace. */
    private boolean refill() throws IOException {
        out = new byte[0];
        outPos = 0;
        if (!nextLine()) {
            return false;
        }
        try {
            rewrite();
        } catch (TraceFormatException ex) {
            // the lines before this one are read first; this line is refused where it stands
            fault = new TraceBytes.Refused(written + 1, ex.getMessage().replaceFirst("^" + java.util.regex.Pattern.quote(source)
                    + ":[0-9]+: ", ""));
            remember(written + 1, read);
        }
        return true;
    }

    private void rewrite() throws TraceFormatException {
        if (lineLen == 0 || isBlank()) {
            if (!lastLine()) {
                emitRaw();
            }
            return;
        }
        Observation o = observation;
        boolean sizes = o.streamSizes() && contains(SIZES_KEY);
        boolean batch = o.batchDecode() && contains(BATCH_KEY);
        if (sizes || batch) {
            String l = new String(line, 0, lineLen, StandardCharsets.UTF_8);
            ObjectNode node = WrittenTrace.object(l, source, read);
            Observation.Composed c = sizes && node.has("sizes") && "StreamPage".equals(node.path("type").asText()) ? Observation.SIZES_LINE
                    : batch && node.has("batch") && "Decode".equals(node.path("type").asText()) ? Observation.BATCH_LINE : null;
            if (c != null) {
                StringBuilder b = new StringBuilder();
                int lines = Observation.expand(c, node, b, source, read);
                remember(written + 1, read);
                written += lines;
                out = b.toString().getBytes(StandardCharsets.UTF_8);
                return;
            }
        }
        emitRaw();
    }

    private static final byte[] SIZES_KEY = "\"sizes\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BATCH_KEY = "\"batch\"".getBytes(StandardCharsets.US_ASCII);

    private boolean contains(byte[] key) {
        outer:
        for (int i = 0; i + key.length <= lineLen; i++) {
            for (int j = 0; j < key.length; j++) {
                if (line[i + j] != key[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private boolean isBlank() {
        for (int i = 0; i < lineLen; i++) {
            byte c = line[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    /** Whether the line just read is the trace's last (it ends the file without a line break). */
    private boolean lastLine() {
        return eof && bufPos >= bufLen;
    }

    /** The line just read, as it is, with its line break. */
    private void emitRaw() {
        remember(written + 1, read);
        written++;
        byte[] o = new byte[lineLen + 1];
        System.arraycopy(line, 0, o, 0, lineLen);
        o[lineLen] = '\n';
        out = o;
    }

    /** Text written for the reader at construction (the header, blank lines before it). */
    private void emit(String text, long from) {
        remember(written + 1, from);
        written++;
        byte[] add = (text + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] o = java.util.Arrays.copyOf(out, out.length + add.length);
        System.arraycopy(add, 0, o, out.length, add.length);
        out = o;
    }

    private void remember(long firstLine, long from) {
        if (ringSize == firstWritten.length) {
            if (keepAll) {
                grow();
            } else {
                ringStart = (ringStart + 1) % firstWritten.length;
                ringSize--;
            }
        }
        int at = (ringStart + ringSize) % firstWritten.length;
        firstWritten[at] = firstLine;
        origin[at] = from;
        ringSize++;
    }

    /** Keeping every origin: the ring becomes twice as long, in order. */
    private void grow() {
        int n = firstWritten.length;
        long[] f = new long[n * 2];
        long[] o = new long[n * 2];
        for (int i = 0; i < ringSize; i++) {
            f[i] = firstWritten[(ringStart + i) % n];
            o[i] = origin[(ringStart + i) % n];
        }
        firstWritten = f;
        origin = o;
        ringStart = 0;
    }

    /** Reads the next line (without its LF) into {@link #line}; false at the end. */
    private boolean nextLine() throws IOException {
        lineLen = 0;
        boolean any = false;
        while (true) {
            if (bufPos == bufLen) {
                if (eof) {
                    return any;
                }
                bufLen = in.read(buf, 0, buf.length);
                bufPos = 0;
                if (bufLen <= 0) {
                    bufLen = 0;
                    eof = true;
                    if (any) {
                        read++;
                    }
                    return any;
                }
            }
            any = true;
            int start = bufPos;
            while (bufPos < bufLen && buf[bufPos] != '\n') {
                bufPos++;
            }
            append(start, bufPos - start);
            if (bufPos < bufLen) {
                bufPos++; // the LF
                read++;
                return true;
            }
        }
    }

    private void append(int from, int n) {
        if (lineLen + n > line.length) {
            line = java.util.Arrays.copyOf(line, Math.max(line.length * 2, lineLen + n));
        }
        System.arraycopy(buf, from, line, lineLen, n);
        lineLen += n;
    }
}
