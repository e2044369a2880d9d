package lumen.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import lumen.core.Config;
import lumen.live.LiveCluster;
import lumen.live.LiveConform;
import lumen.live.LiveKillTable;
import lumen.live.LiveMutant;
import lumen.live.LiveServer;
import lumen.runtime.SimpleCostModel;
import picocli.CommandLine.Option;

/** The options of {@code lumen conform --live URL} and {@code --live-mutants}, and their run. */
final class LiveOptions {
    /** Set from conform's --require-coverage: a drill whose faults interrupted nothing fails. */
    boolean requireCoverage;

    /** Set from conform's --reference equivalence: outputs under the faults against a failure-free run first. */
    boolean equivalence;

    @Option(names = "--workload", paramLabel = "NAME", defaultValue = "conv", description = "with --live: the Azure LLM inference"
            + " trace the request lengths and arrival times come from, conv or code (default: ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--rate-scale", paramLabel = "X", defaultValue = "4", description = "with --live: the trace's arrivals X times"
            + " as fast (default: ${DEFAULT-VALUE})")
    double rateScale;

    @Option(names = "--duration-s", paramLabel = "S", defaultValue = "6", description = "with --live: send the requests arriving"
            + " within S seconds (default: ${DEFAULT-VALUE})")
    double durationS;

    @Option(names = "--max-prompt", paramLabel = "N", defaultValue = "128", description = "with --live: prompts cut to N tokens"
            + " (default: ${DEFAULT-VALUE})")
    int maxPrompt;

    @Option(names = "--max-output", paramLabel = "N", defaultValue = "200", description = "with --live: outputs cut to N tokens"
            + " (default: ${DEFAULT-VALUE})")
    int maxOutput;

    @Option(names = "--live-seed", paramLabel = "S", defaultValue = "7", description = "with --live: the workload's seed (the kit's"
            + " token model's seeds come from it; default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--fail-at", paramLabel = "S:W", split = ",", description = "with --live: run --fail-cmd for worker W at S seconds"
            + " into the workload (default with --live-mutants: 3:1)")
    List<String> failAt = new ArrayList<>();

    @Option(names = "--fail-cmd", paramLabel = "CMD", description = "with --live: the command that makes a worker fail, run with"
            + " /bin/sh -c, {worker} replaced by its number (for lumen serve: kill -9 $(cat RUN_DIR/worker-{worker}.pid))")
    String failCmd;

    @Option(names = "--pause-at", paramLabel = "S:W:MS", split = ",", description = "with --live: a gray failure: run --pause-cmd"
            + " for worker W at S seconds into the workload and --resume-cmd MS ms later (the drill resumes every paused worker"
            + " before it ends, whatever happens)")
    List<String> pauseAt = new ArrayList<>();

    @Option(names = "--pause-cmd", paramLabel = "CMD", description = "with --pause-at: the command that stops a worker without killing"
            + " it, {worker} replaced (for lumen serve: kill -STOP $(cat RUN_DIR/worker-{worker}.pid))")
    String pauseCmd;

    @Option(names = "--resume-cmd", paramLabel = "CMD", description = "with --pause-at: the command that lets it go on"
            + " (for lumen serve: kill -CONT $(cat RUN_DIR/worker-{worker}.pid))")
    String resumeCmd;

    @Option(names = "--restart-cmd", paramLabel = "CMD", description = "with --live: the command that restarts a failed worker, run"
            + " --restart-after-ms after --fail-cmd (default: none; the system restarts its workers itself)")
    String restartCmd;

    @Option(names = "--restart-after-ms", paramLabel = "MS", defaultValue = "1000", description = "with --restart-cmd"
            + " (default: ${DEFAULT-VALUE})")
    long restartAfterMs;

    @Option(names = "--fail-when-busy", paramLabel = "N", defaultValue = "0", description = "with --live: aim each fault at a busy"
            + " worker: when it is due, wait until its worker serves at least N requests (at most --busy-wait-ms), then fire"
            + " (default: ${DEFAULT-VALUE}, each fault fires when due)")
    int failWhenBusy;

    @Option(names = "--busy-cmd", paramLabel = "CMD", description = "with --fail-when-busy: a command that prints how many requests"
            + " worker {worker} serves now (default: read GET URL/health, workers[].serving, as lumen serve reports it)")
    String busyCmd;

    @Option(names = "--busy-wait-ms", paramLabel = "MS", defaultValue = "10000", description = "with --fail-when-busy: the longest a"
            + " fault waits for its worker to be busy; then it fires anyway, and the report says so (default: ${DEFAULT-VALUE})")
    long busyWaitMs;

    @Option(names = "--request-timeout-s", paramLabel = "S", defaultValue = "60", description = "with --live: a request open this"
            + " long is left open in the history (default: ${DEFAULT-VALUE})")
    long requestTimeoutS;

    @Option(names = "--history", paramLabel = "FILE", description = "with --live: where the client history goes (default: a new"
            + " temporary file, printed)")
    Path history;

    @Option(names = "--logs", paramLabel = "PATH", description = "with --live: also validate the system's trace (a file) or its"
            + " per-process logs (a directory of *.jsonl) against the spec, once the run is over")
    Path logs;

    @Option(names = "--drop-ack-every", paramLabel = "N", defaultValue = "3", description = "with --live-mutants: every N-th page"
            + " acknowledgement is lost, a network fault the reference survives (default: ${DEFAULT-VALUE}; 0: none)")
    int dropAckEvery;

    @Option(names = "--live-dir", paramLabel = "DIR", description = "with --live-mutants: where each run's history, trace and worker"
            + " output go (default: a new temporary directory, printed)")
    Path liveDir;

    @Option(names = "--partition-at", paramLabel = "S:W:MS", split = ",", description = "with --live: a gray failure: run"
            + " --partition-cmd for worker W at S seconds into the workload (it cuts the worker off from the gateway) and --heal-cmd"
            + " MS ms later (the drill heals every partition before it ends, whatever happens)")
    List<String> partitionAt = new ArrayList<>();

    @Option(names = "--partition-cmd", paramLabel = "CMD", description = "with --partition-at: the command that cuts worker {worker}"
            + " off from the gateway for {ms} ms (for lumen serve --links: a POST to URL/admin/partition?worker={worker}&ms={ms};"
            + " add &lossy=true to lose what is in flight)")
    String partitionCmd;

    @Option(names = "--heal-cmd", paramLabel = "CMD", description = "with --partition-at: the command that joins it again"
            + " (for lumen serve --links: a POST to URL/admin/heal?worker={worker})")
    String healCmd;

    private List<LiveConform.Fault> faults(boolean mutants) {
        List<LiveConform.Fault> out = new ArrayList<>();
        List<String> specs = failAt.isEmpty() && mutants ? List.of("3:1") : failAt;
        for (String f : specs) {
            String[] p = f.split(":");
            try {
                if (p.length != 2) {
                    throw new NumberFormatException();
                }
                double at = Double.parseDouble(p[0]);
                int w = Integer.parseInt(p[1]);
                if (!(at >= 0) || w < 0) {
                    throw new NumberFormatException();
                }
                out.add(new LiveConform.Fault(at * 1000, w));
            } catch (NumberFormatException ex) {
                throw new UserError("--fail-at takes SECONDS:WORKER (3.5:1), found '" + f + "'");
            }
        }
        grayFaults(pauseAt, "--pause-at", "a pause", false, out);
        grayFaults(partitionAt, "--partition-at", "a partition", true, out);
        return out;
    }

    /** The gray failures of {@code option}: SECONDS:WORKER:MS each, undone MS ms after they start. */
    private static void grayFaults(List<String> specs, String option, String what, boolean cut, List<LiveConform.Fault> out) {
        for (String f : specs) {
            String[] p = f.split(":");
            try {
                if (p.length != 3) {
                    throw new NumberFormatException();
                }
                double at = Double.parseDouble(p[0]);
                int w = Integer.parseInt(p[1]);
                double ms = Double.parseDouble(p[2]);
                if (!(at >= 0) || w < 0 || !(ms > 0) || ms > 600_000) {
                    throw new NumberFormatException();
                }
                out.add(new LiveConform.Fault(at * 1000, w, ms, cut));
            } catch (NumberFormatException ex) {
                throw new UserError(option + " takes SECONDS:WORKER:MS, " + what + " of MS ms (above 0, at most 600000), found '" + f + "'");
            }
        }
    }

    private void check(boolean mutants) {
        if (!workload.equals("conv") && !workload.equals("code")) {
            throw new UserError("--workload: conv or code, not '" + workload + "'");
        }
        if (!(rateScale > 0) || !(durationS > 0) || maxPrompt < 1 || maxOutput < 1 || requestTimeoutS < 1 || restartAfterMs < 0
                || dropAckEvery < 0) {
            throw new UserError("--rate-scale, --duration-s, --max-prompt, --max-output and --request-timeout-s must be positive,"
                    + " --restart-after-ms and --drop-ack-every not negative");
        }
        if (failWhenBusy < 0 || busyWaitMs < 0) {
            throw new UserError("--fail-when-busy and --busy-wait-ms must not be negative");
        }
        if (failWhenBusy == 0 && busyCmd != null) {
            throw new UserError("--busy-cmd goes with --fail-when-busy N");
        }
        if (!mutants && !failAt.isEmpty() && failCmd == null) {
            throw new UserError("--fail-at needs --fail-cmd (how to make a worker fail)");
        }
        if (!mutants && !pauseAt.isEmpty() && (pauseCmd == null || resumeCmd == null)) {
            throw new UserError("--pause-at needs --pause-cmd and --resume-cmd (how to stop a worker without killing it, and let it go on)");
        }
        if (mutants && !pauseAt.isEmpty()) {
            throw new UserError("--pause-at is for --live URL: --live-mutants gives every system the same planned stall");
        }
        if (!mutants && !partitionAt.isEmpty() && (partitionCmd == null || healCmd == null)) {
            throw new UserError("--partition-at needs --partition-cmd and --heal-cmd (how to cut a worker off from the gateway, and join"
                    + " it again; for lumen serve --links, POSTs to URL/admin/partition?worker={worker}&ms={ms} and URL/admin/heal?worker={worker})");
        }
        if (mutants && !partitionAt.isEmpty()) {
            throw new UserError("--partition-at is for --live URL: --live-mutants gives every system the same planned stalls");
        }
    }

    /** No progress bar (conform's --quiet). */
    boolean quiet;

    Integer run(String url, PrintWriter out) throws Exception {
        boolean mutants = url == null;
        check(mutants);
        List<LiveConform.Fault> fs = faults(mutants);
        LiveConform.Options o = new LiveConform.Options(url, workload, rateScale, durationS * 1000, maxPrompt, maxOutput, seed, fs, failCmd,
                restartCmd, restartAfterMs, requestTimeoutS * 1000, history, logs).withPauseCommands(pauseCmd, resumeCmd)
                .withPartitionCommands(partitionCmd, healCmd);
        if (mutants) {
            Path dir = liveDir != null ? Files.createDirectories(liveDir) : Files.createTempDirectory("lumen-live-mutants-");
            out.printf("lumen conform --live-mutants: lumen serve (3 workers) and %d seeded bugs, each with the same workload and faults"
                    + " %s; runs in %s%n", LiveMutant.values().length - 1, failAt.isEmpty() ? "(3:1)" : failAt, dir);
            out.flush();
            LiveServer.Settings base = new LiveServer.Settings(Config.defaults("lumen").withWorkers(3), SimpleCostModel.fastReload(), 0,
                    300, LiveCluster.Options.defaults(), requestTimeoutS * 1000, null);
            List<LiveKillTable.Row> rows = LiveKillTable.run(base, o, dropAckEvery, List.of(), dir, out);
            boolean ok = true;
            for (LiveKillTable.Row r : rows) {
                out.printf("  %s: %s%s%n", r.mutant().key, r.mutant().bug, r.ok() ? "" : " -- " + (r.stopped() != null
                        ? lumen.trace.Echo.cut(r.stopped()) : r.mutant() == LiveMutant.NONE ? "the reference failed" : "not caught"));
                String why = LiveKillTable.why(r.result());
                if (!why.isEmpty()) {
                    out.println("      " + why);
                }
                ok &= r.ok();
            }
            out.println(ok ? "every live mutant caught; the reference passed" : "KILL TABLE FAILED");
            out.flush();
            return ok ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
        }
        java.net.URI u;
        try {
            u = new java.net.URI(url);
        } catch (java.net.URISyntaxException ex) {
            throw new UserError("--live: not a URL: '" + url + "' (" + ex.getReason() + ")");
        }
        if (u.getPath() != null && !u.getPath().isEmpty() && !u.getPath().equals("/")) {
            throw new UserError("--live takes the endpoint's base URL, http://HOST:PORT, without a path: not '" + url + "' (the kit adds"
                    + " /v1/completions itself)");
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw new UserError("--live takes the endpoint's base URL, http://HOST:PORT, not '" + url + "'");
        }
        int p = u.getPort() > 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
        try (java.net.Socket probe = new java.net.Socket()) {
            probe.connect(new java.net.InetSocketAddress(u.getHost(), p), 2_000);
        } catch (java.io.IOException ex) {
            throw new UserError("--live: nothing answers at " + u.getHost() + ":" + p + " (" + ex.getMessage() + ")");
        }
        if (history == null) {
            o = o.withHistory(Files.createTempFile("lumen-live-", ".history.jsonl"));
        }
        o = o.withEquivalence(equivalence).withAim(failWhenBusy > 0 ? new LiveConform.Aim(failWhenBusy, busyCmd, busyWaitMs) : null);
        out.printf(Locale.ROOT, "lumen conform --live %s: %s workload at %.1fx for %.0f s, %d faults; history to %s%s%n", url, workload,
                rateScale, durationS, fs.size(), o.history(), equivalence ? "; judged by output equivalence against a failure-free run first" : "");
        out.flush();
        List<lumen.runtime.Arrival> work = LiveConform.workload(o);
        LiveConform.Result r;
        // a soak (a long --duration-s) shows its progress, in requests finished
        try (me.tongfei.progressbar.ProgressBar bar = quiet || System.console() == null ? null
                : new me.tongfei.progressbar.ProgressBarBuilder().setTaskName("live").setInitialMax(work.size() * (equivalence ? 2L : 1L))
                        .setUnit(" requests", 1)
                        .setStyle(me.tongfei.progressbar.ProgressBarStyle.ASCII)
                        .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err)).build()) {
            r = LiveConform.run(o, work, out, () -> {
                if (bar != null) {
                    bar.step();
                }
            });
        } catch (LiveConform.EndpointUnfit ex) {
            throw new UserError("--live: " + ex.getMessage());
        } catch (LiveConform.BaselineUnfit ex) {
            out.println("NOT JUDGED: " + ex.getMessage());
            out.flush();
            return ExitCodes.BAD_INPUT;
        }
        for (String f : r.faults()) {
            out.println("  " + f);
        }
        for (String f : r.faultsNotDone()) {
            if (!r.faults().contains(f)) {
                out.println("  " + f);
            }
        }
        var h = r.history();
        out.printf(Locale.ROOT, "  history: %s (%d requests, %d %s, %d faults; against %s)%s%n", h.verdict(), h.requests(), h.tokens(),
                h.reference().contains(lumen.history.HistoryCheck.BY_TEXT) ? "characters" : "tokens", h.faults(), h.reference(),
                h.ttft() == null || h.tpot() == null ? "" : String.format(Locale.ROOT, "; TTFT mean %.0f ms, TPOT mean %.1f ms", h.ttft().mean(),
                        h.tpot().mean()));
        if (r.logs() != null) {
            out.printf("  logs: %s (%d events)%n", r.logs().verdict(), r.logs().events());
            for (String n : r.logNotes()) {
                out.println("    " + n);
            }
        }
        for (LiveConform.Interruption i : r.interruptions()) {
            out.printf(Locale.ROOT, "  fault on %s: %d request(s) in flight, %d stream(s) stalled across it%s%n", i.fault(), i.inFlight().size(),
                    i.stalled().size(), i.fromLogs() == null ? "" : "; the logs: its Fail interrupted " + i.fromLogs() + " request(s)");
        }
        boolean covered = r.interruptions().isEmpty() || r.exercisedRecovery();
        if (!covered) {
            out.println("  the faults interrupted nothing (" + (r.logs() != null ? "no Fail of a faulted worker in the logs interrupted a request"
                    : "no stream stalled across a fault") + "): this run did not exercise recovery");
        }
        for (String own : r.undriven()) {
            // not a verdict: a failure the system declared on its own is its detector at work, and the spec allows it
            out.println("  a failure the drill did not inject (the system's own suspicion): " + own);
        }
        String why = LiveKillTable.why(r);
        if (!why.isEmpty()) {
            out.println("  " + why);
        }
        if (!r.faultsNotDone().isEmpty()) {
            // not the system's failure: the run did not do what it was asked to, so it says nothing of recovery
            out.println("NOT JUDGED: " + r.faultsNotDone().size() + " fault command(s) or load reading(s) failed or never ran (listed"
                    + " above), so the run did not test the faults it was asked to (check --fail-cmd, --restart-cmd and --busy-cmd, and"
                    + " that {worker} names a running worker)");
            out.flush();
            return ExitCodes.BAD_INPUT;
        }
        if (r.passed() && !covered && requireCoverage) {
            out.println("FAIL: --require-coverage, and the faults interrupted nothing");
            out.flush();
            return ExitCodes.DISAGREEMENT;
        }
        out.println(r.passed() ? (covered ? "PASS" : "PASS, but no recovery was exercised") : "FAIL: caught by " + r.caughtBy());
        out.flush();
        return r.passed() ? ExitCodes.OK : ExitCodes.DISAGREEMENT;
    }
}
