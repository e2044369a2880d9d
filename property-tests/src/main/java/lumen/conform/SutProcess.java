package lumen.conform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A system under test, running as a child process that speaks the adapter protocol on its
 * standard input and output. Every exchange is bounded: in time (a step timeout), in reply size
 * (events and bytes per step, and the length of one line), so a system that hangs, crashes,
 * prints garbage or floods its output gets a verdict and the kit never hangs. Standard error is
 * drained into a small ring, for the report.
 */
public final class SutProcess implements AutoCloseable {

    /** What went wrong with the system itself, as opposed to a property it broke. */
    public enum Problem { TIMEOUT, CRASHED, FLOOD, GARBAGE, PROTOCOL }

    /** The system misbehaved at one step: no verdict on properties is possible past it. */
    public static final class Misbehaviour extends Exception {
        public final Problem problem;

        public Misbehaviour(Problem problem, String detail) {
            super(detail);
            this.problem = problem;
        }
    }

    /** One step's reply: the trace lines it printed, then its ack's time and idle flag, and the ack line itself. */
    public record Reply(List<String> events, double t, boolean idle, String ack) {}

    /** The bounds of one exchange. */
    public record Limits(Duration step, int maxEvents, long maxBytes, int maxLine) {
        public static Limits defaults() {
            return new Limits(Duration.ofSeconds(10), 200_000, 64L << 20, 1 << 20);
        }
    }

    private static final Object EOF = new Object();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String command;
    private final Process process;
    private final OutputStream stdin;
    private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(4096);
    private final StringBuilder stderr = new StringBuilder();
    private final Limits limits;
    private final Thread errPump;

    private SutProcess(String command, Process p, Limits limits) {
        this.command = command;
        this.process = p;
        this.stdin = p.getOutputStream();
        this.limits = limits;
        Thread out = new Thread(() -> pumpLines(p.getInputStream()), "sut-stdout");
        out.setDaemon(true);
        out.start();
        errPump = new Thread(() -> pumpStderr(p.getErrorStream()), "sut-stderr");
        errPump.setDaemon(true);
        errPump.start();
    }

    /** Starts {@code command} with {@code /bin/sh -c}. */
    public static SutProcess start(String command, Limits limits) throws IOException {
        Process p = new ProcessBuilder("/bin/sh", "-c", command).start();
        return new SutProcess(command, p, limits);
    }

    public String command() {
        return command;
    }

    /**
     * Sends one command line and collects the reply up to its ack. A misbehaviour's message says
     * what went wrong, not where: the caller knows which step of its run this was.
     */
    public Reply exchange(String cmd) throws Misbehaviour {
        try {
            stdin.write((cmd + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException ex) {
            throw crashed("it stopped reading its input (" + ex.getMessage() + ")");
        }
        List<String> events = new ArrayList<>();
        long bytes = 0;
        // A hang is silence: the step time counts from the last line, so a system that is still
        // talking when it runs out is judged on what it says (a flood is a flood however fast the
        // machine reads), and a reply that trickles on is cut at ten step times.
        long start = System.nanoTime();
        long cap = start + 10 * limits.step().toNanos();
        long deadline = start + limits.step().toNanos();
        while (true) {
            Object x;
            try {
                x = lines.poll(Math.max(0, Math.min(deadline, cap) - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new Misbehaviour(Problem.TIMEOUT, "interrupted");
            }
            if (x == null) {
                throw new Misbehaviour(Problem.TIMEOUT, System.nanoTime() >= cap && !events.isEmpty()
                        ? "no ack within " + 10 * limits.step().toMillis() + " ms, " + events.size() + " events into its reply"
                        : "no ack, and no line, within " + limits.step().toMillis() + " ms" + (events.isEmpty() ? "" : " of its last event"));
            }
            deadline = System.nanoTime() + limits.step().toNanos();
            if (x == EOF) {
                throw crashed("its output ended before the ack");
            }
            if (x instanceof Problem) {
                throw new Misbehaviour(Problem.FLOOD, "a reply line longer than " + limits.maxLine() + " bytes");
            }
            String line = (String) x;
            if (line.isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (IOException ex) {
                n = null;
            }
            if (n == null || !n.isObject() || !n.path("type").isTextual()) {
                throw new Misbehaviour(Problem.GARBAGE, "reply line " + (events.size() + 1) + " is not a JSON object with a type: " + abbreviate(line));
            }
            if (n.get("type").asText().equals("ack")) {
                if (n.has("error")) {
                    throw new Misbehaviour(Problem.PROTOCOL, "the system refused the command: " + n.get("error").asText());
                }
                return new Reply(events, n.path("t").asDouble(Double.NaN), n.path("idle").asBoolean(false), line);
            }
            events.add(line);
            bytes += line.length();
            if (events.size() > limits.maxEvents() || bytes > limits.maxBytes()) {
                throw new Misbehaviour(Problem.FLOOD, "more than " + limits.maxEvents() + " events or " + (limits.maxBytes() >> 20)
                        + " MiB in one reply");
            }
        }
    }

    private Misbehaviour crashed(String what) {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                errPump.join(1000);   // what it wrote last, before it died
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        String code = process.isAlive() ? "still running" : "exit status " + process.exitValue();
        String err = stderrTail();
        return new Misbehaviour(Problem.CRASHED, what + "; " + code + (err.isEmpty() ? "" : "; its last standard error:\n" + err.indent(4)));
    }

    public String stderrTail() {
        synchronized (stderr) {
            return stderr.toString().strip();
        }
    }

    private void pumpLines(InputStream in) {
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines.put(cur.toString(StandardCharsets.UTF_8));
                        cur.reset();
                    } else if (cur.size() >= limits.maxLine()) {
                        lines.put(Problem.FLOOD);
                        return;
                    } else {
                        cur.write(buf[i]);
                    }
                }
            }
            lines.put(EOF);
        } catch (IOException ex) {
            lines.offer(EOF);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void pumpStderr(InputStream in) {
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (stderr) {
                    stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (stderr.length() > 4000) {
                        stderr.delete(0, stderr.length() - 4000);
                    }
                }
            }
        } catch (IOException ex) {
            // the process is gone; what it wrote is kept
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }

    /** Asks the system to quit, then stops it and everything it started. */
    @Override
    public void close() {
        try {
            stdin.write("{\"cmd\":\"quit\"}\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            stdin.close();
        } catch (IOException ex) {
            // already gone
        }
        try {
            if (!process.waitFor(1, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        lines.clear();   // a flooding system's pump may be blocked on a full queue
    }
}
