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
import java.util.ArrayList;
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
import lumen.core.KitTokens;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.trace.Echo;
import lumen.trace.TraceFormatException;
import lumen.validate.ProcessLogs;
import lumen.validate.ValidationReport;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Runs mutated inputs ({@link Generator}: traces of each kind, per-process logs, client histories)
 * through the kit's readers in-process, one at a time on a worker thread with a time limit, and
 * counts what must never happen: a stack trace (any exception instead of a verdict), a hang (past
 * the time limit), a malformed input that came back ACCEPTED or REJECTED (REJECTED means "read
 * fine, not a spec behaviour", also wrong for malformed input), a tolerated input refused, a
 * malformed input's error not on the line (or in the file) the mutation broke or not located at
 * all, and a report that quotes more than it should. The counts are kept per rule and per input
 * kind, and in all.
 */
public final class ReaderFuzz {
    /** The report text or an error message longer than this quotes too much of the input. */
    public static final int MAX_MESSAGE_BYTES = 1_000;
    public static final int MAX_REPORT_BYTES = 16_384;

    /**
     * What a reader concluded of one input: its verdict, and for MALFORMED the error's file, line
     * and message; {@code report} and {@code json} are the report it prints (for their length).
     */
    public record Outcome(Verdict verdict, String source, long line, String message, String report, String json) {
        /** A trace's verdict, its error placed where the validator placed it. */
        public static Outcome of(ValidationResult r) throws IOException {
            String text = ValidationReport.text(r);
            String json = new ObjectMapper().writeValueAsString(ValidationReport.json(r));
            String detail = r.error() != null ? r.error().getMessage()
                    : r.divergence() != null ? "line " + r.divergence().line() + ": " + r.divergence().finding() : "";
            return r.error() != null ? new Outcome(r.verdict(), r.error().source(), r.error().line(), detail, text, json)
                    : new Outcome(r.verdict(), null, r.divergence() != null ? r.divergence().line() : 0, detail, text, json);
        }

        /** A located error, which the reader threw rather than returned. */
        public static Outcome malformed(TraceFormatException e) {
            return new Outcome(Verdict.MALFORMED, e.source(), e.line(), e.getMessage(), e.getMessage(), "");
        }
    }

    /** What is checked: the kit's readers by default ({@link #READERS}); a stand-in in the harness's own tests. */
    public interface Checker {
        /** The outcome of one input of {@code kind}: its files, by name, as streams. */
        Outcome check(InputKind kind, List<String> names, List<InputStream> files) throws IOException;
    }

    /**
     * The kit's readers, as its commands call them: {@code lumen validate} for a trace of any
     * kind, {@code lumen validate --processes} for per-process logs, and {@code lumen history}
     * (against the kit's token model) for a client history.
     */
    public static final Checker READERS = ReaderFuzz::read;

    private static Outcome read(InputKind kind, List<String> names, List<InputStream> files) throws IOException {
        switch (kind) {
            case PROCESS_LOGS -> {
                List<byte[]> bytes = new ArrayList<>();
                for (InputStream in : files) {
                    bytes.add(in.readAllBytes());
                }
                try {
                    return Outcome.of(ProcessLogs.validate(bytes, names, Validator.Options.defaults()).result());
                } catch (TraceFormatException ex) {
                    return Outcome.malformed(ex);
                }
            }
            case HISTORY -> {
                try {
                    History h = History.read(files.get(0), names.get(0));
                    HistoryCheck.Result r = HistoryCheck.check(h, HistoryCheck.Reference.kit(KitTokens.VOCAB), null, false);
                    String what = r.finding() == null ? "" : "line " + r.line() + ": " + r.finding();
                    return new Outcome(r.verdict(), r.verdict() == Verdict.MALFORMED ? names.get(0) : null, r.line(),
                            r.verdict() == Verdict.MALFORMED ? names.get(0) + ":" + r.line() + ": " + r.finding().message() : what, what, "");
                } catch (TraceFormatException ex) {
                    return Outcome.malformed(ex);
                }
            }
            default -> {
                return Outcome.of(Validator.validate(files.get(0), names.get(0)));
            }
        }
    }

    public record Options(long count, long seed, Duration limit) {
        public static Options of(long count, long seed) {
            return new Options(count, seed, Duration.ofSeconds(10));
        }
    }

    /** The counts of one rule of one kind (or of a kind, or of all). */
    public static final class Counts {
        public final InputKind kind;
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

        Counts(InputKind kind, String rule, Expect expect) {
            this.kind = kind;
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

    /**
     * The outcome of a run: counts per rule (grouped by kind, in the kinds' order), per kind and in
     * all, the base inputs of each kind, peak heap, wall time.
     */
    public record Report(List<Counts> rules, List<Counts> kinds, Counts total, long peakHeapBytes, long maxHeapBytes, double seconds,
                         Map<InputKind, Integer> bases) {
        public boolean clean() {
            return total.bad() == 0;
        }

        /** The counts of one kind (zero counts when it was not run). */
        public Counts of(InputKind k) {
            return kinds.stream().filter(c -> c.kind == k).findFirst().orElse(new Counts(k, k.label(), null));
        }

        /** The table {@code lumen bench fuzz-reader} prints: a block of rules for each kind, the kind's counts, then the total. */
        public String text() {
            StringBuilder b = new StringBuilder();
            String row = "%-26s %-9s %7s %8s %8s %9s %7s %6s %10s %9s %10s %6s%n";
            b.append(String.format(Locale.ROOT, row, "rule", "expect", "inputs", "ACCEPTED", "REJECTED", "MALFORMED",
                    "stack", "hangs", "malf.acc.", "tol.ref.", "mislocated", "echo"));
            for (Counts k : kinds) {
                b.append(String.format(Locale.ROOT, "%n%s: %s, from %d base inputs%n", k.kind.label(), k.kind.words(), bases.getOrDefault(k.kind, 0)));
                for (Counts c : rules) {
                    if (c.kind == k.kind) {
                        b.append(line(row, c, c.rule));
                    }
                }
                b.append(line(row, k, k.kind.label() + " total"));
            }
            b.append('\n').append(line(row, total, "total"));
            b.append(String.format(Locale.ROOT, "%n%,d inputs from %d base inputs in %.1f s; peak heap %.0f MB (of %.0f MB max)%n",
                    total.inputs, bases.values().stream().mapToInt(Integer::intValue).sum(), seconds, peakHeapBytes / 1e6, maxHeapBytes / 1e6));
            for (Counts k : kinds) {
                b.append(String.format(Locale.ROOT, "%-12s %,7d inputs: stack traces %d, hangs %d, malformed accepted %d, tolerated refused %d,"
                        + " mislocated %d, echoes too long %d%n", k.kind.label() + ":", k.inputs, k.stackTraces, k.hangs, k.malformedAccepted,
                        k.toleratedRefused, k.mislocated, k.longEchoes));
            }
            b.append(String.format(Locale.ROOT, "stack traces: %d, hangs: %d, malformed inputs accepted: %d, tolerated inputs refused: %d,"
                    + " errors not on the mutated line: %d, echoes too long: %d%n", total.stackTraces, total.hangs, total.malformedAccepted,
                    total.toleratedRefused, total.mislocated, total.longEchoes));
            for (Counts c : rules) {
                if (c.example != null) {
                    b.append("  ").append(c.kind.label()).append(' ').append(c.rule).append(": ").append(c.example).append('\n');
                }
            }
            return b.toString();
        }

        private static String line(String row, Counts c, String name) {
            return String.format(Locale.ROOT, row, name, c.expect == null ? "" : c.expect.name(), c.inputs, c.accepted, c.rejected,
                    c.malformed, c.stackTraces, c.hangs, c.malformedAccepted, c.toleratedRefused, c.mislocated, c.longEchoes);
        }
    }

    private ReaderFuzz() {}

    /**
     * {@code o.count()} mutants in all, the generators taking turns (mutant i is generator
     * {@code i mod n}'s mutant {@code i / n}), each through {@code checker}.
     */
    public static Report run(List<? extends Generator> gens, Options o, Checker checker, LongConsumer progress) {
        if (gens.isEmpty()) {
            throw new IllegalArgumentException("no generator");
        }
        Map<String, Counts> byRule = new LinkedHashMap<>();
        Map<InputKind, Integer> bases = new LinkedHashMap<>();
        for (Generator g : gens) {
            for (Generator.Label r : g.labels()) {
                byRule.put(g.kind().label() + " " + r.name(), new Counts(g.kind(), r.name(), r.expect()));
            }
            bases.merge(g.kind(), g.bases(), Integer::sum);
        }
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            pool.resetPeakUsage();
        }
        long t0 = System.nanoTime();
        ExecutorService worker = newWorker();
        try {
            for (long i = 0; i < o.count(); i++) {
                Generator g = gens.get((int) (i % gens.size()));
                Mutant m = g.mutant(i / gens.size());
                Counts c = byRule.get(m.kind().label() + " " + m.rule());
                c.inputs++;
                List<Cancellable> ins = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (ReaderMutator.Input f : m.inputs()) {
                    ins.add(new Cancellable(f.bytes()));
                    names.add(f.name());
                }
                Future<Outcome> f = worker.submit(() -> checker.check(m.kind(), names, List.copyOf(ins)));
                Outcome r = null;
                try {
                    r = f.get(o.limit().toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException ex) {
                    c.hangs++;
                    note(c, m, "no verdict within " + o.limit().toMillis() + " ms");
                    ins.forEach(in -> in.cancelled = true);
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
        Map<InputKind, Counts> byKind = new LinkedHashMap<>();
        Counts total = new Counts(null, "total", null);
        for (Counts c : byRule.values()) {
            byKind.computeIfAbsent(c.kind, k -> new Counts(k, k.label(), null)).add(c);
            total.add(c);
        }
        List<Counts> rules = new ArrayList<>(byRule.values());
        rules.sort(java.util.Comparator.comparingInt(c -> c.kind.ordinal()));
        List<Counts> kinds = new ArrayList<>(byKind.values());
        kinds.sort(java.util.Comparator.comparingInt(c -> c.kind.ordinal()));
        return new Report(List.copyOf(rules), List.copyOf(kinds), total, peak, Runtime.getRuntime().maxMemory(), secs, bases);
    }

    private static void judge(Counts c, Mutant m, Outcome r) {
        switch (r.verdict()) {
            case ACCEPTED -> c.accepted++;
            case REJECTED, UNDECIDED, INCOMPLETE -> c.rejected++;
            case MALFORMED -> c.malformed++;
        }
        if (m.expect() == Expect.MALFORMED && r.verdict() != Verdict.MALFORMED) {
            c.malformedAccepted++;
            note(c, m, "came back " + r.verdict() + (r.message().isEmpty() ? "" : " at " + Echo.cut(r.message())));
        }
        if (m.expect() == Expect.ACCEPTED && r.verdict() != Verdict.ACCEPTED) {
            c.toleratedRefused++;
            note(c, m, "came back " + r.verdict() + ": " + Echo.cut(r.message()));
        }
        if (r.verdict() == Verdict.MALFORMED) {
            String msg = String.valueOf(r.message());
            boolean located = r.line() >= 1 && r.source() != null && msg.startsWith(r.source() + ":" + r.line() + ": ");
            boolean there = m.expect() != Expect.MALFORMED || m.line() <= 0 || r.line() == m.line() && m.file().equals(r.source());
            if (!located || !there) {
                c.mislocated++;
                note(c, m, "expected an error at " + m.file() + ":" + m.line() + ", got: " + Echo.cut(msg));
            }
            if (msg.getBytes(StandardCharsets.UTF_8).length > MAX_MESSAGE_BYTES) {
                c.longEchoes++;
                note(c, m, "a message of " + msg.length() + " chars: " + Echo.cut(msg));
            }
        }
        if (r.report().length() > MAX_REPORT_BYTES || r.json().length() > 2 * MAX_REPORT_BYTES) {
            c.longEchoes++;
            note(c, m, "a report of " + r.report().length() + " chars (JSON " + r.json().length() + ")");
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
