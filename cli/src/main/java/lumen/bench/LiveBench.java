package lumen.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import lumen.core.KitTokens;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.history.HistoryRecorder;
import lumen.live.HistoryClient;
import lumen.live.LiveCluster;
import lumen.live.LiveConform;
import lumen.live.LiveServer;
import lumen.runtime.Arrival;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.CostModel;
import lumen.runtime.Fault;
import lumen.runtime.SimpleCostModel;
import lumen.sim.SimConfig;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;
import lumen.sim.Simulator;

/**
 * {@code lumen bench live}: what {@code lumen serve} costs and how it compares with the kit's
 * virtual-time engines. The gateway's overhead: one-token requests on loopback, each latency against
 * the cost model's prefill time for it (the only time the model charges), and the requests per second
 * the gateway serves. Then the same workload and failure three ways: live, the reference runtime on
 * virtual time (the same engine), and the simulator ({@code lumen simulate}), all on the
 * simulator's cost model, with TTFT, TPOT and recovery time by the simulator's definitions.
 */
public final class LiveBench {
    private LiveBench() {}

    /** Requests and concurrency of the overhead run. */
    static final int OVERHEAD_REQUESTS = 400;
    static final int OVERHEAD_CONCURRENCY = 8;
    static final int OVERHEAD_PROMPT = 16;

    public static void run(PrintWriter out, boolean quick, Path dir) throws Exception {
        overhead(out, quick ? OVERHEAD_REQUESTS / 4 : OVERHEAD_REQUESTS, dir);
        out.println();
        versus(out, quick, dir);
    }

    private static LiveServer.Settings settings(lumen.core.Config cfg, CostModel cost, Path logDir) {
        return new LiveServer.Settings(cfg, cost, 0, 300, LiveCluster.Options.defaults(), 120_000, logDir);
    }

    /**
     * One-token requests through the gateway: one at a time, each latency against the modelled
     * prefill (the gateway's overhead); then {@link #OVERHEAD_CONCURRENCY} at a time (its throughput).
     */
    static void overhead(PrintWriter out, int n, Path dir) throws Exception {
        SimpleCostModel cost = SimpleCostModel.fastReload();
        double modelled = cost.prefillMs(OVERHEAD_PROMPT);
        double[] lat = new double[n];
        double wall;
        String callsLine;
        try (LiveServer s = LiveServer.start(settings(lumen.core.Config.defaults("lumen").withWorkers(3), cost,
                Files.createDirectories(dir.resolve("overhead"))), null, 60_000)) {
            HistoryClient c = new HistoryClient(s.url(), OutputStream.nullOutputStream(), Duration.ofSeconds(60));
            for (int i = 0; i < n; i++) {
                long a = System.nanoTime();
                c.send(Integer.toString(i), OVERHEAD_PROMPT, 1, i);
                lat[i] = (System.nanoTime() - a) / 1e6;
            }
            ExecutorService pool = Executors.newFixedThreadPool(OVERHEAD_CONCURRENCY);
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = n + i;
                fs.add(pool.submit(() -> c.send(Integer.toString(id), OVERHEAD_PROMPT, 1, id)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
            wall = (System.nanoTime() - t0) / 1e9;
            pool.shutdownNow();
            org.HdrHistogram.Histogram calls = s.cluster().callLatency();
            callsLine = String.format(Locale.ROOT, "  the gateway's calls to its workers (%d, the warm-up included): p50 %.2f ms, p99 %.2f ms%n",
                    calls.getTotalCount(), calls.getValueAtPercentile(50) / 1000.0, calls.getValueAtPercentile(99) / 1000.0);
        }
        double[] over = new double[n];
        for (int i = 0; i < n; i++) {
            over[i] = lat[i] - modelled;
        }
        java.util.Arrays.sort(lat);
        java.util.Arrays.sort(over);
        out.printf(Locale.ROOT, "Gateway on loopback (3 workers, one-token requests of %d prompt tokens, streamed):%n", OVERHEAD_PROMPT);
        out.printf(Locale.ROOT, "  one at a time (%d): latency p50 %.1f ms, p99 %.1f ms, where the cost model charges %.1f ms (the"
                + " prefill): the live overhead is p50 %.1f ms, p99 %.1f ms%n", n, pct(lat, 50), pct(lat, 99), modelled, pct(over, 50), pct(over, 99));
        out.printf(Locale.ROOT, "  %d at a time (%d): %.0f requests/s%n", OVERHEAD_CONCURRENCY, n, n / wall);
        out.print(callsLine);
        out.flush();
    }

    private static double pct(double[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    /** The same workload and failure live, on the runtime's virtual time and in the simulator. */
    static void versus(PrintWriter out, boolean quick, Path dir) throws Exception {
        SimConfig sc = SimConfig.load(null, null, List.of("policies=lumen", "duration_s=" + (quick ? 40 : 75), "fail_at_s=" + (quick ? 5 : 10),
                "rate_scale=1", "detect_s=0.3", "full_load_s=1.2", "draft_load_s=0.15", "workers=3"));
        SimConfig.Experiment e = sc.expand().get(0);
        Simulator.Options so = e.options("lumen");
        List<Arrival> arrivals = new ArrayList<>();
        for (Arrival a : e.arrivals()) {
            // prompts and outputs cut so that a 2-core machine runs the live side at the modelled speed
            arrivals.add(new Arrival(a.id(), a.atMs(), Math.min(a.promptLen(), 512), Math.min(a.outLen(), 128), a.seed() & Long.MAX_VALUE));
        }
        List<SimResult.Failure> failures = e.failures();
        int failed = failures.get(0).workers()[0];
        double failAt = failures.get(0).atMs();
        CostModel cost = so.cost();
        out.printf(Locale.ROOT, "%nThe same workload and failure three ways (%s, %d workers, %d requests of the Azure conv trace, prompts"
                + " cut to 512 tokens and outputs to 128, worker %d fails at %.0f s; model loads 0.15 s and 1.2 s):%n", e.preset().name(),
                so.config().workers(), arrivals.size(), failed, failAt / 1000);
        out.flush();

        // the simulator
        SimResult simBase = new Simulator(so, null).run(arrivals, List.of());
        SimResult simRun = new Simulator(so, null).run(arrivals, failures);
        SimMetrics.Summary sim = SimMetrics.summarize("lumen", simRun, simBase);

        // the runtime on virtual time: the engine the live gateway runs
        SimMetrics.Summary virt = SimMetrics.summarize("lumen", runtime(so.config(), cost, arrivals, List.of(new Fault(failed, failAt,
                Fault.Point.AT_TIME))), runtime(so.config(), cost, arrivals, List.of()));

        // live: a failure-free run, then the same with kill -9
        History liveBase = live(so.config(), cost, arrivals, List.of(), dir.resolve("live-base"));
        History liveRun = live(so.config(), cost, arrivals, List.of(new LiveConform.Fault(failAt, failed)), dir.resolve("live-fail"));
        HistoryCheck.Result lr = HistoryCheck.check(liveRun, HistoryCheck.Reference.kit(KitTokens.VOCAB), liveBase, true);
        SimMetrics.Summary live = lr.summary();

        out.printf(Locale.ROOT, "  %-26s %12s %12s %12s %12s %16s %12s%n", "", "TTFT mean", "TTFT p99", "TPOT mean", "recovery",
                "interrupted: n, stall", "verdict");
        row(out, "simulator", sim, "");
        row(out, "runtime, virtual time", virt, "");
        row(out, "live (lumen serve)", live, lr.verdict().toString());
        out.printf(Locale.ROOT, "  live against the simulator: TTFT %s, TPOT %s, stall of the interrupted %s; against the runtime: TTFT %s,"
                + " TPOT %s, stall %s%n", err(live.ttftAll().mean(), sim.ttftAll().mean()), err(live.tpotAll().mean(), sim.tpotAll().mean()),
                err(live.ttftInterrupted().mean(), sim.ttftInterrupted().mean()), err(live.ttftAll().mean(), virt.ttftAll().mean()),
                err(live.tpotAll().mean(), virt.tpotAll().mean()), err(live.ttftInterrupted().mean(), virt.ttftInterrupted().mean()));
        out.println("  (recovery: the simulator's definition, back within 10% of the failure-free run for 30 s; stall: the interrupted"
                + " requests' time from the failure to their next token)");
        out.flush();
    }

    private static String err(double live, double ref) {
        return Double.isNaN(live) || Double.isNaN(ref) || ref == 0 ? "n/a" : String.format(Locale.ROOT, "%+.0f%%", 100 * (live / ref - 1));
    }

    private static void row(PrintWriter out, String label, SimMetrics.Summary s, String verdict) {
        out.printf(Locale.ROOT, "  %-26s %9.0f ms %9.0f ms %9.1f ms %12s %6d, %6.0f ms %12s%n", label, s.ttftAll().mean(), s.ttftAll().p99(),
                s.tpotAll().mean(), Double.isNaN(s.recoveryMs()) ? "never" : String.format(Locale.ROOT, "%.0f ms", s.recoveryMs()),
                s.ttftInterrupted().n(), s.ttftInterrupted().mean(), verdict);
    }

    /** The reference runtime on virtual time, its clients' view as the simulator's per-request times. */
    static SimResult runtime(lumen.core.Config cfg, CostModel cost, List<Arrival> arrivals, List<Fault> faults) throws Exception {
        ByteArrayOutputStream hist = new ByteArrayOutputStream();
        HistoryRecorder rec = new HistoryRecorder(hist, arrivals);
        new ClusterRuntime(cfg, cost, ClusterRuntime.Options.defaults(cfg.pageTokens()), rec::accept).run(arrivals, faults);
        return HistoryCheck.asRun(History.read(new ByteArrayInputStream(hist.toByteArray()), "runtime"));
    }

    /** One live run of the arrivals, with these kills; the client history. */
    static History live(lumen.core.Config cfg, CostModel cost, List<Arrival> arrivals, List<LiveConform.Fault> faults, Path run) throws Exception {
        Files.createDirectories(run);
        Path h = run.resolve("client.history.jsonl");
        try (LiveServer s = LiveServer.start(settings(cfg, cost, run), null, 60_000)) {
            // the arrivals are given: only the faults and the request timeout of these options count
            LiveConform.Options o = new LiveConform.Options(null, "conv", 1, 0, Integer.MAX_VALUE, Integer.MAX_VALUE, 0, faults, null, null, 0,
                    120_000, null, null).againstServe(s.url(), run, 0, h);
            LiveConform.run(o, arrivals, new PrintWriter(OutputStream.nullOutputStream()));
        }
        try (var in = Files.newInputStream(h)) {
            return History.read(in, h.toString());
        }
    }
}
