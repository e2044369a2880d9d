package lumen.live;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process's own log (docs/trace-format.md, Per-process logs): the run's trace header with the
 * process's name, then one event per line with its Lamport clock ({@code lc}, {@link Clock}), or,
 * when the header declares {@code skew_ms}, with its wall-clock time ({@code t}, ms since the epoch). Each
 * line goes to the file in one write, unbuffered, so a process killed at any moment leaves whole
 * lines: the ones it logged before it died.
 */
final class ProcessLog implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FileChannel out;
    private final Clock clock;
    /** Whether the header declares {@code skew_ms}: each event then carries this process's wall clock ({@code t}) instead of {@code lc}. */
    private final boolean wall;
    /** The last wall-clock time written, which the next never goes below. */
    private double lastT = Double.NEGATIVE_INFINITY;

    /** Opens {@code file} (replacing it) and writes {@code header} (the run's trace header) with {@code "process"}. */
    ProcessLog(Path file, String header, String process, Clock clock) throws IOException {
        this.clock = clock;
        ObjectNode h = (ObjectNode) JSON.readTree(header);
        this.wall = h.has("skew_ms");
        h.put("process", process);
        this.out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        line(h.toString());
    }

    /**
     * Logs one event, its line as {@link lumen.trace.TraceWriter} writes it (an object, no newline),
     * with the next tick of this process's clock as its last field.
     */
    synchronized void write(String event) throws IOException {
        if (wall) {
            // this process's own clock, ms since the epoch to the microsecond, never going back along the log
            java.time.Instant now = java.time.Instant.now();
            double t = Math.max(lastT, Math.round((now.getEpochSecond() * 1000.0 + now.getNano() / 1e6) * 1000) / 1000.0);
            lastT = t;
            String plain = lumen.trace.WrittenTrace.without(event, "t");
            line(plain.substring(0, plain.length() - 1) + ",\"t\":" + t + "}");
            return;
        }
        line(event.substring(0, event.length() - 1) + ",\"lc\":" + clock.tick() + "}");
    }

    /** Whether this log carries wall-clock time only (its header declares skew_ms). */
    boolean wallClock() {
        return wall;
    }

    private void line(String json) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
