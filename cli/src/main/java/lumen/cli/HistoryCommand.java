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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import lumen.core.KitTokens;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.sim.SimMetrics;
import lumen.spec.io.AtomicFiles;
import lumen.trace.TraceFormatException;
import lumen.validate.Verdict;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lumen history FILE...}: is what the clients saw what a correct recovery gives them? */
@Command(name = "history",
        mixinStandardHelpOptions = true,
        description = {"Checks black-box client histories (docs/history-format.md): what each client sent and every chunk it"
                + " received, in the OpenAI streaming shape, with no instrumentation of the system.",
            "Every request finishes exactly once (S2: never answered twice), its tokens in the order they streamed are a"
                + " prefix of its reference output (S7: none lost, repeated, reordered or altered across a failure), and its"
                + " finish is explained (S1: the whole output, never an error or a short one). A history that ends with a"
                + " request open is INCOMPLETE (REJECTED by L1 with --complete).",
            "The reference is the kit's token model (each request's seed and max_tokens), or --reference FILE, the same"
                + " workload's failure-free history. Prints TTFT, TPOT and the stall of the requests in flight at a fault, and"
                + " with --baseline the recovery time, by the simulator's definitions (docs/simulator.md).",
            "Exit status: 0 all accepted, 1 some rejected or incomplete, 2 some not judged (malformed or unreadable)."})
final class HistoryCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "client histories (JSON Lines)")
    List<Path> files;

    @Option(names = "--reference", paramLabel = "FILE", description = "judge the outputs against this failure-free history of the same"
            + " workload instead of the kit's token model")
    Path reference;

    @Option(names = "--baseline", paramLabel = "FILE", description = "the same workload's failure-free history, for the recovery time"
            + " (default: the --reference history, if given)")
    Path baseline;

    @Option(names = "--vocab", paramLabel = "N", defaultValue = "" + KitTokens.VOCAB, description = "the kit token model's vocabulary"
            + " (default: ${DEFAULT-VALUE})")
    int vocab;

    @Option(names = "--complete", description = "a request that never finishes is REJECTED by L1, not INCOMPLETE")
    boolean complete;

    @Option(names = "--json", description = "print a machine-readable report instead of text")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the JSON report to FILE (atomically)")
    Path report;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (vocab < 2) {
            throw new UserError("--vocab must be at least 2, found " + vocab);
        }
        History ref = reference == null ? null : readOrFail(reference, "--reference");
        History base = baseline != null ? readOrFail(baseline, "--baseline") : ref;
        HistoryCheck.Reference judge = ref == null ? HistoryCheck.Reference.kit(vocab) : HistoryCheck.Reference.of(ref);
        List<Map<String, Object>> rows = new ArrayList<>();
        int worst = ExitCodes.OK;
        for (Path f : files) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("file", f.toString());
            try (InputStream in = Files.newInputStream(f)) {
                History h = History.read(in, f.toString());
                HistoryCheck.Result r = HistoryCheck.check(h, judge, base, complete);
                row.putAll(json(r));
                if (!json) {
                    out.print(text(r));
                }
                worst = Math.max(worst, r.verdict() == Verdict.ACCEPTED ? ExitCodes.OK
                        : r.verdict() == Verdict.MALFORMED ? ExitCodes.BAD_INPUT : ExitCodes.DISAGREEMENT);
            } catch (TraceFormatException ex) {
                row.put("verdict", "MALFORMED");
                row.put("line", ex.line());
                row.put("error", ex.getMessage());
                if (!json) {
                    out.println(f + ":" + ex.line() + ": MALFORMED");
                    out.println("  " + ex.getMessage());
                }
                worst = ExitCodes.BAD_INPUT;
            } catch (NoSuchFileException ex) {
                row.put("verdict", "UNREADABLE");
                row.put("error", "no such file");
                err.println("lumen: " + f + ": UNREADABLE: no such file");
                worst = ExitCodes.BAD_INPUT;
            } catch (IOException ex) {
                row.put("verdict", "UNREADABLE");
                row.put("error", String.valueOf(ex.getMessage()));
                err.println("lumen: " + f + ": UNREADABLE: " + ex.getMessage());
                worst = ExitCodes.BAD_INPUT;
            }
            rows.add(row);
        }
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("histories", rows);
        if (json) {
            out.println(m.writeValueAsString(doc));
        }
        if (report != null) {
            AtomicFiles.writeString(report, m.writeValueAsString(doc));
        }
        out.flush();
        return worst;
    }

    private static History readOrFail(Path p, String what) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return History.read(in, p.toString());
        } catch (NoSuchFileException ex) {
            throw new UserError(what + " " + p + ": no such file");
        } catch (TraceFormatException ex) {
            throw new UserError(what + " " + ex.getMessage());
        }
    }

    static String text(HistoryCheck.Result r) {
        StringBuilder b = new StringBuilder();
        String where = r.line() > 0 ? ":" + r.line() : "";
        String what = r.verdict() == Verdict.REJECTED && r.finding() != null ? " by " + r.finding().label() : "";
        b.append(r.source()).append(where).append(": ").append(r.verdict()).append(what).append(" (").append(r.requests()).append(" requests, ")
                .append(r.faults()).append(r.faults() == 1 ? " fault" : " faults").append(")\n");
        if (r.finding() != null) {
            b.append("  finding:  ").append(r.finding().message()).append('\n');
            if (r.finding().expected() != null) {
                b.append("  expected: ").append(r.finding().expected()).append('\n').append("  actual:   ").append(r.finding().actual()).append('\n');
            }
        }
        if (r.verdict() == Verdict.INCOMPLETE) {
            b.append("  open at the end: ").append(String.join(", ", r.open().subList(0, Math.min(10, r.open().size()))))
                    .append(r.open().size() > 10 ? ", ..." : "").append(" (--complete rejects this with L1)\n");
        }
        b.append("  outputs judged against ").append(r.reference()).append('\n');
        SimMetrics.Summary s = r.summary();
        if (s != null) {
            b.append(String.format(Locale.ROOT, "  every request: TTFT ms (mean / p50 / p99) %s, TPOT ms %s%n", r.ttft().text(), r.tpot().text()));
            if (!Double.isNaN(s.failAtMs())) {
                b.append(String.format(Locale.ROOT, "  in flight at the fault (t=%.1f ms): %d requests, time to their next token ms: %s%n",
                        s.failAtMs(), s.interrupted(), s.ttftInterrupted().text()));
                b.append("  recovery: ").append(r.baseline() == null ? "needs --baseline (a failure-free history of the same workload)"
                        : Double.isNaN(s.recoveryMs()) ? "never, within this history (against " + r.baseline() + ")"
                        : String.format(Locale.ROOT, "%.1f s after the fault (against %s)", s.recoveryMs() / 1000, r.baseline())).append('\n');
            }
        }
        return b.toString();
    }

    static Map<String, Object> json(HistoryCheck.Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verdict", r.verdict().name());
        m.put("requests", r.requests());
        m.put("tokens", r.tokens());
        m.put("faults", r.faults());
        if (r.finding() != null) {
            m.put("property", r.finding().property() == null ? null : r.finding().property().name());
            m.put("line", r.line());
            m.put("request", r.request());
            m.put("finding", r.finding().message());
            m.put("expected", r.finding().expected());
            m.put("actual", r.finding().actual());
        }
        m.put("open", r.open());
        m.put("reference", r.reference());
        SimMetrics.Summary s = r.summary();
        if (s != null) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("ttftMeanMs", nan(r.ttft().mean()));
            x.put("ttftP99Ms", nan(r.ttft().p99()));
            x.put("tpotMeanMs", nan(r.tpot().mean()));
            x.put("faultAtMs", nan(s.failAtMs()));
            x.put("inFlightAtFault", s.interrupted());
            x.put("stallMeanMs", nan(s.ttftInterrupted().mean()));
            x.put("recoveryMs", nan(s.recoveryMs()));
            m.put("metrics", x);
        }
        return m;
    }

    private static Object nan(double d) {
        return Double.isNaN(d) ? null : d;
    }
}
