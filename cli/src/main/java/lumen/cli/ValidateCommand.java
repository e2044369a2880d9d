package lumen.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import lumen.spec.io.AtomicFiles;
import lumen.tracecheck.TlcTraceCheck;
import lumen.trace.Echo;
import lumen.tracecheck.TraceModule;
import lumen.validate.ValidationReport;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lumen validate TRACE...}: is each trace a behaviour of the composed spec? */
@Command(name = "validate",
        mixinStandardHelpOptions = true,
        description = {"Replays each trace (trace contract v1 or v2, JSON Lines) on the Java mirror of the spec and gives a verdict:"
                + " ACCEPTED, REJECTED (with the property), INCOMPLETE (with --complete: the run stops unfinished),"
                + " UNDECIDED (a partial trace's search cut short by its declared bound).",
            "A partial trace declares in its header what the system observes (\"observes\": Place not logged, loads never"
                + " cited, Decode per batch iteration, checkpoint sizes without content); what it does not log is searched for"
                + " (docs/trace-format.md, Partial traces).",
            "On rejection: the first diverging event with its line, the property it breaks, expected versus actual,"
                + " the longest matched prefix, and the mirrored spec state just before it. The verdict also says what the trace could not show"
                + " (a v1 trace's KV content; outputs judged against the system's own Arrive.ref unless --reference is given).",
            "Every trace gets a verdict and a row in the report, and a batch goes on past a trace it cannot judge:"
                + " MALFORMED (not a trace by docs/trace-format.md, with the line), UNREADABLE (no such file, a folder,"
                + " a read error), with --tlc UNSUPPORTED (outside what TLC checks, with the reason), ERROR (the checker"
                + " failed, with what it said).",
            "Exit status: 0 all accepted, 1 some rejected, incomplete or undecided, 2 some not judged (malformed, unreadable, unsupported or an error)."})
final class ValidateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "TRACE", arity = "1..*", description = "trace files (JSON Lines), or folders: every *.jsonl in"
            + " them but client histories (*.history.jsonl); - reads standard input")
    List<String> traces;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "1", description = "validate N traces at a time (default: ${DEFAULT-VALUE});"
            + " the reports come in the order of the arguments, and a batch of several traces ends with traces/s and events/s")
    int jobs;

    @Option(names = "--json", description = "print a machine-readable report instead of text")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the JSON report to FILE (atomically)")
    Path report;

    @Option(names = "--tlc", description = {"decide with TLC instead of the Java mirror: generate the trace's module"
            + " (spec/TraceLumen.tla), in which TLC applies each event as reported and checks it is a step of the spec and"
            + " that every property holds at the trace's constants.",
        "Authoritative and suited to small traces; covers lumen, lumen-dual, fixed-checkpointing and stop-and-restart."})
    boolean tlc;

    @Option(names = "--spec-dir", paramLabel = "DIR", description = "the spec folder, for --tlc (default: spec/ of the kit)")
    Path specDir;

    @Option(names = "--timeout", paramLabel = "MINUTES", defaultValue = "30", description = "TLC's time limit per trace, for --tlc (default: ${DEFAULT-VALUE})")
    long timeoutMinutes;

    @Option(names = "--reference", paramLabel = "FILE", description = {"the kit's own reference outputs: a failure-free trace of the same"
            + " workload, or a token history (docs/trace-format.md); every request is then judged against it, not against"
            + " its self-reported Arrive.ref"})
    Path reference;

    @Option(names = "--processes", description = {"the TRACE files are one run's per-process logs (the gateway's and each"
            + " worker's, each event with a vector clock 'vc' or a Lamport clock 'lc', or with wall-clock time 't' only under a"
            + " declared skew_ms; docs/trace-format.md, Per-process logs): merge them in an order the clocks allow and validate"
            + " that, searching other orders boundedly; with --tlc, TLC then judges the order the mirror settled on"})
    boolean processes;

    @Option(names = "--order-states", paramLabel = "N", defaultValue = "" + lumen.validate.WallClockLogs.DEFAULT_STATES,
            description = {"with --processes, for logs with wall-clock time only: the search keeps at most N states (orders"
            + " followed, deduplicated) after each event; a search the bound cuts decides nothing (UNDECIDED, never REJECTED)"
            + " (default: ${DEFAULT-VALUE})"})
    int orderStates;

    @Option(names = "--complete", description = "require a finished run: a request not DONE or a worker not UP at the end is INCOMPLETE")
    boolean complete;

    @Option(names = "--fairness-steps", paramLabel = "N", defaultValue = "32", description = {"the bound of the finite-trace fairness"
            + " checks: a checkpoint a page behind for more than N of its request's decode steps (L3), a recovering worker that"
            + " could have proposed at more than N of a request's decode steps and proposed nothing (L4); 0 turns them off"
            + " (default: ${DEFAULT-VALUE})"})
    int fairnessSteps;

    /** The validator's options from the flags; the reference file is read once for the batch. */
    private Validator.Options options() {
        if (fairnessSteps < 0) {
            throw new UserError("--fairness-steps must be 0 or more");
        }
        Validator.Options o = Validator.Options.defaults().withComplete(complete).withFairnessSteps(fairnessSteps);
        if (reference == null) {
            return o;
        }
        try (InputStream in = open(reference.toString())) {
            return o.withReference(lumen.validate.References.read(in, reference.toString()), "the reference " + reference);
        } catch (IOException ex) {
            throw new UserError(reference + ": cannot read: " + Echo.cut(String.valueOf(ex.getMessage())));
        } catch (lumen.trace.TraceFormatException ex) {
            throw new UserError("--reference " + ex.getMessage());
        }
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        List<Object> rows = new ArrayList<>();
        int worst = ExitCodes.OK;
        Validator.Options opt = options();
        if (tlc && !processes) {
            return callTlc(out, opt);
        }
        if (processes) {
            return callProcesses(out, opt);
        }
        if (jobs < 1) {
            throw new UserError("--jobs must be at least 1, found " + jobs);
        }
        List<String> all = expand(traces);
        long t0 = System.nanoTime();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(Math.min(jobs, Math.max(1, all.size())));
        List<java.util.concurrent.Future<Judged>> runs = new ArrayList<>();
        for (String t : all) {
            runs.add(pool.submit(() -> judge(t, opt)));
        }
        pool.shutdown();
        long events = 0;
        try (me.tongfei.progressbar.ProgressBar bar = all.size() > 1 && !json && System.console() != null
                ? new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("validate").setInitialMax(all.size()).setUnit(" traces", 1)
                        .setStyle(me.tongfei.progressbar.ProgressBarStyle.ASCII)
                        .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()
                : null) {
            for (java.util.concurrent.Future<Judged> f : runs) {
                Judged j;
                try {
                    j = f.get();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", ex);
                } catch (java.util.concurrent.ExecutionException ex) {
                    throw new IllegalStateException(ex.getCause());
                }
                if (bar != null) {
                    bar.step();
                }
                rows.add(j.row());
                events += j.events();
                if (j.why() != null) {
                    PrintWriter err = spec.commandLine().getErr();
                    err.println("lumen: " + j.row().get("verdict") + ": " + j.why());
                    err.flush();
                } else if (!json) {
                    out.print(j.text());
                    out.flush();
                }
                worst = Math.max(worst, j.code());
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        if (all.size() > 1 && !json) {
            long ok = rows.stream().filter(m -> "ACCEPTED".equals(((Map<?, ?>) m).get("verdict"))).count();
            out.printf(java.util.Locale.ROOT, "%d traces, %d accepted, in %.2f s: %.1f traces/s, %.0f events/s (%d at a time)%n",
                    all.size(), ok, secs, all.size() / secs, events / secs, Math.min(jobs, all.size()));
        }
        finish(out, rows);
        return worst;
    }

    /** One trace's row, its text report (or, when it got no verdict, why), its exit status and its events. */
    private record Judged(Map<String, Object> row, String text, String why, int code, long events) {}

    private Judged judge(String t, Validator.Options opt) {
        try (InputStream raw = open(t); java.io.BufferedInputStream in = new java.io.BufferedInputStream(raw, 1 << 16)) {
            // streamed from the file, a partial trace too; only a trace with begin and end forms is read whole
            ValidationResult r = Validator.validate(in, name(t), opt);
            Map<String, Object> row = ValidationReport.json(r);
            return new Judged(row, ValidationReport.text(r), null, exit(r.verdict()), r.events());
        } catch (UserError | IOException ex) {
            return notJudgedRow(t, "UNREADABLE", message(t, ex));
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError ex) {
            return notJudgedRow(t, "ERROR", internal(t, ex));
        }
    }

    private static Judged notJudgedRow(String t, String verdict, String why) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("trace", name(t));
        row.put("verdict", verdict);
        Map<String, Object> em = new LinkedHashMap<>();
        em.put("message", why);
        row.put("error", em);
        return new Judged(row, null, why, ExitCodes.BAD_INPUT, 0);
    }

    /** The traces to validate: each argument, a folder's *.jsonl files (sorted, client histories left out) in its place. */
    private static List<String> expand(List<String> args) throws IOException {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            Path p = Path.of(a);
            if (!a.equals("-") && Files.isDirectory(p)) {
                List<String> found;
                try (var files = Files.list(p)) {
                    found = files.filter(f -> f.toString().endsWith(".jsonl") && !f.toString().endsWith(".history.jsonl") && Files.isRegularFile(f))
                            .map(Path::toString).sorted().toList();
                }
                // a folder without traces stays, to be reported as such
                out.addAll(found.isEmpty() ? List.of(a) : found);
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /** {@code --processes}: one verdict for the run the logs describe, its lines placed in their own files. */
    private Integer callProcesses(PrintWriter out, Validator.Options opt) throws IOException {
        List<byte[]> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        // a folder is its *.jsonl files, as for every other run of this command
        for (String t : expand(traces)) {
            try (InputStream in = open(t)) {
                files.add(in.readAllBytes());
                names.add(name(t));
            } catch (IOException ex) {
                notJudged(new ArrayList<>(), t, "trace", "UNREADABLE", message(t, ex));
                return ExitCodes.BAD_INPUT;
            }
        }
        if (orderStates < 1) {
            throw new UserError("--order-states must be at least 1, found " + orderStates);
        }
        List<Object> rows = new ArrayList<>();
        try {
            lumen.validate.ProcessLogs.Result r = lumen.validate.ProcessLogs.validate(files, names, opt, null, orderStates);
            ValidationResult v = r.result();
            String where = v.divergence() == null ? "" : " at " + r.origin(v.divergence().line());
            lumen.validate.WallClockLogs.Search w = r.wall();
            String head = String.join(" ", names) + ": " + v.verdict() + where + " (" + names.size() + " per-process logs, "
                    + (w != null ? String.format(java.util.Locale.ROOT, "wall-clock windows under skew_ms=%s: %d %s of their %d events"
                            + " followed, %d search states (%.2f per event), at most %d after one event%s", lumen.validate.WallClockLogs.num(
                            w.skewMs()), w.orders(), w.orders() == 1 ? "order" : "orders", w.events(), w.states(), w.events() == 0 ? 0.0
                            : (double) w.states() / w.events(), w.bound(), w.cut() ? ", cut" : "")
                    : r.lamport() ? "Lamport clocks: one order" : r.ordersTried() + (r.ordersTried() == 1 ? " order" : " orders")
                    + " of their concurrent events tried, at most " + lumen.validate.ProcessLogs.SEARCH_ORDERS) + ")";
            Map<String, Object> row = new LinkedHashMap<>(ValidationReport.json(v));
            row.put("logs", names);
            row.put("ordersTried", w != null ? w.orders() : r.ordersTried());
            if (w != null) {
                Map<String, Object> search = new LinkedHashMap<>();
                search.put("skewMs", w.skewMs());
                search.put("events", w.events());
                search.put("states", w.states());
                search.put("peak", w.peak());
                search.put("branchPoints", w.branchPoints());
                search.put("bound", w.bound());
                search.put("cut", w.cut());
                row.put("wallClock", search);
            }
            if (v.divergence() != null) {
                row.put("origin", r.origin(v.divergence().line()));
            }
            rows.add(row);
            boolean disagree = false;
            if (tlc) {
                // TLC judges the order the mirror settled on: the accepted one, or the first when none was
                TlcTraceCheck check = new TlcTraceCheck(KitPaths.specDir(specDir), KitPaths.workDir().resolve("traces"),
                        java.time.Duration.ofMinutes(timeoutMinutes));
                try {
                    TlcTraceCheck.Result tr = check.check(new java.io.ByteArrayInputStream(r.merged()), "merged", "merged", opt);
                    row.put("tlcVerdict", tr.verdict().name());
                    boolean agree = tr.verdict() == v.verdict() && (tr.verdict() != lumen.validate.Verdict.REJECTED
                            || tr.line() == v.divergence().line());
                    row.put("tlcAgrees", agree);
                    head += "\n  TLC on the same merged order: " + tr.verdict()
                            + (tr.verdict() == lumen.validate.Verdict.REJECTED ? " at " + r.origin(tr.line()) : "")
                            + (agree ? " (agrees)" : " (DISAGREES with the mirror)");
                    disagree = !agree;
                } catch (TraceModule.Unsupported ex) {
                    head += "\n  TLC: UNSUPPORTED: " + ex.getMessage();
                } catch (TlcTraceCheck.ToolFailure ex) {
                    head += "\n  TLC: ERROR: " + ex.getMessage();
                }
            }
            if (!json) {
                out.println(head);
                String text = ValidationReport.text(v);
                out.print(text.startsWith("merged: ") ? "  the merged trace: " + text.substring("merged: ".length())
                        : text.replaceFirst("^merged:", "  merged line "));
                out.flush();
            }
            finish(out, rows);
            return disagree ? Math.max(ExitCodes.DISAGREEMENT, exit(v.verdict())) : exit(v.verdict());
        } catch (lumen.trace.TraceFormatException ex) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("verdict", "MALFORMED");
            row.put("error", ex.getMessage());
            rows.add(row);
            if (!json) {
                out.println(ex.getMessage());
                out.println("  MALFORMED");
                out.flush();
            }
            finish(out, rows);
            return ExitCodes.BAD_INPUT;
        }
    }

    private static int exit(lumen.validate.Verdict v) {
        return switch (v) {
            case ACCEPTED -> ExitCodes.OK;
            case REJECTED, INCOMPLETE, UNDECIDED -> ExitCodes.DISAGREEMENT;
            case MALFORMED -> ExitCodes.BAD_INPUT;
        };
    }

    private static String name(String t) {
        return t.equals("-") ? "<stdin>" : t;
    }

    /** "t: no such file", or the read error with the trace's name. */
    private static String message(String t, Exception ex) {
        if (ex instanceof UserError) {
            return ex.getMessage();
        }
        return name(t) + ": cannot read: " + Echo.cut(String.valueOf(ex.getMessage()));
    }

    /** A failure of the kit itself on this trace: said plainly, without a stack trace, and the batch goes on. */
    private static String internal(String t, Throwable ex) {
        return name(t) + ": internal error while validating (a bug in the kit; please report it with the trace): "
                + ex.getClass().getName() + ": " + Echo.cut(String.valueOf(ex.getMessage()));
    }

    /** The row of a trace that got no verdict from the checker, its reason on standard error; the exit status it sets. */
    private int notJudged(List<Object> rows, String t, String key, String verdict, String why) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put(key, name(t));
        row.put("verdict", verdict);
        Map<String, Object> em = new LinkedHashMap<>();
        em.put("message", why);
        row.put("error", em);
        rows.add(row);
        PrintWriter err = spec.commandLine().getErr();
        err.println("lumen: " + verdict + ": " + why);
        err.flush();
        return ExitCodes.BAD_INPUT;
    }

    private void finish(PrintWriter out, List<Object> rows) throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("accepted", rows.stream().filter(m -> "ACCEPTED".equals(((Map<?, ?>) m).get("verdict"))).count());
        doc.put("total", rows.size());
        doc.put("traces", rows);
        String text = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc);
        if (json) {
            out.println(text);
            out.flush();
        }
        if (report != null) {
            AtomicFiles.writeString(report, text + "\n");
        }
    }

    private Integer callTlc(PrintWriter out, Validator.Options opt) throws IOException {
        TlcTraceCheck check = new TlcTraceCheck(KitPaths.specDir(specDir), KitPaths.workDir().resolve("traces"),
                java.time.Duration.ofMinutes(timeoutMinutes));
        List<Object> rows = new ArrayList<>();
        int worst = ExitCodes.OK;
        for (String t : traces) {
            TlcTraceCheck.Result r;
            boolean rewritten;
            try (InputStream raw = open(t)) {
                // begin and end forms and partial traces: TLC judges what the mirror judges, lines as written
                byte[] bytes = raw.readAllBytes();
                rewritten = lumen.trace.WrittenTrace.declared(bytes);
                r = check.checkWritten(bytes, t, Path.of(t.equals("-") ? "stdin" : t).getFileName().toString().replaceFirst("\\.jsonl?$", ""), opt);
            } catch (lumen.trace.TraceFormatException ex) {
                worst = Math.max(worst, notJudged(rows, t, "source", "MALFORMED", ex.getMessage()));
                continue;
            } catch (TraceModule.Unsupported ex) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("source", t);
                row.put("checker", "TLC");
                row.put("verdict", "UNSUPPORTED");
                row.put("reason", ex.getMessage());
                rows.add(row);
                if (!json) {
                    out.print(t + ": UNSUPPORTED by TLC: " + ex.getMessage() + "\n"
                            + "  (the Java mirror, lumen validate without --tlc, checks it)\n");
                    out.flush();
                }
                worst = Math.max(worst, ExitCodes.BAD_INPUT);
                continue;
            } catch (TlcTraceCheck.ToolFailure ex) {
                worst = Math.max(worst, notJudged(rows, t, "source", "ERROR", ex.getMessage()));
                continue;
            } catch (UserError | IOException ex) {
                worst = Math.max(worst, notJudged(rows, t, "source", "UNREADABLE", message(t, ex)));
                continue;
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError ex) {
                worst = Math.max(worst, notJudged(rows, t, "source", "ERROR", internal(t, ex)));
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("source", r.source());
            row.put("checker", "TLC");
            row.put("verdict", r.verdict().name());
            row.put("events", r.events());
            row.put("matched", r.matched());
            if (r.verdict() == lumen.validate.Verdict.REJECTED) {
                row.put("line", r.line());
                row.put("property", r.property() == null ? null : r.property().name());
                row.put("label", r.property() == null ? "not a step of the spec" : r.property().label());
                row.put("event", Echo.cut(r.event()));
            }
            if (r.verdict() == lumen.validate.Verdict.INCOMPLETE) {
                row.put("unfinished", r.unfinished());
            }
            if (r.error() != null) {
                row.put("line", r.error().line());
                row.put("error", r.error().getMessage());
            }
            row.put("tlcSeconds", r.tlcTime().toMillis() / 1000.0);
            rows.add(row);
            if (!json) {
                out.print(text(r));
                if (rewritten) {
                    out.println("  (TLC judged the trace as the mirror does: begin and end forms at their ends, batch lines as their"
                            + " Decode steps, hidden steps searched for; lines are the trace's own)");
                }
                out.flush();
            }
            worst = Math.max(worst, exit(r.verdict()));
        }
        finish(out, rows);
        return worst;
    }

    static String text(TlcTraceCheck.Result r) {
        String secs = String.format(java.util.Locale.ROOT, "%.1f s", r.tlcTime().toMillis() / 1000.0);
        return switch (r.verdict()) {
            case ACCEPTED -> r.source() + ": ACCEPTED by TLC: every event is a step of the spec and every property holds, at the trace's"
                    + " own constants (" + r.events() + " events, " + secs + ")\n";
            case INCOMPLETE -> r.source() + ": INCOMPLETE by TLC: every event is a step of the spec, but " + r.unfinished()
                    + " requests or workers are unfinished at the end (" + secs + ")\n";
            case REJECTED -> r.source() + ":" + r.line() + ": REJECTED by TLC: " + (r.property() == null ? "not a step of the spec"
                    : r.property().label()) + ", after " + r.matched() + " events that are steps of the spec (" + secs + ")\n  event: " + Echo.cut(r.event()) + "\n"
                    + "  (the Java mirror, lumen validate without --tlc, shows expected versus actual and the spec state)\n";
            case UNDECIDED -> r.source() + ": UNDECIDED by TLC (" + secs + ")\n";
            case MALFORMED -> "MALFORMED: " + r.error().getMessage() + "\n";
        };
    }

    private static InputStream open(String t) throws IOException {
        if (t.equals("-")) {
            return System.in;
        }
        Path p = Path.of(t);
        if (Files.isDirectory(p)) {
            throw new UserError(t + ": is a folder with no traces (*.jsonl) in it");
        }
        try {
            return new java.io.BufferedInputStream(Files.newInputStream(p), 1 << 16);
        } catch (NoSuchFileException ex) {
            throw new UserError(t + ": no such file");
        }
    }

}
