package lumen.tracecheck;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import lumen.spec.tlc.TlcResult;
import lumen.spec.tlc.TlcRunner;
import lumen.trace.TraceFormatException;
import lumen.validate.Verdict;

/**
 * Trace validation by TLC, the authoritative path: generates the trace's module
 * ({@link TraceModule}), runs TLC on it with one worker in a fresh JVM, and reads the furthest
 * event any behaviour of the spec matched.
 */
public final class TlcTraceCheck {
    private static final Pattern MATCHED = Pattern.compile("<<\"lumen-trace-matched\", (\\d+)>>");

    /**
     * TLC's verdict on one trace.
     *
     * @param events   events in the log TLC checked (those before a syntax error, if any)
     * @param matched  the furthest event some behaviour of the spec matched
     * @param line     the trace line of the first event no behaviour matches, -1 when accepted
     * @param event    that event, as the TLA+ record TLC saw, or null
     * @param error    the syntax error that makes the trace MALFORMED, or null
     */
    public record Result(String source, Verdict verdict, int events, int matched, long line, String event,
                         TraceFormatException error, Duration tlcTime) {}

    /** TLC could not give a verdict: it failed, or stopped at the time limit. */
    public static final class ToolFailure extends Exception {
        public ToolFailure(String message) {
            super(message);
        }
    }

    /**
     * A seeded bug in the TLC path, to show that the differential check catches one: a module
     * that EXTENDS TraceLumen with replacement definitions, and the config lines that bind them
     * (such as {@code UseHolder <- MutUseHolder}).
     */
    public record Mutation(String module, String text, List<String> overrides) {}

    private final Path specDir;
    private final Path workDir;
    private final Duration timeout;
    private final TlcRunner runner = TlcRunner.fromCurrentJvm();
    private final Mutation mutation;

    /**
     * @param specDir the folder with {@code TraceLumen.tla} and the modules it extends
     * @param workDir where each check gets its own folder (module, config, TLC's output)
     */
    public TlcTraceCheck(Path specDir, Path workDir, Duration timeout) {
        this(specDir, workDir, timeout, null);
    }

    public TlcTraceCheck(Path specDir, Path workDir, Duration timeout, Mutation mutation) {
        this.specDir = specDir;
        this.workDir = workDir;
        this.timeout = timeout;
        this.mutation = mutation;
    }

    public Result check(InputStream trace, String source, String name)
            throws IOException, TraceModule.Unsupported, ToolFailure {
        String module = "Trace_" + name.replaceAll("[^A-Za-z0-9]", "_");
        TraceModule.Generated g = mutation == null ? TraceModule.generate(trace, source, module)
                : TraceModule.generate(trace, source, module, mutation.module(), mutation.overrides());
        if (g.tla() == null) {
            return new Result(source, Verdict.MALFORMED, 0, 0, -1, null, g.malformed(), Duration.ZERO);
        }
        Path dir = workDir.resolve(module);
        Files.createDirectories(dir);
        Path tla = dir.resolve(module + ".tla");
        Path cfg = dir.resolve(module + ".cfg");
        Files.writeString(tla, g.tla(), StandardCharsets.UTF_8);
        Files.writeString(cfg, g.cfg(), StandardCharsets.UTF_8);
        if (mutation != null) {
            Files.writeString(dir.resolve(mutation.module() + ".tla"), mutation.text(), StandardCharsets.UTF_8);
        }
        TlcResult r = runner.run(new TlcRunner.Request(tla, cfg, specDir, dir, 1, timeout, null, null), m -> { });
        if (r.status() != TlcResult.Status.PASS) {
            throw new ToolFailure("TLC could not check " + source + " (" + r.status()
                    + (r.errorText() == null ? "" : ": " + r.errorText()) + "); its output is in " + dir.resolve("tlc.out"));
        }
        int matched = -1;
        for (String line : Files.readAllLines(dir.resolve("tlc.out"), StandardCharsets.UTF_8)) {
            Matcher m = MATCHED.matcher(line);
            if (m.find()) {
                matched = Math.max(matched, Integer.parseInt(m.group(1)));
            }
        }
        if (matched < 0) {
            throw new ToolFailure("TLC printed no match report for " + source + "; its output is in " + dir.resolve("tlc.out"));
        }
        if (matched < g.events()) {
            String ev = recordAt(g.tla(), matched);
            return new Result(source, Verdict.REJECTED, g.events(), matched, g.lines()[matched], ev, null, r.duration());
        }
        Verdict v = g.malformed() == null ? Verdict.ACCEPTED : Verdict.MALFORMED;
        return new Result(source, v, g.events(), matched, -1, null, g.malformed(), r.duration());
    }

    /** The i-th (0-based) record of the generated log. */
    private static String recordAt(String tla, int i) {
        List<String> lines = tla.lines().toList();
        int start = lines.indexOf("TraceLogV == <<") + 1;
        String rec = lines.get(start + i).strip();
        return rec.endsWith(",") ? rec.substring(0, rec.length() - 1) : rec;
    }
}
