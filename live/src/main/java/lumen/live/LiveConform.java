package lumen.live;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.runtime.Arrival;
import lumen.sim.AzureReplay;
import lumen.trace.TraceFormatException;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * {@code lumen conform --live}: drives any OpenAI-compatible endpoint with a workload whose request
 * lengths come from the Azure LLM inference traces, injects faults through commands the user gives
 * (a worker's number substituted for {@code {worker}}), records what the clients saw as a client
 * history, and judges it ({@link HistoryCheck}, the kit's token model); with the system's logs it
 * also validates them against the spec. Everything is bounded: the workload by its duration, each
 * request by a timeout, each fault command by {@link #COMMAND_TIMEOUT_S}.
 */
public final class LiveConform {
    /** The longest a fault command may run, s. */
    static final long COMMAND_TIMEOUT_S = 30;
    /** The longest the probe before the workload may take, at least, ms. */
    static final long PROBE_MS = 30_000;
    /** The longest the drill waits, after its clients finish, for the system's logs to show a finished run, ms. */
    static final long SETTLE_MS = 30_000;

    /**
     * A fault: at {@code atMs} after the workload starts, on worker {@code worker}: a crash (its
     * fail command), or, with {@code pauseMs} above 0, a gray failure undone {@code pauseMs} later,
     * whatever happens meanwhile: a pause (its pause command, then its resume command) or, with
     * {@code cut}, a partition of the worker from the gateway (its partition command, then its heal
     * command).
     */
    public record Fault(double atMs, int worker, double pauseMs, boolean cut) {
        public Fault(double atMs, int worker) {
            this(atMs, worker, 0, false);
        }

        public Fault(double atMs, int worker, double pauseMs) {
            this(atMs, worker, pauseMs, false);
        }

        /** A gray failure the drill undoes: a pause or a partition. */
        public boolean paused() {
            return pauseMs > 0;
        }

        /** The commands' names: what starts the fault, and what undoes it. */
        String startName() {
            return !paused() ? "fail" : cut ? "partition" : "pause";
        }

        String undoName() {
            return !paused() ? "restart" : cut ? "heal" : "resume";
        }
    }

    /**
     * A fault aimed at a busy worker: when it is due, the drill waits until its worker serves at
     * least {@code streams} requests, reading the worker's load every {@link #AIM_POLL_MS} ms with
     * {@code cmd} ({@code {worker}} replaced; it prints an integer) or, when {@code cmd} is null,
     * from the endpoint's {@code GET /health} ({@code workers[].serving}, as lumen serve reports it),
     * for at most {@code waitMs}; then it fires, and the report says what the worker served.
     */
    public record Aim(int streams, String cmd, long waitMs) {}

    /** How often an aimed fault reads its worker's load, ms. */
    static final long AIM_POLL_MS = 20;

    /**
     * @param workload   conv or code (the Azure trace the lengths and arrival times come from)
     * @param rateScale  time compression of the trace's arrivals (more requests per second above 1)
     * @param durationMs the arrivals within this long are sent
     * @param maxPrompt  prompts are cut to this many tokens
     * @param maxOutput  outputs are cut to this many tokens
     * @param failCmd    run with /bin/sh -c at each fault, {worker} replaced
     * @param restartCmd run that long after each fault (null: the system restarts its workers itself)
     * @param logs       the system's trace, or a directory of its per-process logs (null: none)
     */
    public record Options(String url, String workload, double rateScale, double durationMs, int maxPrompt, int maxOutput, long seed,
                          List<Fault> faults, String failCmd, String restartCmd, long restartAfterMs, long requestTimeoutMs,
                          Path history, Path logs, boolean equivalence, Aim aim, String pauseCmd, String resumeCmd, String partitionCmd,
                          String healCmd) {
        public Options(String url, String workload, double rateScale, double durationMs, int maxPrompt, int maxOutput, long seed,
                       List<Fault> faults, String failCmd, String restartCmd, long restartAfterMs, long requestTimeoutMs,
                       Path history, Path logs, boolean equivalence, Aim aim) {
            this(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs, requestTimeoutMs,
                    history, logs, equivalence, aim, null, null, null, null);
        }

        /**
         * The same with the commands of a pause fault ({@code --pause-at}): {@code pause} stops the
         * worker ({@code {worker}} replaced; for lumen serve, kill -STOP on its pid file) and
         * {@code resume} lets it go on.
         */
        public Options withPauseCommands(String pause, String resume) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs,
                    requestTimeoutMs, history, logs, equivalence, aim, pause, resume, partitionCmd, healCmd);
        }

        /**
         * The same with the commands of a partition fault ({@code --partition-at}): {@code partition}
         * cuts the worker off from the gateway ({@code {worker}} and {@code {ms}}, the partition's
         * length, replaced; for lumen serve, a call to its {@code POST /admin/partition}) and
         * {@code heal} joins it again.
         */
        public Options withPartitionCommands(String partition, String heal) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs,
                    requestTimeoutMs, history, logs, equivalence, aim, pauseCmd, resumeCmd, partition, heal);
        }

        public Options(String url, String workload, double rateScale, double durationMs, int maxPrompt, int maxOutput, long seed,
                       List<Fault> faults, String failCmd, String restartCmd, long restartAfterMs, long requestTimeoutMs, Path history, Path logs) {
            this(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs, requestTimeoutMs,
                    history, logs, false, null);
        }

        /** The same, each fault aimed at a busy worker ({@code --fail-when-busy}); null: each fires when due. */
        public Options withAim(Aim a) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs,
                    requestTimeoutMs, history, logs, equivalence, a, pauseCmd, resumeCmd, partitionCmd, healCmd);
        }

        /** The same, its history recorded to {@code h}. */
        public Options withHistory(Path h) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs,
                    requestTimeoutMs, h, logs, equivalence, aim, pauseCmd, resumeCmd, partitionCmd, healCmd);
        }

        /**
         * The same, judged by output equivalence ({@code --reference equivalence}): the workload runs
         * first with no fault, and each request's output under the faults must equal its failure-free
         * output (token ids, or the text alone when the endpoint returns no token ids).
         */
        public Options withEquivalence(boolean e) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults, failCmd, restartCmd, restartAfterMs,
                    requestTimeoutMs, history, logs, e, aim, pauseCmd, resumeCmd, partitionCmd, healCmd);
        }

        /** Where the failure-free run's history goes under equivalence: beside the history, ".failure-free" before its extension. */
        public Path baselineHistory() {
            String n = history.getFileName().toString();
            int dot = n.endsWith(".jsonl") ? n.length() - ".jsonl".length() : n.length();
            return history.resolveSibling(n.substring(0, dot) + ".failure-free.jsonl");
        }

        /**
         * The same workload (with {@code seed}) and faults against {@code lumen serve} at {@code url}, whose
         * workers' pid files are in {@code runDir} (a fault is their kill -9; they restart by themselves),
         * the history recorded to {@code h}, no logs.
         */
        public Options againstServe(String url, Path runDir, long seed, Path h) {
            return new Options(url, workload, rateScale, durationMs, maxPrompt, maxOutput, seed, faults,
                    "kill -9 $(cat '" + runDir + "'/worker-{worker}.pid)", null, 0, requestTimeoutMs, h, null)
                    .withPauseCommands("kill -STOP $(cat '" + runDir + "'/worker-{worker}.pid)", "kill -CONT $(cat '" + runDir + "'/worker-{worker}.pid)")
                    .withPartitionCommands(adminCall(url, "partition?worker={worker}&ms={ms}"), adminCall(url, "heal?worker={worker}"));
        }
    }

    /**
     * A shell command that posts to lumen serve's {@code /admin/} endpoint {@code what} at
     * {@code url} with python3 (a failure, an answer other than 2xx included, exits non-zero).
     */
    public static String adminCall(String url, String what) {
        return "python3 -c \"import sys, urllib.request as u; u.urlopen(u.Request(sys.argv[1], method='POST'), timeout=5)\" '"
                + url + "/admin/" + what + "'";
    }

    /**
     * What the run showed: the history's verdict, the logs' (null when none were given), the faults
     * as run, and those whose command failed (then the run tested less than it was asked to, and
     * does not pass, whatever the system did).
     */
    public record Result(HistoryCheck.Result history, ValidationResult logs, List<String> faults, int requests, double wallMs,
                         List<String> faultsNotDone, List<String> undriven, List<Interruption> interruptions, List<String> logNotes) {
        public Result(HistoryCheck.Result history, ValidationResult logs, List<String> faults, int requests, double wallMs,
                      List<String> faultsNotDone) {
            this(history, logs, faults, requests, wallMs, faultsNotDone, List.of(), List.of(), List.of());
        }

        /** The same, with the failures the logs show that the drill did not inject ({@link #undriven}). */
        public Result withUndriven(List<String> u) {
            return new Result(history, logs, faults, requests, wallMs, faultsNotDone, List.copyOf(u), interruptions, logNotes);
        }

        /** The same, with what each fault interrupted. */
        public Result withInterruptions(List<Interruption> i) {
            return new Result(history, logs, faults, requests, wallMs, faultsNotDone, undriven, List.copyOf(i), logNotes);
        }

        /** The same, with what the report says of how the logs were judged (when, and what they held). */
        public Result withLogNotes(List<String> n) {
            return new Result(history, logs, faults, requests, wallMs, faultsNotDone, undriven, interruptions, List.copyOf(n));
        }

        /**
         * Whether some fault interrupted a request: by the logs' Fail events where the logs were given,
         * else by the streams that stalled across it. False when the drill injected no fault.
         */
        public boolean exercisedRecovery() {
            return interruptions.stream().anyMatch(Interruption::interruptedSome);
        }

        public boolean passed() {
            return faultsNotDone.isEmpty() && history.verdict() == Verdict.ACCEPTED && (logs == null || logs.verdict() == Verdict.ACCEPTED);
        }

        /** Which checks caught the system, in words: "history", "logs", "history and logs", or "none". */
        public String caughtBy() {
            boolean h = history.verdict() != Verdict.ACCEPTED;
            boolean l = logs != null && logs.verdict() != Verdict.ACCEPTED;
            return h && l ? "history and logs" : h ? "history" : l ? "logs" : "none";
        }
    }

    /**
     * What one fault did to the requests: from the client's view, those in flight at it (sent, not
     * finished) and, among them, the streams that stalled across it (the gap between the chunks
     * around the fault at least {@link #STALL_FACTOR} times the request's median gap between chunks,
     * and at least {@link #STALL_MIN_MS}; a stream with no chunk after the fault stalled too); from
     * the logs where given, the requests the worker's matching Fail interrupted (null without logs).
     */
    public record Interruption(String fault, List<String> inFlight, List<String> stalled, Integer fromLogs) {
        public boolean interruptedSome() {
            return fromLogs != null ? fromLogs > 0 : !stalled.isEmpty();
        }
    }

    /** A stream stalled across a fault: its gap there at least this many times its median gap between chunks. */
    static final double STALL_FACTOR = 4;
    /** ... and at least this long, ms. */
    static final double STALL_MIN_MS = 20;

    /** What each fault of the history interrupted, with the logs' Fail events ({@link #loggedFails}) where given (null: none). */
    public static List<Interruption> interruptions(History h, List<LoggedFail> logged) {
        return interruptions(h, logged, Map.of());
    }

    /**
     * The same, each fault's window running from its time in the history to when its command
     * finished ({@code until}: the history's fault time, ms, to the command's end; a fault not in it
     * is a moment): a fault command takes effect when it acts, not when it starts, so a stream that
     * stalls anywhere in that window stalled across the fault.
     */
    public static List<Interruption> interruptions(History h, List<LoggedFail> logged, Map<Double, Double> until) {
        Map<String, List<History.Chunk>> chunks = new java.util.HashMap<>();
        for (History.Chunk c : h.chunks) {
            chunks.computeIfAbsent(c.request(), k -> new ArrayList<>()).add(c);
        }
        // per worker, its Fail events' interrupted counts in the order of the logs: the n-th fault on a worker is its n-th Fail
        Map<Integer, java.util.ArrayDeque<Integer>> byWorker = new java.util.HashMap<>();
        if (logged != null) {
            for (LoggedFail lf : logged) {
                byWorker.computeIfAbsent(lf.worker(), k -> new java.util.ArrayDeque<>()).addLast(lf.interrupted());
            }
        }
        List<Interruption> out = new ArrayList<>();
        List<History.Fault> faults = new ArrayList<>(h.faults);
        faults.sort(java.util.Comparator.comparingDouble(History.Fault::t));
        for (History.Fault f : faults) {
            double tf = f.t();
            double tEnd = Math.max(tf, until.entrySet().stream().filter(e -> Math.abs(e.getKey() - tf) < 1).mapToDouble(Map.Entry::getValue)
                    .findFirst().orElse(tf));
            List<String> inFlight = new ArrayList<>();
            List<String> stalled = new ArrayList<>();
            for (History.Request r : h.requests.values()) {
                List<History.Chunk> cs = chunks.getOrDefault(r.id(), List.of());
                double done = cs.stream().filter(History.Chunk::finishes).mapToDouble(History.Chunk::t).min().orElse(Double.POSITIVE_INFINITY);
                if (r.t() > tf || done <= tf) {
                    continue;
                }
                inFlight.add(r.id());
                if (stalledAcross(cs, r.t(), tf, tEnd)) {
                    stalled.add(r.id());
                }
            }
            Integer fromLogs = null;
            if (logged != null) {
                java.util.ArrayDeque<Integer> q = byWorker.get(workerOf(f.target()));
                fromLogs = q == null || q.isEmpty() ? 0 : q.pollFirst();
            }
            out.add(new Interruption(String.format(Locale.ROOT, "worker %s at %.0f ms%s", f.target(), tf,
                    tEnd > tf + 1 ? String.format(Locale.ROOT, " (its command ran until %.0f ms)", tEnd) : ""), inFlight, stalled, fromLogs));
        }
        return out;
    }

    /**
     * Whether a stream sent at {@code sent} with chunks {@code cs} stalled across a fault whose
     * command ran from {@code tf} to {@code tEnd}: a gap between its chunks (or from its sending to
     * its first chunk) that overlaps that window is at least {@link #STALL_FACTOR} times its median
     * gap between chunks elsewhere, and at least {@link #STALL_MIN_MS}; a stream with no chunk after
     * {@code tf} stalled too.
     */
    static boolean stalledAcross(List<History.Chunk> cs, double sent, double tf, double tEnd) {
        List<Double> elsewhere = new ArrayList<>();
        double worst = 0;
        double prev = sent;
        boolean first = true;
        for (History.Chunk c : cs) {
            if (c.tokens().length == 0 && !c.finishes()) {
                continue;
            }
            double gap = c.t() - prev;
            if (prev <= tEnd && c.t() > tf) {
                worst = Math.max(worst, gap);
            } else if (!first) {
                elsewhere.add(gap);
            }
            prev = c.t();
            first = false;
        }
        if (prev <= tf) {
            return true;
        }
        elsewhere.sort(null);
        double median = elsewhere.isEmpty() ? 0 : elsewhere.get(elsewhere.size() / 2);
        return worst >= Math.max(STALL_FACTOR * median, STALL_MIN_MS);
    }

    /** The worker a fault's target names, or -1 when it is not a worker number (the logs cannot say then). */
    private static int workerOf(String target) {
        try {
            return Integer.parseInt(target);
        } catch (NumberFormatException ex) {
            return -1;
        }
    }

    /** A Fail event of the system's logs: its worker, where it is ({@code file:line (t=...)}), and how many requests it interrupted. */
    public record LoggedFail(int worker, String at, int interrupted) {}

    /** Every Fail event of the system's logs (a trace file, or per-process logs in a directory), in the order of the logs. */
    public static List<LoggedFail> loggedFails(Path logs) throws IOException {
        List<LoggedFail> out = new ArrayList<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Path f : logFiles(logs)) {
            List<String> lines = Files.readAllLines(f, java.nio.charset.StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                if (!l.contains("\"Fail\"")) {
                    continue;
                }
                com.fasterxml.jackson.databind.JsonNode n;
                try {
                    n = json.readTree(l);
                } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
                    continue; // the logs' verdict names a line that is not JSON
                }
                if (n != null && "Fail".equals(n.path("type").asText()) && n.path("worker").canConvertToInt()) {
                    out.add(new LoggedFail(n.path("worker").asInt(), f.getFileName() + ":" + (i + 1) + (n.has("t") ? " (t=" + n.get("t").asText() + ")" : ""),
                            n.path("interrupted").size()));
                }
            }
        }
        return out;
    }

    /** The log files: the file itself, or every *.jsonl of a directory, in name order. */
    private static List<Path> logFiles(Path logs) throws IOException {
        if (!Files.isDirectory(logs)) {
            return List.of(logs);
        }
        try (var st = Files.list(logs)) {
            return st.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList();
        }
    }

    /** The endpoint does not return what the kit judges (found before the workload starts). */
    public static final class EndpointUnfit extends RuntimeException {
        EndpointUnfit(String message) {
            super(message, null, false, false);
        }
    }

    private LiveConform() {}

    /** The workload: the trace's requests in the duration, lengths cut to the caps. */
    public static List<Arrival> workload(Options o) {
        List<Arrival> out = new ArrayList<>();
        for (Arrival a : new AzureReplay(o.workload(), o.rateScale()).arrivals(o.durationMs(), new SplittableRandom(o.seed()))) {
            out.add(new Arrival(a.id(), a.atMs(), Math.min(a.promptLen(), o.maxPrompt()), Math.min(a.outLen(), o.maxOutput()),
                    a.seed() & Long.MAX_VALUE));
        }
        return out;
    }

    /** Runs the workload and the faults against the endpoint; the history goes to {@link Options#history}. */
    public static Result run(Options o, java.io.PrintWriter progress) throws IOException, InterruptedException {
        return run(o, workload(o), progress);
    }

    /** The same with these requests (their times, lengths and seeds) instead of {@link #workload}'s. */
    public static Result run(Options o, List<Arrival> work, java.io.PrintWriter progress) throws IOException, InterruptedException {
        return run(o, work, progress, () -> { });
    }

    /** The same, calling {@code finished} as each request's stream ends (a progress bar). */
    public static Result run(Options o, List<Arrival> work, java.io.PrintWriter progress, Runnable finished)
            throws IOException, InterruptedException {
        if (work.isEmpty()) {
            throw new IllegalArgumentException("the workload has no request in " + o.durationMs() + " ms at rate scale " + o.rateScale());
        }
        // the probe has its own bound: the workload's request timeout may be set short on purpose
        HistoryClient.Probe probe = new HistoryClient(o.url(), OutputStream.nullOutputStream(),
                Duration.ofMillis(Math.max(o.requestTimeoutMs(), PROBE_MS))).probe();
        if (probe.unfit() != null && !(o.equivalence() && probe.text())) {
            boolean noIds = probe.unfit().contains("token_ids");
            throw new EndpointUnfit("the endpoint at " + o.url() + " cannot be judged: " + probe.unfit() + "." + (noIds ? " The kit's token"
                    + " model judges the tokens a client receives, so each streamed chunk must carry the generated token ids in"
                    + " choices[0].token_ids (an array of integers) beside its text. Many OpenAI-compatible servers return only text unless"
                    + " asked: look for a request field or a server option that returns token ids (for example vLLM's"
                    + " \"return_token_ids\": true), or put a thin proxy in front that adds them. A system with a real model can instead be"
                    + " judged by output equivalence (--reference equivalence): each request's output, or its text alone where the"
                    + " endpoint streams text, under the faults against its failure-free run." : "")
                    + " Nothing was sent to the workload and no fault was injected.");
        }
        if (o.aim() != null) {
            // the load an aimed fault waits on must be readable before anything is sent
            for (Fault f : o.faults()) {
                try {
                    load(o, f.worker());
                } catch (IOException ex) {
                    throw new EndpointUnfit("--fail-when-busy: the load of worker " + f.worker() + " cannot be read: " + ex.getMessage()
                            + ". Nothing was sent to the workload and no fault was injected.");
                }
            }
        }
        History baseline = null;
        if (o.equivalence()) {
            // the reference: the same workload, with no fault, recorded the same way
            progress.println("lumen conform --live: the failure-free run first (--reference equivalence), history to " + o.baselineHistory()
                    + (probe.text() ? "; the endpoint streams text without token ids, so outputs are compared by their text" : ""));
            progress.flush();
            drive(o, List.of(), work, o.baselineHistory(), progress, finished);
            baseline = read(o.baselineHistory());
            HistoryCheck.Result self = HistoryCheck.check(baseline, HistoryCheck.Reference.of(baseline), null, true);
            if (self.verdict() != Verdict.ACCEPTED) {
                throw new BaselineUnfit("the failure-free run, the reference under --reference equivalence, did not finish every request"
                        + " whole, with no fault injected: " + (self.finding() != null ? "line " + self.line() + ": " + self.finding().message()
                        : self.verdict().name()) + " (" + o.baselineHistory() + "). Outputs under faults cannot be compared with it;"
                        + " no fault was injected.");
            }
        }
        Driven d = drive(o, o.faults(), work, o.history(), progress, finished);
        List<String> faultLog = d.faultLog();
        List<String> notDone = d.notDone();
        double wall = d.wallMs();
        History h = read(o.history());
        HistoryCheck.Result hr = baseline != null ? HistoryCheck.check(h, HistoryCheck.Reference.of(baseline), baseline, true)
                : HistoryCheck.check(h, HistoryCheck.Reference.kit(lumen.core.KitTokens.VOCAB), null, true);
        ValidationResult lr = null;
        List<String> logNotes = new ArrayList<>();
        if (o.logs() != null) {
            lr = settled(o.logs(), SETTLE_MS, logNotes);
            long arrived = lr.byType().getOrDefault("Arrive", 0L);
            if (arrived > work.size() + 1) {
                logNotes.add("the logs hold " + arrived + " requests and this drill sent " + work.size() + " (and one probe): they hold"
                        + " earlier runs against the same server too, and were judged as a whole");
            }
        }
        // the logs' Fail events, read once for both reports
        List<LoggedFail> fails = o.logs() == null ? null : loggedFails(o.logs());
        return new Result(hr, lr, List.copyOf(faultLog), work.size(), wall, List.copyOf(notDone))
                .withUndriven(fails == null ? List.of() : undriven(o.faults(), fails))
                .withInterruptions(interruptions(h, fails, d.until())).withLogNotes(logNotes);
    }

    /**
     * Waits, for at most the aim's bound, until the fault's worker serves at least the aimed number
     * of requests, and says in the fault log what it served when the fault fired. A load that cannot
     * be read is a command not done (the drill did not aim as asked); the fault then fires at once.
     */
    private static void aim(Options o, Fault f, HistoryClient client, List<String> log, List<String> notDone) {
        Aim a = o.aim();
        double t0 = client.nowMs();
        int most = -1;
        int now;
        while (true) {
            try {
                now = load(o, f.worker());
            } catch (IOException ex) {
                String line = String.format(Locale.ROOT, "aim worker %d at %.0f ms: its load could not be read: %s", f.worker(), client.nowMs(),
                        ex.getMessage());
                log.add(line);
                notDone.add(line);
                return;
            }
            most = Math.max(most, now);
            if (now >= a.streams() || client.nowMs() - t0 >= a.waitMs()) {
                break;
            }
            try {
                Thread.sleep(AIM_POLL_MS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        log.add(now >= a.streams()
                ? String.format(Locale.ROOT, "aim worker %d: it served %d request(s) at %.0f ms, after a wait of %.0f ms for %d", f.worker(), now,
                        client.nowMs(), client.nowMs() - t0, a.streams())
                : String.format(Locale.ROOT, "aim worker %d: the wait for %d request(s) on it ran out after %.0f ms (it served at most %d);"
                        + " the fault fired anyway, at %.0f ms", f.worker(), a.streams(), client.nowMs() - t0, most, client.nowMs()));
    }

    /** How many requests worker {@code w} serves now: from the aim's command, or from the endpoint's /health. */
    static int load(Options o, int w) throws IOException {
        String out;
        if (o.aim().cmd() != null) {
            String cmd = o.aim().cmd().replace("{worker}", Integer.toString(w));
            Ran r = shell(cmd, 5);
            if (!r.done() || r.exit() != 0) {
                throw new IOException("'" + cmd + "' " + (r.done() ? "exited " + r.exit() : "did not finish in 5 s")
                        + (r.output().isEmpty() ? "" : " (" + lumen.trace.Echo.cut(r.output()) + ")"));
            }
            out = r.output().trim();
            int n;
            try {
                n = Integer.parseInt(out);
            } catch (NumberFormatException ex) {
                n = -1;
            }
            if (n < 0) {
                throw new IOException("'" + cmd + "' printed " + lumen.trace.Echo.cut(out) + ", not a number of requests (an integer >= 0)");
            }
            return n;
        }
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try {
            var res = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(o.url() + "/health")).timeout(Duration.ofSeconds(2))
                    .GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 200) {
                throw new IOException("GET " + o.url() + "/health answered HTTP " + res.statusCode() + " (for a system other than lumen"
                        + " serve give --busy-cmd)");
            }
            com.fasterxml.jackson.databind.JsonNode n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(res.body());
            for (com.fasterxml.jackson.databind.JsonNode x : n.path("workers")) {
                if (x.path("worker").asInt(-1) == w && x.path("serving").canConvertToInt()) {
                    return x.path("serving").asInt();
                }
            }
            throw new IOException("GET " + o.url() + "/health has no workers[] entry with \"worker\": " + w + " and a \"serving\" count"
                    + " (lumen serve reports one; for another system give --busy-cmd)");
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new IOException("GET " + o.url() + "/health is not JSON (for a system other than lumen serve give --busy-cmd)");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** A shell command's outcome: whether it finished within its bound, its exit status and its output (at most 4 KB). */
    record Ran(boolean done, int exit, String output) {}

    static Ran shell(String cmd, long timeoutS) throws IOException {
        Process p = new ProcessBuilder("/bin/sh", "-c", cmd).redirectErrorStream(true).start();
        try {
            boolean done = p.waitFor(timeoutS, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly();
                return new Ran(false, -1, "");
            }
            return new Ran(true, p.exitValue(), new String(p.getInputStream().readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8).trim());
        } catch (InterruptedException ex) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** What one pass of the workload did: the fault commands as run, those not done, its wall time (ms). */
    private record Driven(List<String> faultLog, List<String> notDone, double wallMs, Map<Double, Double> until) {}

    /** One pass of the workload against the endpoint with these faults, its history recorded to {@code history}. */
    private static Driven drive(Options o, List<Fault> faults, List<Arrival> work, Path history, java.io.PrintWriter progress,
            Runnable finished) throws IOException, InterruptedException {
        List<String> faultLog = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> notDone = new java.util.concurrent.CopyOnWriteArrayList<>();
        // each fault's time in the history, and when its command finished
        Map<Double, Double> until = new java.util.concurrent.ConcurrentHashMap<>();
        long start = System.nanoTime();
        try (OutputStream hist = Files.newOutputStream(history)) {
            HistoryClient client = new HistoryClient(o.url(), hist, Duration.ofMillis(o.requestTimeoutMs()));
            ExecutorService senders = Executors.newFixedThreadPool(Math.min(256, work.size()));
            ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
            // each fault on a thread of its own, so that an aimed fault waiting for its worker to be busy
            // holds up neither the requests' arrivals nor another fault due at the same time
            ScheduledExecutorService faulter = Executors.newScheduledThreadPool(Math.max(1, faults.size()));
            // a restart runs --restart-after-ms after its fault fired, which an aimed fault may delay; a resume, its pause's length after it
            ScheduledExecutorService restarts = Executors.newScheduledThreadPool(Math.max(1, faults.size()));
            // the pauses not resumed yet: each is resumed when due, and whatever is left when the drill ends (or the JVM exits)
            java.util.Set<Integer> paused = java.util.concurrent.ConcurrentHashMap.newKeySet();
            Runnable resumeAll = () -> {
                for (Integer i : List.copyOf(paused)) {
                    if (paused.remove(i)) {
                        command(faults.get(i).undoName(), undo(o, faults.get(i)), faults.get(i), client.nowMs(), faultLog, notDone);
                    }
                }
            };
            Thread onExit = new Thread(resumeAll, "lumen-resume-paused");
            Runtime.getRuntime().addShutdownHook(onExit);
            try {
                for (Arrival a : work) {
                    clock.schedule(() -> senders.submit(() -> {
                        client.send(Integer.toString(a.id()), a.promptLen(), a.outLen(), a.seed());
                        finished.run();
                    }), (long) (a.atMs() * 1000), TimeUnit.MICROSECONDS);
                }
                // every fault is scheduled now, before its scheduler is shut down (a task cannot schedule
                // another then); a restart is scheduled by its fault's task, once the fault has fired, on a
                // scheduler shut down only after every fault's task has ended
                java.util.Set<String> ran = java.util.concurrent.ConcurrentHashMap.newKeySet();
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < faults.size(); i++) {
                    Fault f = faults.get(i);
                    String failKey = "fail " + i;
                    expected.add(failKey);
                    String restartKey = f.undoName() + " " + i;
                    if (f.paused() || o.restartCmd() != null) {
                        expected.add(restartKey);
                    }
                    int index = i;
                    faulter.schedule(() -> guarded(failKey, f, client, ran, notDone, () -> {
                        if (o.aim() != null) {
                            aim(o, f, client, faultLog, notDone);
                        }
                        double at = client.fault(f.worker() + (f.paused() ? String.format(Locale.ROOT, " (%s for %.0f ms)",
                                f.cut() ? "partitioned" : "paused", f.pauseMs()) : ""));
                        if (f.paused()) {
                            paused.add(index);
                        }
                        command(f.startName(), start(o, f), f, client.nowMs(), faultLog, notDone);
                        until.put(at, client.nowMs());
                        if (f.paused()) {
                            restarts.schedule(() -> guarded(restartKey, f, client, ran, notDone, () -> {
                                if (paused.remove(index)) {
                                    command(f.undoName(), undo(o, f), f, client.nowMs(), faultLog, notDone);
                                }
                            }), (long) f.pauseMs(), TimeUnit.MILLISECONDS);
                        } else if (o.restartCmd() != null) {
                            restarts.schedule(() -> guarded(restartKey, f, client, ran, notDone,
                                    () -> command("restart", o.restartCmd(), f, client.nowMs(), faultLog, notDone)), o.restartAfterMs(),
                                    TimeUnit.MILLISECONDS);
                        }
                    }), (long) (f.atMs() * 1000), TimeUnit.MICROSECONDS);
                }
                double lastAt = work.get(work.size() - 1).atMs();
                double lastFault = faults.stream().mapToDouble(x -> x.atMs() + x.pauseMs()).max().orElse(0) + o.restartAfterMs()
                        + (o.aim() == null ? 0 : o.aim().waitMs());
                long boundMs = (long) Math.max(lastAt, lastFault) + o.requestTimeoutMs() + 5_000;
                clock.shutdown();
                faulter.shutdown();
                faulter.awaitTermination(boundMs, TimeUnit.MILLISECONDS);
                clock.awaitTermination(boundMs, TimeUnit.MILLISECONDS);
                // the last fault's restart is due --restart-after-ms after it fired, and runs for at most the command bound
                restarts.shutdown();
                long longestPause = (long) faults.stream().mapToDouble(Fault::pauseMs).max().orElse(0);
                restarts.awaitTermination(Math.max(o.restartAfterMs(), longestPause) + COMMAND_TIMEOUT_S * 1000 + 1_000, TimeUnit.MILLISECONDS);
                for (int i = 0; i < expected.size(); i++) {
                    String key = expected.get(i);
                    if (!ran.contains(key)) {
                        Fault f = faults.get(Integer.parseInt(key.substring(key.indexOf(' ') + 1)));
                        notDone.add(String.format(Locale.ROOT, "%s worker %d (due at %.0f ms): never ran, the drill ended first (after %d ms)",
                                key.startsWith("fail ") ? f.startName() : key.substring(0, key.indexOf(' ')), f.worker(), f.atMs() + (key.startsWith("restart") ? o.restartAfterMs()
                                        : key.startsWith("fail ") ? 0 : f.pauseMs()), boundMs));
                    }
                }
                senders.shutdown();
                long left = boundMs - (long) ((System.nanoTime() - start) / 1e6);
                if (!senders.awaitTermination(Math.max(1, left), TimeUnit.MILLISECONDS)) {
                    progress.println("lumen conform --live: requests still open after " + boundMs + " ms; the history shows them open");
                }
            } finally {
                senders.shutdownNow();
                clock.shutdownNow();
                faulter.shutdownNow();
                restarts.shutdownNow();
                // no worker is left paused by the drill, whatever happened: a pause not resumed yet is resumed now
                resumeAll.run();
                try {
                    Runtime.getRuntime().removeShutdownHook(onExit);
                } catch (IllegalStateException ex) {
                    // the JVM is exiting: the hook runs (and finds nothing left)
                }
            }
        }
        return new Driven(faultLog, notDone, (System.nanoTime() - start) / 1e6, Map.copyOf(until));
    }

    /** A history the drill recorded. */
    private static History read(Path p) throws IOException {
        try (var in = Files.newInputStream(p)) {
            return History.read(in, p.toString());
        } catch (TraceFormatException ex) {
            throw new IllegalStateException("the recorded history is malformed (a bug of the recorder): " + ex.getMessage(), ex);
        }
    }

    /** The failure-free run under --reference equivalence did not finish every request whole: nothing to compare with. */
    public static final class BaselineUnfit extends RuntimeException {
        BaselineUnfit(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The logs judged once the system has settled: the clients have finished, but a failed worker
     * may still be coming back, and logs judged then are INCOMPLETE for no fault of the system. The
     * logs are judged again every 250 ms while INCOMPLETE, for at most {@code boundMs}; how long it
     * took, and whether the bound ran out, goes to {@code notes}.
     */
    static ValidationResult settled(Path logs, long boundMs, List<String> notes) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        ValidationResult lr = validateLogs(logs);
        while (lr.verdict() == Verdict.INCOMPLETE && (System.nanoTime() - t0) / 1e6 < boundMs) {
            Thread.sleep(250);
            lr = validateLogs(logs);
        }
        double waited = (System.nanoTime() - t0) / 1e6;
        notes.add(String.format(Locale.ROOT, "the logs were judged %.1f s after the clients finished%s", waited / 1000,
                lr.verdict() == Verdict.INCOMPLETE ? ", when the wait for the system to settle ran out (" + boundMs / 1000.0 + " s)"
                        : ", once they showed a finished run (the wait is bounded by " + boundMs / 1000.0 + " s)"));
        return lr;
    }

    /**
     * The failures the system's logs show that the drill did not inject: per worker, when the logs
     * hold more {@code Fail} events of it than the drill injected faults on it, every one of its
     * Fail lines, said as the system's own suspicions (a failure detector that failed a live worker,
     * or a crash the drill did not cause). Empty when each worker failed at most as often as the
     * drill made it.
     */
    public static List<String> undriven(List<Fault> injected, List<LoggedFail> logged) {
        Map<Integer, List<String>> fails = new java.util.TreeMap<>();
        for (LoggedFail lf : logged) {
            fails.computeIfAbsent(lf.worker(), k -> new ArrayList<>()).add(lf.at());
        }
        List<String> out = new ArrayList<>();
        fails.forEach((w, at) -> {
            long made = injected.stream().filter(x -> x.worker() == w).count();
            if (at.size() > made) {
                out.add(String.format(Locale.ROOT, "worker %d failed %d time(s) in the logs, %d of them injected by the drill: %s", w,
                        at.size(), made, String.join(", ", at)));
            }
        });
        return out;
    }

    /** The system's trace, or its per-process logs (every *.jsonl in a directory), against the spec. */
    public static ValidationResult validateLogs(Path logs) throws IOException {
        if (!Files.isDirectory(logs)) {
            byte[] t = Files.readAllBytes(logs);
            return Validator.validate(new ByteArrayInputStream(t), logs.toString(), Validator.Options.defaults().withComplete(true));
        }
        List<byte[]> bytes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Path p : logFiles(logs)) {
            bytes.add(Files.readAllBytes(p));
            names.add(p.toString());
        }
        try {
            return lumen.validate.ProcessLogs.validate(bytes, names, Validator.Options.defaults().withComplete(true)).result();
        } catch (TraceFormatException ex) {
            throw new IOException(ex.getMessage(), ex);
        }
    }

    /**
     * Runs one scheduled fault step, marked as run under {@code key}; anything it throws is recorded
     * as a command not done, never lost in the scheduler's future.
     */
    private static void guarded(String key, Fault f, HistoryClient client, java.util.Set<String> ran, List<String> notDone, Runnable step) {
        ran.add(key);
        try {
            step.run();
        } catch (RuntimeException ex) {
            notDone.add(String.format(Locale.ROOT, "%s worker %d at %.0f ms: could not run: %s", key.substring(0, key.indexOf(' ')), f.worker(),
                    client.nowMs(), ex));
        }
    }

    /** Runs a fault command with {worker} replaced: a line for the report in {@code log}, and in {@code notDone} too when it failed. */
    /** The command that starts fault f, and the one that undoes it (a gray failure's resume or heal; a crash's restart). */
    private static String start(Options o, Fault f) {
        return !f.paused() ? o.failCmd() : f.cut() ? o.partitionCmd() : o.pauseCmd();
    }

    private static String undo(Options o, Fault f) {
        return !f.paused() ? o.restartCmd() : f.cut() ? o.healCmd() : o.resumeCmd();
    }

    private static void command(String what, String template, Fault f, double atMs, List<String> log, List<String> notDone) {
        String cmd = template.replace("{worker}", Integer.toString(f.worker())).replace("{ms}", Long.toString((long) f.pauseMs()));
        String line;
        boolean ok = false;
        try {
            Ran r = shell(cmd, COMMAND_TIMEOUT_S);
            if (!r.done()) {
                line = String.format(Locale.ROOT, "%s worker %d at %.0f ms: '%s' did not finish in %d s", what, f.worker(), atMs, cmd,
                        COMMAND_TIMEOUT_S);
            } else {
                ok = r.exit() == 0;
                line = String.format(Locale.ROOT, "%s worker %d at %.0f ms: '%s' exited %d%s", what, f.worker(), atMs, cmd, r.exit(),
                        r.output().isEmpty() ? "" : " (" + lumen.trace.Echo.cut(r.output()) + ")");
            }
        } catch (IOException ex) {
            line = what + " worker " + f.worker() + ": '" + cmd + "' could not run: " + ex.getMessage();
        }
        log.add(line);
        if (!ok) {
            notDone.add(line);
        }
    }
}
