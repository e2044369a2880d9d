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
 * process's name, then one event per line with its Lamport clock ({@code lc}, {@link Clock}). Each
 * line goes to the file in one write, unbuffered, so a process killed at any moment leaves whole
 * lines: the ones it logged before it died.
 */
final class ProcessLog implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FileChannel out;
    private final Clock clock;

    /** Opens {@code file} (replacing it) and writes {@code header} (the run's trace header) with {@code "process"}. */
    ProcessLog(Path file, String header, String process, Clock clock) throws IOException {
        this.clock = clock;
        ObjectNode h = (ObjectNode) JSON.readTree(header);
        h.put("process", process);
        this.out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        line(h.toString());
    }

    /**
     * Logs one event, its line as {@link lumen.trace.TraceWriter} writes it (an object, no newline),
     * with the next tick of this process's clock as its last field.
     */
    synchronized void write(String event) throws IOException {
        line(event.substring(0, event.length() - 1) + ",\"lc\":" + clock.tick() + "}");
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
