package lumen.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import lumen.core.Config;
import lumen.trace.SyntheticTrace;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * The validator end to end from a file, against the floor the format allows: a bare Jackson
 * streaming parse of the same file (every token read, numbers decoded, strings materialised, no
 * checks), the two alternated round after round on one thread, each timed in that thread's CPU
 * time (what another tenant of a shared machine takes from it does not count). Run in a JVM of
 * its own with a small heap ({@code lumen bench validator} starts one), it also reports the most
 * heap live while it validates ({@link #liveHeap}): the validator's state, which must follow the
 * requests in flight, not the requests seen.
 */
public final class ValidatorFromFile {
    private ValidatorFromFile() {}

    /** A synthetic trace: workers, requests in flight per worker, output length, and its length in events. */
    public record Shape(int workers, int perWorker, int outLen, long events) {}

    /** Writes a v2 synthetic trace of this shape to {@code file}; returns its events and requests. */
    public static long[] write(Path file, Shape sh) throws IOException {
        Config c = new Config("lumen", sh.workers(), 1, 1, 64, 32, 1 << 20, 16, 4);
        long[] requests = {0};
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
             TraceWriter w = new TraceWriter(out, c)) {
            long n = SyntheticTrace.generate(new SyntheticTrace.Spec(c, sh.events(), sh.perWorker(), 64, sh.outLen(), 50_000, 1), e -> {
                requests[0] += e instanceof lumen.core.Event.Arrive ? 1 : 0;
                w.write(e);
            });
            return new long[] {n, requests[0]};
        }
    }

    private static final JsonFactory JSON = new JsonFactory();

    /** The floor: Jackson's streaming parse of the whole file and nothing else. */
    static long parse(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return bareParse(in);
        }
    }

    /**
     * The same bytes through Jackson's streaming parser and nothing else (every token read, numbers
     * decoded, strings materialised, no checks): the floor the trace format allows.
     */
    public static long bareParse(InputStream in) throws IOException {
        long sum = 0;
        try (JsonParser p = JSON.createParser(in)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.VALUE_NUMBER_INT) {
                    sum += p.getLongValue();
                } else if (t == JsonToken.VALUE_STRING) {
                    sum += p.getText().length();
                } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
                    sum += (long) p.getDoubleValue();
                }
            }
        }
        return sum;
    }

    /**
     * The most heap live while validating the file once more (not timed): a thread runs a full
     * collection every {@code everyMs} and reads the heap in use after it, which is then the
     * validator's own state and the little allocated since.
     */
    static long liveHeap(Path file, long everyMs) throws IOException {
        AtomicLong most = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                System.gc();
                most.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(everyMs);
                } catch (InterruptedException ex) {
                    return;
                }
            }
        }, "live-heap");
        sampler.setDaemon(true);
        sampler.start();
        try (InputStream in = Files.newInputStream(file)) {
            Validator.validate(in, file.toString());
        } finally {
            done.set(true);
        }
        try {
            sampler.join();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return most.get();
    }

    /**
     * Usage: {@code FILE ROUNDS}. Prints one line: events, the median events/s of the parse and of
     * the validation over the rounds after the first (a warm-up), the verdict, and the most heap
     * live while validating (MB).
     */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        double[] parse = new double[rounds];
        double[] validate = new double[rounds];
        long events = 0;
        Verdict verdict = null;
        for (int i = 0; i < rounds; i++) {
            long t0 = tm.getCurrentThreadCpuTime();
            parse(file);
            long t1 = tm.getCurrentThreadCpuTime();
            long t2 = tm.getCurrentThreadCpuTime();
            ValidationResult r;
            try (InputStream in = Files.newInputStream(file)) {
                r = Validator.validate(in, file.toString());
            }
            long t3 = tm.getCurrentThreadCpuTime();
            parse[i] = (t1 - t0) / 1e9;
            validate[i] = (t3 - t2) / 1e9;
            events = r.events();
            verdict = r.verdict();
        }
        long live = liveHeap(file, 100);
        System.out.printf(Locale.ROOT, "%d %.0f %.0f %s %.1f%n", events, events / median(parse), events / median(validate), verdict,
                live / 1048576.0);
    }

    /** The median of the rounds after the first. */
    static double median(double[] xs) {
        double[] s = Arrays.copyOfRange(xs, Math.min(1, xs.length - 1), xs.length);
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
