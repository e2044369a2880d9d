package lumen.fuzz;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Mutant;
import lumen.trace.Echo;
import lumen.validate.ValidationReport;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Runs mutated traces ({@link ReaderMutator}) through {@link Validator#validate} in-process, one
 * at a time on a worker thread with a time limit, and counts what must never happen: a stack
 * trace (any exception instead of a verdict), a hang (past the time limit), a malformed input
 * that came back ACCEPTED or REJECTED (REJECTED means "read fine, not a spec behaviour", also
 * wrong for malformed input), a tolerated input refused, a malformed input's error not on the
 * line the mutation broke or not located at all, and a report that quotes more than it should.
 */
public final class ReaderFuzz {
    /** The report text or an error message longer than this quotes too much of the input. */
    public static final int MAX_MESSAGE_BYTES = 1_000;
    public static final int MAX_REPORT_BYTES = 16_384;
    private static final String SOURCE = "fuzz.jsonl";

    /** What is checked: the validator by default; a stand-in in the harness's own tests. */
    public interface Checker {
        ValidationResult check(InputStream in, String source) throws IOException;
    }

    public record Options(long count, long seed, Duration limit) {
        public static Options of(long count, long seed) {
            return new Options(count, seed, Duration.ofSeconds(10));
        }
    }

    /** The counts of one rule (or of all). */
    public static final class Counts {
        public final String rule;
        public final Expect expect;
        public long inputs;
        public long accepted;
        public long rejected;
        public long malformed;
        public long stackTraces;
        public long hangs;
        public long malformedAccepted;
        public long toleratedRefused;
        public long mislocated;
        public long longEchoes;
        /** The first bad outcome, in words, or null. */
        public String example;

        Counts(String rule, Expect expect) {
            this.rule = rule;
            this.expect = expect;
        }

        public long bad() {
            return stackTraces + hangs + malformedAccepted + toleratedRefused + mislocated + longEchoes;
        }

        void add(Counts o) {
            inputs += o.inputs;
            accepted += o.accepted;
            rejected += o.rejected;
            malformed += o.malformed;
            stackTraces += o.stackTraces;
            hangs += o.hangs;
            malformedAccepted += o.malformedAccepted;
            toleratedRefused += o.toleratedRefused;
            mislocated += o.mislocated;
            longEchoes += o.longEchoes;
        }
    }

    /** The outcome of a run: counts per rule and in all, peak heap, wall time. */
    public record Report(List<Counts> rules, Counts total, long peakHeapBytes, long maxHeapBytes, double seconds, int bases) {
        public boolean clean() {
            return total.bad() == 0;
        }

        /** The table {@code lumen bench fuzz-reader} prints. */
        public String text() {
            StringBuilder b = new StringBuilder();
            String row = "%-24s %-9s %7s %8s %8s %9s %7s %6s %10s %9s %10s %6s%n";
            b.append(String.format(Locale.ROOT, row, "rule", "expect", "inputs", "ACCEPTED", "REJECTED", "MALFORMED",
                    "stack", "hangs", "malf.acc.", "tol.ref.", "mislocated", "echo"));
            for (Counts c : rules) {
                b.append(line(row, c));
            }
            b.append(line(row, total));
            b.append(String.format(Locale.ROOT, "%n%,d inputs from %d base traces in %.1f s; peak heap %.0f MB (of %.0f MB max)%n",
                    total.inputs, bases, seconds, peakHeapBytes / 1e6, maxHeapBytes / 1e6));
            b.append(String.format(Locale.ROOT, "stack traces: %d, hangs: %d, malformed inputs accepted: %d, tolerated inputs refused: %d,"
                    + " errors not on the mutated line: %d, echoes too long: %d%n", total.stackTraces, total.hangs, total.malformedAccepted,
                    total.toleratedRefused, total.mislocated, total.longEchoes));
            for (Counts c : rules) {
                if (c.example != null) {
                    b.append("  ").append(c.rule).append(": ").append(c.example).append('\n');
                }
            }
            return b.toString();
        }

        private static String line(String row, Counts c) {
            return String.format(Locale.ROOT, row, c.rule, c.expect == null ? "" : c.expect.name(), c.inputs, c.accepted, c.rejected,
                    c.malformed, c.stackTraces, c.hangs, c.malformedAccepted, c.toleratedRefused, c.mislocated, c.longEchoes);
        }
    }

    private ReaderFuzz() {}

    public static Report run(List<ReaderMutator.Base> bases, Options o, LongConsumer progress) {
        return run(bases, o, Validator::validate, progress);
    }

    public static Report run(List<ReaderMutator.Base> bases, Options o, Checker checker, LongConsumer progress) {
        ReaderMutator gen = new ReaderMutator(bases, o.seed());
        Map<String, Counts> byRule = new LinkedHashMap<>();
        for (ReaderMutator.Rule r : gen.rules()) {
            byRule.put(r.name(), new Counts(r.name(), r.expect()));
        }
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            pool.resetPeakUsage();
        }
        long t0 = System.nanoTime();
        ExecutorService worker = newWorker();
        try {
            for (long i = 0; i < o.count(); i++) {
                Mutant m = gen.mutant(i);
                Counts c = byRule.get(m.rule());
                c.inputs++;
                Cancellable in = new Cancellable(m.bytes());
                Future<ValidationResult> f = worker.submit(() -> checker.check(in, SOURCE));
                ValidationResult r = null;
                try {
                    r = f.get(o.limit().toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException ex) {
                    c.hangs++;
                    note(c, m, "no verdict within " + o.limit().toSeconds() + " s");
                    in.cancelled = true;
                    f.cancel(true);
                    worker.shutdownNow();
                    worker = newWorker(); // the stuck thread is a daemon; it does not hold the next input up
                } catch (ExecutionException ex) {
                    c.stackTraces++;
                    Throwable t = ex.getCause();
                    StackTraceElement[] st = t.getStackTrace();
                    note(c, m, t.getClass().getName() + ": " + Echo.cut(String.valueOf(t.getMessage())) + (st.length > 0 ? " at " + st[0] : ""));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
                if (r != null) {
                    judge(c, m, r);
                }
                if (progress != null) {
                    progress.accept(i + 1);
                }
            }
        } finally {
            worker.shutdownNow();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        Counts total = new Counts("total", null);
        for (Counts c : byRule.values()) {
            total.add(c);
        }
        return new Report(List.copyOf(byRule.values()), total, peak, Runtime.getRuntime().maxMemory(), secs, bases.size());
    }

    private static void judge(Counts c, Mutant m, ValidationResult r) {
        switch (r.verdict()) {
            case ACCEPTED -> c.accepted++;
            case REJECTED, UNDECIDED -> c.rejected++;
            case MALFORMED -> c.malformed++;
        }
        if (m.expect() == Expect.MALFORMED && r.verdict() != Verdict.MALFORMED) {
            c.malformedAccepted++;
            note(c, m, "came back " + r.verdict() + (r.divergence() != null ? " at line " + r.divergence().line() + ": " + r.divergence().finding() : ""));
        }
        if (m.expect() == Expect.ACCEPTED && r.verdict() != Verdict.ACCEPTED) {
            c.toleratedRefused++;
            note(c, m, "came back " + r.verdict() + ": " + (r.error() != null ? r.error().getMessage()
                    : r.divergence() != null ? "line " + r.divergence().line() + ": " + r.divergence().finding() : ""));
        }
        String text;
        String json;
        try {
            text = ValidationReport.text(r);
            json = new ObjectMapper().writeValueAsString(ValidationReport.json(r));
        } catch (IOException | RuntimeException ex) {
            c.stackTraces++;
            note(c, m, "the report failed: " + ex);
            return;
        }
        if (r.verdict() == Verdict.MALFORMED) {
            String msg = r.error().getMessage();
            String at = SOURCE + ":" + r.error().line() + ": ";
            if (r.error().line() < 1 || !msg.startsWith(at) || m.expect() == Expect.MALFORMED && m.line() > 0 && r.error().line() != m.line()) {
                c.mislocated++;
                note(c, m, "expected an error at line " + m.line() + ", got: " + Echo.cut(msg));
            }
            if (msg.getBytes(StandardCharsets.UTF_8).length > MAX_MESSAGE_BYTES) {
                c.longEchoes++;
                note(c, m, "a message of " + msg.length() + " chars: " + Echo.cut(msg));
            }
        }
        if (text.length() > MAX_REPORT_BYTES || json.length() > 2 * MAX_REPORT_BYTES) {
            c.longEchoes++;
            note(c, m, "a report of " + text.length() + " chars (JSON " + json.length() + ")");
        }
    }

    private static void note(Counts c, Mutant m, String what) {
        if (c.example == null) {
            c.example = m.what() + " in " + m.base() + ": " + what;
        }
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-reader");
            t.setDaemon(true);
            return t;
        });
    }

    /** The input, which stops a validation that ran past its time at its next read. */
    private static final class Cancellable extends ByteArrayInputStream {
        volatile boolean cancelled;

        Cancellable(byte[] b) {
            super(b);
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            if (cancelled) {
                throw new IllegalStateException("cancelled: past the time limit");
            }
            return super.read(b, off, len);
        }
    }
}
