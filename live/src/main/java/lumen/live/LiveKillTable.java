package lumen.live;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code lumen conform --live-mutants}: runs {@code lumen serve} and each of its seeded bugs
 * ({@link LiveMutant}) on loopback, drives each with the same workload and the same
 * {@code kill -9} of a worker through {@link LiveConform}, and reports which check caught each: the
 * reference must pass, every mutant must be caught. Every system also goes through two gray
 * failures ({@link #STALLS}), which the fence mutants need.
 */
public final class LiveKillTable {
    private LiveKillTable() {}

    /**
     * The gray failures every system of the table goes through besides the drill's faults: worker 2
     * stalls for 1.5 s in the middle of its 4th page transfer, worker 0 for 1.3 s in the middle of
     * its 600th decode, and worker 2's engine for 3 s in the middle of its 250th decode (its
     * heartbeats go on). Each is failed meanwhile and wakes to send what it was sending under its
     * fenced epoch (a page to its holder; the answer to the iteration the gateway gave up on; that
     * answer after the worker's restart). The reference must refuse all three; holder-no-fence takes
     * the page, gateway-no-fence the tokens, restart-reuses-epoch the tokens after the restart.
     */
    public static final String STALLS = "2:sending:4:1500,0:decode:600:1300,2:decode:250:3000:engine";

    /** The most runs of a mutant: a run whose faults happened not to reach its bug (no restore of a damaged copy, say) is run again with the next seed. */
    public static final int ATTEMPTS = 3;

    /**
     * One row: the system, what its run showed (the last of {@code runs}), why its gateway stopped
     * in that run (null: it did not), and whether that is what it should show.
     */
    public record Row(LiveMutant mutant, LiveConform.Result result, int runs, String stopped) {
        /** The reference passed, or the mutant was caught; a run whose fault commands failed, or whose gateway stopped, is neither. */
        public boolean ok() {
            return stopped == null && result.faultsNotDone().isEmpty() && (mutant == LiveMutant.NONE ? result.passed() : !result.passed());
        }
    }

    /** One run's result, and why its gateway stopped before the run was over (null: it did not). */
    private record Once(LiveConform.Result result, String stopped) {}

    /**
     * Runs the reference and the mutants named (all when empty) under {@code base}, each in a fresh
     * directory under {@code dir}, with the workload and faults of {@code template} (its URL,
     * commands, history and logs are set per run), every page acknowledgement numbered a multiple
     * of {@code dropAckEvery} lost (a network fault the reference must survive).
     */
    public static List<Row> run(LiveServer.Settings base, LiveConform.Options template, int dropAckEvery, List<LiveMutant> mutants,
                                 Path dir, PrintWriter progress) throws Exception {
        List<LiveMutant> systems = new ArrayList<>();
        systems.add(LiveMutant.NONE);
        for (LiveMutant m : mutants.isEmpty() ? List.of(LiveMutant.values()) : mutants) {
            if (m != LiveMutant.NONE) {
                systems.add(m);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (LiveMutant m : systems) {
            LiveConform.Result r = null;
            String stopped = null;
            int runs = 0;
            // the reference runs once and must pass; a mutant runs until caught, at most ATTEMPTS times: a run
            // whose gateway stopped (a bug can crash the system it is in) judged nothing, and is run again too
            while (runs < (m == LiveMutant.NONE ? 1 : ATTEMPTS) && (r == null || r.passed() || stopped != null)) {
                Once o = once(base, template, dropAckEvery, m, Files.createDirectories(dir.resolve(m.key + "-" + runs)), template.seed() + runs,
                        progress);
                r = o.result();
                stopped = o.stopped();
                runs++;
                if (stopped != null) {
                    progress.printf("  %-20s run %d: %s%n", m.key, runs, lumen.trace.Echo.cut(stopped));
                }
            }
            Row row = new Row(m, r, runs, stopped);
            rows.add(row);
            String verdict = row.ok() ? "ok" : stopped != null ? "STOPPED (its gateway stopped in every run)"
                    : !r.faultsNotDone().isEmpty() ? "NOT JUDGED (a fault command failed)"
                    : m == LiveMutant.NONE ? "FAILED (the reference must pass)" : "SURVIVED";
            progress.printf("  %-20s history %-9s logs %-10s caught by %-16s %s%s%n", m.key, r.history().verdict(), r.logs().verdict(),
                    r.caughtBy(), verdict, runs > 1 ? " (" + runs + " runs)" : "");
            progress.flush();
        }
        return rows;
    }

    /** One run of system m: lumen serve with its bug, the workload and the faults, then its history and its trace judged. */
    static Once once(LiveServer.Settings base, LiveConform.Options template, int dropAckEvery, LiveMutant m, Path run,
                                   long seed, PrintWriter progress) throws Exception {
        Path logs = run.resolve("logs");
        LiveServer.Settings s = new LiveServer.Settings(base.config(), base.cost(), 0, base.restartDelayMs(), base.cluster(),
                base.requestTimeoutMs(), run, m, dropAckEvery).withProcessLogs(logs).dyingAt(STALLS);
        LiveConform.Result r;
        String stopped;
        try (LiveServer srv = LiveServer.start(s, null, 60_000)) {
            LiveConform.Options o = template.againstServe(srv.url(), run, seed, run.resolve("client.history.jsonl"));
            r = LiveConform.run(o, progress);
            // a run is complete when its failed workers are back: the trace is judged with --complete
            stopped = upOrStopped(srv.cluster());
            // what the gateway detected, one line each, for a reader of the run
            Files.write(run.resolve("detections.txt"), srv.cluster().detections());
        }
        // the logs are whole once the processes have stopped: each process's own, merged by their clocks
        return new Once(new LiveConform.Result(r.history(), LiveConform.validateLogs(logs), r.faults(), r.requests(), r.wallMs(),
                r.faultsNotDone()).withUndriven(LiveConform.undriven(template.faults(), LiveConform.loggedFails(logs))), stopped);
    }

    /** Waits for the cluster's failed workers to be back; returns why its gateway stopped instead, or null. */
    private static String upOrStopped(LiveCluster c) throws InterruptedException {
        if (c.stopped() == null) {
            try {
                c.awaitAllUp(30_000);
            } catch (IllegalStateException ex) {
                if (c.stopped() == null) {
                    throw ex;
                }
            }
        }
        return c.stopped() == null ? null : "the gateway's loop stopped: " + c.stopped().getMessage();
    }

    /** A line on what caught a run: the first finding of the history and of the logs. */
    public static String why(LiveConform.Result r) {
        List<String> out = new ArrayList<>();
        if (r.history().verdict() != lumen.validate.Verdict.ACCEPTED && r.history().finding() != null) {
            out.add("history: " + r.history().finding().property() + " " + lumen.trace.Echo.cut(r.history().finding().message()));
        }
        if (r.logs() != null && r.logs().verdict() != lumen.validate.Verdict.ACCEPTED) {
            var d = r.logs().divergence();
            out.add("logs: " + (d != null ? "line " + d.line() + " " + d.finding().property() + " " + lumen.trace.Echo.cut(d.finding().message())
                    : r.logs().error() != null ? r.logs().error().getMessage() : verdictWithWhy(r.logs())));
        }
        return String.join("; ", out);
    }

    /** A verdict without a divergence or an error: INCOMPLETE names what is unfinished (the first 8). */
    private static String verdictWithWhy(lumen.validate.ValidationResult v) {
        List<String> u = v.unfinished();
        if (v.verdict() != lumen.validate.Verdict.INCOMPLETE || u.isEmpty()) {
            return v.verdict().toString();
        }
        return "INCOMPLETE, unfinished: " + String.join(", ", u.subList(0, Math.min(8, u.size())))
                + (u.size() > 8 ? ", ... (" + u.size() + " in all)" : "");
    }

}
