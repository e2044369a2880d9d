package lumen.runtime;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import lumen.core.Event;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Runs a scenario through the runtime, writes its trace, validates it, and says whether
 * everything came out as the scenario expects.
 *
 * @param trace     the trace, as written
 * @param history   what the run's clients saw, as a client history (docs/history-format.md)
 * @param problems  every way the run departs from what the scenario expects; empty when it passes
 */
public record ScenarioRun(Scenario scenario, byte[] trace, byte[] history, ValidationResult result, RuntimeStats stats,
                          List<String> problems) {

    public boolean passed() {
        return problems.isEmpty();
    }

    public static ScenarioRun run(Scenario sc) {
        return run(sc, sc.options().dataPlanes());
    }

    /** The same, with each worker's KV data plane made by {@code planes} (a GPU harness backend, say). */
    public static ScenarioRun run(Scenario sc, java.util.function.Function<KvGeometry, KvDataPlane> planes) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ByteArrayOutputStream hist = new ByteArrayOutputStream();
        lumen.history.HistoryRecorder clients = new lumen.history.HistoryRecorder(hist, sc.workload());
        List<Event> events = new ArrayList<>();
        UnaryOperator<Event> corrupt = sc.corruption().get();
        ClusterRuntime[] self = new ClusterRuntime[1];
        ClusterRuntime rt;
        try (TraceWriter w = new TraceWriter(buf, sc.config())) {
            rt = new ClusterRuntime(sc.config(), sc.cost(), sc.options().withDataPlanes(planes), (e, t) -> {
                Event out = corrupt.apply(e);
                events.add(out);
                clients.accept(out, t);
                try {
                    // under citedLoads=stale a decision cites the loads the gateway's monitor gave it
                    double[] cited = sc.config().readings().staleLoads() ? self[0].before().citedFor(out) : null;
                    w.write(out, Math.round(t * 1000) / 1000.0, cited);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            self[0] = rt;
            rt.run(sc.workload(), sc.faults());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        byte[] trace = buf.toByteArray();
        ValidationResult v;
        try {
            v = Validator.validate(new ByteArrayInputStream(trace), sc.name() + ".jsonl");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<String> problems = new ArrayList<>();
        if (sc.expectsAcceptance()) {
            if (v.verdict() != Verdict.ACCEPTED) {
                problems.add("expected ACCEPTED, got " + v.verdict() + (v.divergence() != null ? ": line " + v.divergence().line() + ": " + v.divergence().finding()
                        : v.error() != null ? ": " + v.error().getMessage() : ""));
            }
            for (Map.Entry<Integer, int[]> o : rt.outputs().entrySet()) {
                if (!java.util.Arrays.equals(o.getValue(), rt.references().get(o.getKey()))) {
                    problems.add("request " + o.getKey() + "'s output differs from its failure-free reference output");
                }
            }
            if (rt.stats().restoredBytesWrong > 0) {
                problems.add(rt.stats().restoredBytesWrong + " restored KV bytes differ from the true bytes");
            }
            if (rt.stats().completed != sc.workload().size()) {
                problems.add(rt.stats().completed + " of " + sc.workload().size() + " requests completed");
            }
            // what the clients saw passes the black-box check too
            try {
                lumen.history.HistoryCheck.Result h = lumen.history.HistoryCheck.check(
                        lumen.history.History.read(new ByteArrayInputStream(hist.toByteArray()), sc.name() + ".history.jsonl"),
                        lumen.history.HistoryCheck.Reference.kit(sc.options().vocab()), null, true);
                if (h.verdict() != Verdict.ACCEPTED) {
                    problems.add("its client history is " + h.verdict() + (h.finding() != null ? ": line " + h.line() + ": " + h.finding() : ""));
                }
            } catch (IOException | lumen.trace.TraceFormatException ex) {
                problems.add("its client history cannot be read: " + ex.getMessage());
            }
        } else if (v.verdict() != Verdict.REJECTED || v.divergence().finding().property() != sc.expectedProperty()) {
            problems.add("expected REJECTED by " + sc.expectedProperty().label() + ", got " + v.verdict()
                    + (v.divergence() != null ? " by " + v.divergence().finding().label() : ""));
        }
        for (Scenario.Feature f : sc.mustShow()) {
            if (!f.present().test(events)) {
                problems.add("the trace shows no " + f.name());
            }
        }
        return new ScenarioRun(sc, trace, hist.toByteArray(), v, rt.stats(), problems);
    }
}
