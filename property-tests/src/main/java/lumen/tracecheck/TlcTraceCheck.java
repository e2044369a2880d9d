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
import lumen.core.PropertyId;
import lumen.trace.TraceFormatException;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Trace validation by TLC, the authoritative path: generates the trace's module
 * ({@link TraceModule}), runs TLC on it with one worker in a fresh JVM, and reads the verdict the
 * module prints: the first event whose reported step breaks a property (or is not a step of the
 * spec), with what it breaks, or the end of the log with the number of unfinished requests and
 * workers.
 */
public final class TlcTraceCheck {
    private static final Pattern VIOLATION = Pattern.compile("<<\"lumen-trace-violation\", (\\d+), \"([A-Za-z0-9]+)\">>");
    private static final Pattern END = Pattern.compile("<<\"lumen-trace-end\", (\\d+)>>");

    /**
     * TLC's verdict on one trace.
     *
     * @param events     events in the log TLC checked (those before a syntax error, if any)
     * @param matched    events applied before the first wrong one (all of them when none is)
     * @param line       the trace line of the first wrong event, -1 when none
     * @param event      that event, as the TLA+ record TLC saw, or null
     * @param property   what it breaks: a property ID ("S6"), or null for a step that is not one of the spec's
     * @param unfinished at the end of an accepted log: requests not DONE plus workers not UP
     * @param error      the syntax error that makes the trace MALFORMED, or null
     */
    public record Result(String source, Verdict verdict, int events, int matched, long line, String event, PropertyId property,
                         long unfinished, TraceFormatException error, Duration tlcTime) {}

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
        return check(trace, source, name, Validator.Options.defaults());
    }

    /**
     * A trace as written: begin and end forms judged as the atomic trace their ends make, a partial
     * trace's declaration read and its hidden steps searched for, as the mirror does; the line a
     * result names is the line of the trace as written.
     */
    public Result checkWritten(byte[] bytes, String source, String name, Validator.Options opt)
            throws IOException, TraceModule.Unsupported, ToolFailure, lumen.trace.TraceFormatException {
        lumen.trace.WrittenTrace w = lumen.trace.WrittenTrace.of(bytes, source);
        Result r = check(new java.io.ByteArrayInputStream(w.trace()), source, name, opt);
        if (w.origins() == null) {
            return r;
        }
        return new Result(r.source(), r.verdict(), r.events(), r.matched(), r.line() < 0 ? r.line() : w.lineOf(r.line()), r.event(),
                r.property(), r.unfinished(), r.error() == null ? null : w.remap(r.error(), source), r.tlcTime());
    }

    /** As {@link #check(InputStream, String, String)}, with the validator's options (reference, completeness, fairness bound). */
    public Result check(InputStream trace, String source, String name, Validator.Options opt)
            throws IOException, TraceModule.Unsupported, ToolFailure {
        String module = "Trace_" + name.replaceAll("[^A-Za-z0-9]", "_");
        TraceModule.Generated g = mutation == null ? TraceModule.generate(trace, source, module, TraceModule.BASE, List.of(), opt)
                : TraceModule.generate(trace, source, module, mutation.module(), mutation.overrides(), opt);
        if (g.tla() == null) {
            return new Result(source, Verdict.MALFORMED, 0, 0, -1, null, null, 0, g.malformed(), Duration.ZERO);
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
        boolean judged = r.status() == TlcResult.Status.PASS
                || r.status() == TlcResult.Status.SAFETY_VIOLATION && "TraceInv".equals(r.violatedProperty());
        if (!judged) {
            throw new ToolFailure("TLC could not check " + source + " (" + r.status()
                    + (r.errorText() == null ? "" : ": " + r.errorText()) + "); its output is in " + dir.resolve("tlc.out"));
        }
        // one path, or (a partial trace) every path the hidden steps open: the trace is accepted when some
        // path reaches the end of the log; else it is rejected at the event no path gets past, by the
        // highest-ranked property any path breaks there
        int wrongAt = -1;
        String what = null;
        long unfinished = -1;
        for (String line : Files.readAllLines(dir.resolve("tlc.out"), StandardCharsets.UTF_8)) {
            Matcher v = VIOLATION.matcher(line);
            if (v.find()) {
                int at = Integer.parseInt(v.group(1));
                if (at > wrongAt || at == wrongAt && rank(v.group(2)) < rank(what)) {
                    wrongAt = at;
                    what = v.group(2);
                }
            }
            Matcher e = END.matcher(line);
            if (e.find()) {
                long u = Long.parseLong(e.group(1));
                unfinished = unfinished < 0 ? u : Math.min(unfinished, u);
            }
        }
        if (unfinished < 0 && wrongAt > 0) {
            PropertyId p = what.equals("step") ? null : PropertyId.valueOf(what);
            int at = Math.min(wrongAt, g.events());   // past the last event: the whole final state
            return new Result(source, Verdict.REJECTED, g.events(), at - 1, g.lines()[at - 1],
                    wrongAt > g.events() ? "(the end of the trace)" : recordAt(g.tla(), at - 1), p, 0, null, r.duration());
        }
        if (unfinished < 0) {
            throw new ToolFailure("TLC printed no verdict for " + source + "; its output is in " + dir.resolve("tlc.out"));
        }
        Verdict v = g.malformed() != null ? Verdict.MALFORMED : opt.complete() && unfinished > 0 ? Verdict.INCOMPLETE : Verdict.ACCEPTED;
        return new Result(source, v, g.events(), g.events(), -1, null, null, unfinished, g.malformed(), r.duration());
    }

    /** A printed property's rank (lumen.core.PropertyId.rank), "step" last; null (none yet) after everything. */
    private static int rank(String what) {
        if (what == null) {
            return Integer.MAX_VALUE;
        }
        return what.equals("step") ? Integer.MAX_VALUE - 1 : PropertyId.valueOf(what).rank();
    }

    /** The i-th (0-based) record of the generated log. */
    private static String recordAt(String tla, int i) {
        List<String> lines = tla.lines().toList();
        int start = lines.indexOf("TraceLogV == <<") + 1;
        String rec = lines.get(start + i).strip();
        return rec.endsWith(",") ? rec.substring(0, rec.length() - 1) : rec;
    }
}
