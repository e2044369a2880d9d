package lumen.live;

import io.grpc.ConnectivityState;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.KitTokens;
import lumen.core.WorkerState;
import lumen.runtime.Arrival;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.CostModel;
import lumen.runtime.KvGeometry;
import lumen.trace.TraceWriter;
import lumen.validate.ProcessLogs;

/**
 * The gateway's control plane on real time: the reference runtime ({@link ClusterRuntime}, the
 * decision core behind it) driving worker processes whose memories it reaches over gRPC
 * ({@link Remote}). One thread, the loop, owns the runtime: requests, heartbeats and failures reach
 * it through its inbox, and its timers fire on the wall clock (the runtime's ms are ms since the
 * cluster started). Every spec event goes to the trace, if any, and the tokens to their clients.
 *
 * <p>Failure detection: every worker is pinged every {@link Options#heartbeatMs}; one that has not
 * answered for {@link Options#timeoutMs} is failed (the Fail step, then routing by Eq. 6). A call
 * of the runtime's that finds a worker's process gone fails it at once. A worker that answers with
 * a new boot id is a restarted process: it rejoins (Restart, then the model loads on the cost
 * model's delays), and if its death was not noticed yet, it is failed first.
 */
public final class LiveCluster implements AutoCloseable {
    /**
     * @param heartbeatMs how often the gateway pings each worker
     * @param timeoutMs   a worker silent for this long is failed
     * @param wallSkewMs  with process logs: NaN, each event carries its process's Lamport clock and a
     *                    worker's steps begin in its log; a number, the logs carry wall-clock time only
     *                    and every header declares this skew_ms (docs/serve.md, Logs)
     */
    public record Options(long heartbeatMs, long timeoutMs, double wallSkewMs) {
        public Options(long heartbeatMs, long timeoutMs) {
            this(heartbeatMs, timeoutMs, Double.NaN);
        }

        public static Options defaults() {
            return new Options(100, 600);
        }

        /** These options, the process logs with wall-clock time only under {@code skewMs}. */
        public Options withWallClockLogs(double skewMs) {
            if (!(skewMs >= 0) || Double.isInfinite(skewMs)) {
                throw new IllegalArgumentException("a skew in ms, 0 or more, not " + skewMs);
            }
            return new Options(heartbeatMs, timeoutMs, skewMs);
        }

        /** Whether the process logs carry wall-clock time only. */
        public boolean wallClockLogs() {
            return !Double.isNaN(wallSkewMs);
        }
    }

    /** What a client receives for one request: token chunks, then {@link #END}. */
    public static final int[] END = new int[0];

    private final Config cfg;
    private final LiveMutant mutant;
    /** Each admitted request's arrival, while it runs (the reissue-interrupted bug sends it again). */
    private final Map<Integer, Arrival> admitted = new ConcurrentHashMap<>();
    private final Options opt;
    private final List<Remote> workers;
    private final ClusterRuntime rt;
    private final java.util.concurrent.BlockingDeque<Runnable> inbox = new java.util.concurrent.LinkedBlockingDeque<>();
    private final Map<Integer, BlockingQueue<int[]>> streams = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger();
    private final TraceWriter trace;
    /** The gateway's Lamport clock, carried by every call to a worker and every answer ({@link Clock}). */
    private final Clock clock = new Clock();
    /** The gateway's own log when the processes write theirs (null: they do not), and the header each log starts with. */
    private final ProcessLog gatewayLog;
    private final byte[] logHeader;
    /** Per worker: whether its current process writes its own log (then its Prefill and Decode steps begin there). */
    private final boolean[] ownLog;
    private final long t0 = System.nanoTime();
    private final Thread loop;
    private final ScheduledExecutorService pinger = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lumen-heartbeats");
        t.setDaemon(true);
        return t;
    });
    private final long[] boot;
    private final double[] lastOk;
    /** When (wall clock, ms) each worker was last failed or reset: a heartbeat taken before that says nothing of it since. */
    private final double[] staleBefore;
    private volatile boolean closed;
    private volatile Throwable crashed;
    private final java.util.concurrent.CountDownLatch ready;
    /** How late the loop took each due timer, µs. */
    private final org.HdrHistogram.Recorder late = new org.HdrHistogram.Recorder(3);
    private org.HdrHistogram.Histogram lateSoFar;
    /** Failures the gateway detected, and how: for the report. */
    private final List<String> detections = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * A cluster over the workers at {@code addresses} (host:port each, worker i at index i), deciding
     * by {@code cfg} on {@code cost}'s durations; the trace goes to {@code traceOut} (null: none).
     */
    public LiveCluster(Config cfg, CostModel cost, List<String> addresses, Options opt, OutputStream traceOut) throws IOException {
        this(cfg, cost, addresses, opt, traceOut, LiveMutant.NONE);
    }

    /** The same, running a seeded bug ({@link LiveMutant}): the gateway's, or the runtime's late drafts. */
    public LiveCluster(Config cfg, CostModel cost, List<String> addresses, Options opt, OutputStream traceOut, LiveMutant mutant)
            throws IOException {
        this(cfg, cost, addresses, opt, traceOut, mutant, null);
    }

    /**
     * The same, and when {@code processLogs} is a directory, each process writes its own log there
     * (docs/serve.md, Logs): the gateway {@code gateway.jsonl}, with every step it takes, and each
     * worker process that was started with that directory its own, with the Prefill and Decode
     * steps it computed as their begins. Each event carries its process's Lamport clock.
     */
    public LiveCluster(Config cfg, CostModel cost, List<String> addresses, Options opt, OutputStream traceOut, LiveMutant mutant,
                       java.nio.file.Path processLogs) throws IOException {
        this(cfg, cost, addresses, opt, traceOut, mutant, processLogs, addresses);
    }

    /**
     * The same, the gateway dialling worker i at {@code dial.get(i)} (a link a drill can cut,
     * {@link LinkProxy}) while the workers reach each other at {@code addresses}.
     */
    public LiveCluster(Config cfg, CostModel cost, List<String> addresses, Options opt, OutputStream traceOut, LiveMutant mutant,
                       java.nio.file.Path processLogs, List<String> dial) throws IOException {
        this(cfg, cost, addresses, opt, traceOut, mutant, processLogs, dial, (w, h) -> addresses.get(h));
    }

    /**
     * The same, worker w streaming its pages to holder h at {@code peer.apply(w, h)} (a link between
     * the two a drill can cut) instead of the holder's own address.
     */
    public LiveCluster(Config cfg, CostModel cost, List<String> addresses, Options opt, OutputStream traceOut, LiveMutant mutant,
                       java.nio.file.Path processLogs, List<String> dial, java.util.function.BiFunction<Integer, Integer, String> peer)
            throws IOException {
        this.mutant = mutant;
        if (addresses.size() != cfg.workers()) {
            throw new IllegalArgumentException(cfg.workers() + " workers configured, " + addresses.size() + " addresses given");
        }
        this.cfg = cfg;
        this.opt = opt;
        KvGeometry g = KvGeometry.small(cfg.pageTokens());
        this.workers = new java.util.ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            workers.add(new Remote(i, addresses.get(i), dial.get(i), g, clock));
            int w = i;
            workers.get(i).peers(h -> peer.apply(w, h));
        }
        this.trace = traceOut == null ? null : new TraceWriter(traceOut, cfg);
        this.ownLog = new boolean[addresses.size()];
        if (processLogs != null) {
            // the trace's header, declaring begin and end forms: a worker's steps begin in its log and end in the gateway's
            java.io.ByteArrayOutputStream h = new java.io.ByteArrayOutputStream();
            try (TraceWriter w = new TraceWriter(h, cfg)) {
                w.flush();
            }
            String first = h.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n", 2)[0];
            com.fasterxml.jackson.databind.node.ObjectNode header = (com.fasterxml.jackson.databind.node.ObjectNode)
                    new com.fasterxml.jackson.databind.ObjectMapper().readTree(first);
            if (opt.wallClockLogs()) {
                // wall-clock time only: the gateway logs each step whole when it takes it, a holder the zombie pages it sees
                header.put("skew_ms", opt.wallSkewMs());
            } else {
                header.put("steps", "begin-end");
            }
            java.nio.file.Files.createDirectories(processLogs);
            this.logHeader = header.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            this.gatewayLog = new ProcessLog(processLogs.resolve("gateway.jsonl"), header.toString(), ProcessLogs.GATEWAY, clock);
        } else {
            this.logHeader = null;
            this.gatewayLog = null;
        }
        ClusterRuntime.Options ro = ClusterRuntime.Options.defaults(cfg.pageTokens()).withMemories(workers::get)
                .withLateDrafts(mutant == LiveMutant.LATE_DRAFT);
        this.rt = new ClusterRuntime(cfg, cost, ro, this::emitted).withExternalRestarts().withExternalLoads();
        for (Remote w : workers) {
            // the epoch each iteration's call is made under, read on the loop, which makes every call
            w.onLateAnswers(() -> rt.state().worker(w.id()).epoch(), this::lateAnswer);
        }
        this.boot = new long[addresses.size()];
        this.reused = new int[addresses.size()];
        java.util.Arrays.fill(reused, -1);
        this.lastOk = new double[addresses.size()];
        this.staleBefore = new double[addresses.size()];
        this.ready = new java.util.concurrent.CountDownLatch(addresses.size());
        this.loop = new Thread(this::loop, "lumen-gateway-loop");
        loop.setDaemon(true);
        loop.start();
        pinger.scheduleWithFixedDelay(this::pingAll, 0, opt.heartbeatMs(), TimeUnit.MILLISECONDS);
    }

    /** Ms since the cluster started: the runtime's clock. */
    public double nowMs() {
        return (System.nanoTime() - t0) / 1e6;
    }

    /**
     * Waits until every worker has answered once, then warms the paths every request takes (the
     * calls of an iteration, a page streamed, a copy taken) on a scratch request of each worker's,
     * so that the first requests are not served by cold code; false when a worker did not answer in time.
     */
    public boolean awaitReady(long ms) throws InterruptedException {
        if (!ready.await(ms, TimeUnit.MILLISECONDS)) {
            return false;
        }
        java.util.concurrent.CompletableFuture<Void> warm = new java.util.concurrent.CompletableFuture<>();
        post(() -> {
            try {
                warmUp();
                warm.complete(null);
            } catch (RuntimeException ex) {
                warm.completeExceptionally(ex);
            }
        });
        try {
            warm.get(ms, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException ex) {
            throw new IllegalStateException("warming the workers up failed: " + ex.getCause().getMessage(), ex.getCause());
        } catch (java.util.concurrent.TimeoutException ex) {
            return false;
        }
        return true;
    }

    /** The rounds of {@link #warmUp}. */
    static final int WARM_ROUNDS = 60;

    /** On the loop, before any request: each worker prefills, decodes and streams a scratch request (a negative id), then frees it. */
    private void warmUp() {
        int pt = cfg.pageTokens();
        for (Remote w : workers) {
            Remote next = workers.get((w.id() + 1) % workers.size());
            for (int round = 0; round < WARM_ROUNDS; round++) {
                int r = -1 - round;
                int prompt = 2 * pt;
                w.run(List.of(lumen.runtime.TargetPass.Job.prefill(r, round, prompt, prompt + 4, 0, prompt, 0)));
                w.run(List.of(lumen.runtime.TargetPass.Job.decode(r, round, prompt, prompt + 4, 1, new int[] {1, 2}, 3)));
                w.positions(r);
                try {
                    w.sendPage(r, 0, next);
                } catch (lumen.runtime.WorkerMemory.NotAcknowledged lost) {
                    // a lost acknowledgement injected as a network fault: the warm-up does not mind
                }
                next.takeCopy(r);
                w.free(r);
            }
        }
    }

    public Config config() {
        return cfg;
    }

    /** The failures the gateway detected, and the restarts and handovers, one line each. */
    public List<String> detections() {
        return List.copyOf(detections);
    }

    /** The longest a worker not known failed went without answering a heartbeat before it answered again, ms (the detector's margin). */
    private volatile double longestSilence;

    public double longestSilenceMs() {
        return longestSilence;
    }

    /** The detector's failures of live workers: its Fail steps not caused by a death, one line each (the suspicions a heartbeat timeout made). */
    public List<String> suspicions() {
        return detections.stream().filter(d -> d.contains(" silent for ")).toList();
    }

    /**
     * Admits a request: its prompt length, its output length and its seed (the kit's token model);
     * returns its id and the queue its tokens arrive on, ending with {@link #END}.
     */
    public Admitted submit(int promptLen, int outLen, long seed) {
        int id = nextId.getAndIncrement();
        BlockingQueue<int[]> q = new LinkedBlockingQueue<>();
        streams.put(id, q);
        post(() -> {
            Arrival a = new Arrival(id, nowMs(), promptLen, outLen, seed);
            admitted.put(id, a);
            rt.submit(a);
        });
        return new Admitted(id, q);
    }

    /** An admitted request: the id the trace knows it by, and its token chunks. */
    public record Admitted(int id, BlockingQueue<int[]> tokens) {}

    /** Why the gateway's loop stopped (an exception it could not go on from), or null while it runs. */
    public Throwable stopped() {
        return crashed;
    }

    private void post(Runnable r) {
        if (crashed != null) {
            throw new IllegalStateException("the gateway's loop stopped: " + crashed, crashed);
        }
        inbox.add(r);
    }

    /**
     * An iteration's answer that came after the gateway gave up on it and failed its worker: the
     * writes of a fenced incarnation (a zombie's tokens), which the runtime logs as such, refused.
     * Warm-up requests (negative ids) are not the trace's.
     */
    private void lateAnswer(int w, int epoch, List<lumen.runtime.TargetPass.Job> jobs, List<lumen.runtime.TargetPass.Pass> passes) {
        if (closed || crashed != null || passes == null) {
            return;
        }
        inbox.add(() -> {
            if (epoch == reused[w] && rt.state().worker(w).state() != WorkerState.FAILED) {
                // restart-reuses-epoch: the call's epoch is the worker's again, so its answer passes the fence as the worker's own
                reusedEpochAnswer(w, epoch, jobs, passes);
                return;
            }
            for (int i = 0; i < jobs.size() && i < passes.size(); i++) {
                int r = jobs.get(i).req();
                if (r >= 0) {
                    rt.zombieTokens(w, epoch, r, passes.get(i).tokens());
                }
            }
        });
    }

    /** restart-reuses-epoch and flapping-detector: the epoch each worker was readmitted under again, its fenced incarnation's (-1: none). */
    private final int[] reused;

    /** Those bugs: worker w takes back the epoch of its fenced incarnation, so that incarnation's late answers pass as its own. */
    private void reuseEpoch(int w) {
        lumen.core.Zombie z = rt.state().worker(w).zombie();
        reused[w] = z == null ? -1 : z.epoch();
    }

    /**
     * The restart-reuses-epoch bug: a late answer whose call carried the epoch the worker has again
     * is taken as the worker's: its tokens go to their requests' clients as the answer carries them.
     * The gateway's runtime has no step for them (their requests are served elsewhere by now).
     */
    private void reusedEpochAnswer(int w, int epoch, List<lumen.runtime.TargetPass.Job> jobs, List<lumen.runtime.TargetPass.Pass> passes) {
        for (int i = 0; i < jobs.size() && i < passes.size(); i++) {
            int r = jobs.get(i).req();
            BlockingQueue<int[]> q = r < 0 ? null : streams.get(r);
            if (q != null && passes.get(i).tokens().length > 0) {
                q.add(passes.get(i).tokens());
                detections.add(String.format(java.util.Locale.ROOT, "worker %d's answer of epoch %d, its epoch again since its restart, streamed"
                        + " %d token(s) of request %d at %.1f ms", w, epoch, passes.get(i).tokens().length, r, nowMs()));
            }
        }
    }

    /** On the loop: where the runtime's events go. */
    private void emitted(Event event, double t) {
        // the gateway-no-fence bug: a fenced incarnation's token is taken into its request's stream
        Event e = mutant == LiveMutant.GATEWAY_NO_FENCE && event instanceof Event.ZombieToken z ? z.taken() : event;
        double ms = Math.round(t * 1000) / 1000.0;
        try {
            if (trace != null) {
                trace.write(e, ms);
            }
            if (gatewayLog != null) {
                // a step the worker logged the begin of, with the pages it wrote, ends here with the tokens the gateway took
                boolean begun = (e instanceof Event.Prefill || e instanceof Event.Decode) && ownLog[e.worker()] && !opt.wallClockLogs();
                gatewayLog.write(begun ? TraceWriter.end(e, ms) : TraceWriter.toJson(e, ms));
            }
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
        int[] toks = e instanceof Event.Prefill p ? p.tokens() : e instanceof Event.Decode d ? d.tokens() : null;
        if (e instanceof Event.ZombieToken z) {
            detections.add(String.format(java.util.Locale.ROOT, "worker %d's fenced incarnation (epoch %d) sent a token of request %d at %.1f ms: %s",
                    z.worker(), z.epoch(), z.req(), t, z.accepted() ? "streamed to its client" : "refused"));
            toks = z.accepted() ? new int[] {z.token()} : null;
        }
        if (toks != null && toks.length > 0) {
            BlockingQueue<int[]> q = streams.get(e.req());
            if (q != null) {
                q.add(toks);
            }
        } else if (e instanceof Event.Complete) {
            admitted.remove(e.req());
            BlockingQueue<int[]> q = streams.remove(e.req());
            if (q != null) {
                q.add(END);
            }
        } else if (e instanceof Event.Restart || e instanceof Event.FullReady) {
            detections.add(String.format(java.util.Locale.ROOT, "worker %d %s at %.1f ms", e.worker(),
                    e instanceof Event.Restart ? "restarted" : "handed over to its full model", t));
        } else if (e instanceof Event.Fail f) {
            staleBefore[f.worker()] = nowMs();
            detections.add(String.format(java.util.Locale.ROOT, "worker %d failed at %.1f ms (%d interrupted)", f.worker(), t,
                    f.interrupted().length));
            for (int r : f.interrupted()) {
                if (mutant == LiveMutant.REISSUE_INTERRUPTED && admitted.containsKey(r)) {
                    // the bug: the request is sent again as new, its tokens to the same client, while the restore resumes it
                    Arrival a = admitted.get(r);
                    int again = nextId.getAndIncrement();
                    BlockingQueue<int[]> q = streams.get(r);
                    if (q != null) {
                        streams.put(again, q);
                    }
                    // at once, ahead of whatever waits in the inbox: a retry does not queue behind new requests
                    inbox.addFirst(() -> rt.submit(new Arrival(again, nowMs(), a.promptLen(), a.outLen(), a.seed())));
                } else if (mutant == LiveMutant.DROP_INTERRUPTED) {
                    // the bug: the gateway forgets the dead worker's requests; their clients hear no more
                    BlockingQueue<int[]> q = streams.remove(r);
                    if (q != null) {
                        q.add(END);
                    }
                }
            }
        }
    }

    private void loop() {
        try {
            while (!closed) {
                double next = rt.nextTimer();
                long waitMs = Double.isInfinite(next) ? 50 : (long) Math.max(0, Math.ceil(next - nowMs()));
                Runnable task = waitMs > 0 ? inbox.poll(Math.min(waitMs, 50), TimeUnit.MILLISECONDS) : inbox.poll();
                while (task != null) {
                    guarded(task);
                    task = inbox.poll();
                }
                double due = rt.nextTimer();
                double wall = nowMs();
                if (due <= wall) {
                    // how late the loop takes its earliest due timer: the live cluster's own delay
                    late.recordValue(Math.min(60_000_000L, (long) ((wall - due) * 1000)));
                }
                // the earliest due timer only, then the inbox again: heartbeats and late answers are not held behind a backlog
                guarded(() -> rt.advanceTo(Math.min(wall, due)));
                if (!pendingFail.isEmpty()) {
                    failPending();
                }
                if (trace != null && inbox.isEmpty()) {
                    trace.flush();
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (Throwable ex) {
            crashed = ex;
            ex.printStackTrace();
        }
    }

    /**
     * Workers found gone whose Fail step the spec does not allow yet, because no other worker is UP
     * (every worker died at once): each is failed as soon as another one is UP again, and is not
     * called meanwhile.
     */
    private final java.util.Set<Integer> pendingFail = new java.util.TreeSet<>();

    /** Runs a task on the loop; a worker it finds gone is failed, and so on until none is. */
    private void guarded(Runnable task) {
        Runnable next = task;
        for (int tries = 0; next != null; tries++) {
            try {
                next.run();
                next = null;
            } catch (WorkerLost lost) {
                if (tries > 4 * workers.size()) {
                    throw lost;
                }
                int w = lost.worker;
                if (pendingFail.contains(w)) {
                    // already known gone and waiting for its Fail step: the work that called it is dropped
                    next = null;
                    continue;
                }
                detections.add(String.format(java.util.Locale.ROOT, "worker %d found gone by a call at %.1f ms", w, nowMs()));
                next = () -> failOrWait(w);
            }
        }
    }

    /**
     * On the loop: worker w is gone; its Fail step now, or as soon as another worker is UP. It is
     * known gone before the step is tried: when no other worker is UP the runtime keeps it and goes
     * on serving (failNow's kick), and a call that finds it gone again must be dropped as known, not
     * taken for a new failure (which retried the same Fail until the loop gave up and stopped).
     */
    private void failOrWait(int w) {
        boolean waiting = pendingFail.contains(w);
        pendingFail.add(w);
        workers.get(w).gone(true);
        try {
            rt.failNow(w);
        } finally {
            if (rt.state().worker(w).state() == WorkerState.FAILED) {
                pendingFail.remove(w);
                workers.get(w).gone(false);
            } else if (!waiting) {
                detections.add(String.format(java.util.Locale.ROOT, "worker %d is gone and no other worker is up: its Fail step waits", w));
            }
        }
    }

    /** On the loop: the waiting Fail steps that another UP worker now allows. */
    private void failPending() {
        for (Integer w : List.copyOf(pendingFail)) {
            if (rt.state().anotherUp(w)) {
                pendingFail.remove(w);
                guarded(() -> failOrWait(w));
            }
        }
    }

    private void pingAll() {
        for (Remote w : workers) {
            if (closed) {
                return;
            }
            long b;
            int m;
            try {
                if (w.channelForPing().getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                    w.channelForPing().resetConnectBackoff();
                }
                Wire.Reply r = Remote.call(w.channelForPing(), Wire.PING, Wire.Op.req(0), Math.max(50, opt.heartbeatMs()));
                b = r.boot();
                m = r.models();
            } catch (StatusRuntimeException ex) {
                b = 0;
                m = 0;
            }
            long seen = b;
            int models = m;
            double t = nowMs();
            post(() -> heartbeat(w.id(), seen, models, t));
        }
    }

    /** On the loop: worker w answered with boot id b (0: no answer), having loaded {@code models} (Wire#PING), at time t. */
    private void heartbeat(int w, long b, int models, double t) {
        // what the heartbeat decides happens now when no timer is due; when the loop is behind (a call blocked it), it decides at
        // the runtime's time, ahead of the timers due, which the loop takes one at a time between its inbox's tasks: a detector
        // that waited for the backlog would hear a failed worker again, and reset it, seconds late
        double now = nowMs();
        if (rt.nextTimer() > now) {
            guarded(() -> rt.advanceTo(now));
        }
        WorkerState st = rt.state().worker(w).state();
        if (b == 0) {
            // the flapping-detector bug: a timeout below the heartbeat interval, so one heartbeat missed under load fails a worker
            long timeout = mutant == LiveMutant.FLAPPING_DETECTOR ? opt.heartbeatMs() / 2 : opt.timeoutMs();
            if (st != WorkerState.FAILED && boot[w] != 0 && t - lastOk[w] > timeout && !pendingFail.contains(w)) {
                detections.add(String.format(java.util.Locale.ROOT, "worker %d silent for %.0f ms at %.1f ms", w, t - lastOk[w], t));
                guarded(() -> failOrWait(w));
            }
            return;
        }
        if (boot[w] != 0 && lastOk[w] > 0 && rt.state().worker(w).state() != WorkerState.FAILED) {
            longestSilence = Math.max(longestSilence, t - lastOk[w]);
        }
        lastOk[w] = t;
        if (boot[w] == 0) {
            boot[w] = b;
            workers.get(w).knowBoot(b);
            guarded(() -> openLog(w));
            ready.countDown();
            return;
        }
        if (t <= staleBefore[w]) {
            // taken before the worker was failed, or reset: stale
            return;
        }
        if (b == boot[w] && rt.state().worker(w).state() == WorkerState.FAILED && mutant == LiveMutant.FLAPPING_DETECTOR) {
            // the flapping-detector bug: the failure is taken for a flap, and the worker back as the incarnation it was (no
            // reset, the epoch it had), so whatever that incarnation still sends passes the fence
            reuseEpoch(w);
            workers.get(w).forget();
            staleBefore[w] = nowMs();
            detections.add(String.format(java.util.Locale.ROOT, "worker %d answered again at %.1f ms after it was failed; readmitted as it was"
                    + " (taken for a flap)", w, t));
            guarded(() -> rt.restartWorker(w));
            return;
        }
        if (b == boot[w] && rt.state().worker(w).state() == WorkerState.FAILED) {
            // failed while it only stalled: its memories are stale, so it wipes them and comes back as new
            int stuck = workers.get(w).reset();
            staleBefore[w] = nowMs();
            if (stuck == 0) {
                // the zombie learned of its fence; behind any late answer of its already in the inbox, which it sent before
                inbox.add(() -> guarded(() -> rt.zombieStops(w)));
            }
            // a zombie with an iteration stuck in its engine, or a page it sent unanswered, has not stopped: a write may come yet
            detections.add(String.format(java.util.Locale.ROOT, "worker %d answered again at %.1f ms after it was failed; %s", w, t,
                    stuck < 0 ? "not reset (no answer)" : stuck == 0 ? "reset" : "reset, " + stuck + " write(s) of its fenced incarnation may come yet"));
            return;
        }
        if (b != boot[w]) {
            // a new process (or a reset one): the old one died, noticed or not
            if (rt.state().worker(w).state() != WorkerState.FAILED) {
                if (!pendingFail.contains(w)) {
                    detections.add(String.format(java.util.Locale.ROOT, "worker %d came back as a new process at %.1f ms", w, t));
                    guarded(() -> failOrWait(w));
                }
                if (rt.state().worker(w).state() != WorkerState.FAILED) {
                    // its Fail step waits for another UP worker: the new process is not this worker yet
                    return;
                }
            }
            boot[w] = b;
            workers.get(w).knowBoot(b);
            guarded(() -> openLog(w));
            // a new process knows no fences yet: it learns every other worker's current epoch before it holds a page
            for (int u = 0; u < workers.size(); u++) {
                if (u != w) {
                    workers.get(w).fence(u, rt.state().worker(u).epoch());
                }
            }
            if (mutant == LiveMutant.RESTART_REUSES_EPOCH) {
                // the bug: the restart registers the worker under the epoch its fenced incarnation had
                reuseEpoch(w);
            }
            guarded(() -> rt.restartWorker(w));
            guarded(() -> rt.advanceTo(nowMs()));
            return;
        }
        // a restarted worker loads its models itself: the draft, then the full model, as it says
        if (models >= 1) {
            guarded(() -> rt.modelLoaded(w, false));
        }
        if (models >= 2) {
            guarded(() -> rt.modelLoaded(w, true));
        }
    }

    /** On the loop: worker w's process (a new one) opens its own log, when the processes write theirs, before it is given work. */
    private void openLog(int w) {
        ownLog[w] = false;
        if (logHeader != null) {
            ownLog[w] = workers.get(w).openLog(logHeader);
            if (!ownLog[w]) {
                detections.add("worker " + w + "'s process writes no log of its own (started without a log directory): the gateway logs its steps whole");
            }
        }
    }

    /** How late the loop has taken its due timers so far (µs): a loop that keeps up takes them within a ms or two. */
    public synchronized org.HdrHistogram.Histogram lateness() {
        org.HdrHistogram.Histogram h = late.getIntervalHistogram();
        if (lateSoFar == null) {
            lateSoFar = h;
        } else {
            lateSoFar.add(h);
        }
        return lateSoFar.copy();
    }

    /** The round trips of the loop's calls to every worker so far (µs), the warm-up included. */
    public org.HdrHistogram.Histogram callLatency() {
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(3);
        for (Remote w : workers) {
            h.add(w.calls);
        }
        return h;
    }

    /**
     * Per worker, whether it is UP and how many requests it serves now (queued, prefilling or
     * decoding on it): what {@code GET /health} reports, and what a drill's {@code --fail-when-busy}
     * waits on. Empty when the loop did not answer within {@code ms}.
     */
    public List<int[]> serving(long ms) throws InterruptedException {
        java.util.concurrent.CompletableFuture<List<int[]>> f = new java.util.concurrent.CompletableFuture<>();
        post(() -> {
            int[] n = new int[workers.size()];
            rt.state().requests().forEachValue(r -> {
                if (r.server() >= 0 && r.server() < n.length && (r.phase() == lumen.core.RequestPhase.QUEUED
                        || r.phase() == lumen.core.RequestPhase.PREFILL || r.phase() == lumen.core.RequestPhase.DECODE)) {
                    n[r.server()]++;
                }
            });
            List<int[]> out = new java.util.ArrayList<>();
            for (int w = 0; w < n.length; w++) {
                out.add(new int[] {w, rt.state().isUp(w) ? 1 : 0, n[w]});
            }
            f.complete(out);
        });
        try {
            return f.get(ms, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
            return List.of();
        }
    }

    /**
     * Waits until every worker is UP with its full model (a failed one restarted and handed over),
     * so that a run stopped then is complete; false when that did not happen within {@code ms}.
     */
    public boolean awaitAllUp(long ms) throws InterruptedException {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            java.util.concurrent.CompletableFuture<Boolean> up = new java.util.concurrent.CompletableFuture<>();
            post(() -> {
                boolean all = true;
                for (int w = 0; w < workers.size(); w++) {
                    all &= rt.state().isUp(w);   // UP: with its full model
                }
                up.complete(all);
            });
            try {
                if (up.get(ms, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
                return false;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        pinger.shutdownNow();
        try {
            loop.join(5_000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        for (Remote w : workers) {
            w.close();
        }
        if (trace != null) {
            trace.close();
        }
        if (gatewayLog != null) {
            gatewayLog.close();
        }
    }

    /** The kit's token model's vocabulary: what {@code lumen history} judges this cluster's outputs on. */
    public static int vocab() {
        return KitTokens.VOCAB;
    }
}
