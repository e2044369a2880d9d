package lumen.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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

    /** Runs of the overhead measurement, each on a fresh lumen serve: the figures are given as their median and range. */
    static final int OVERHEAD_RUNS = 3;

    public static void run(PrintWriter out, boolean quick, Path dir) throws Exception {
        overhead(out, quick ? OVERHEAD_REQUESTS / 4 : OVERHEAD_REQUESTS, quick ? 2 : OVERHEAD_RUNS, dir);
        out.println();
        versus(out, quick, dir);
    }

    private static LiveServer.Settings settings(lumen.core.Config cfg, CostModel cost, Path logDir) {
        return new LiveServer.Settings(cfg, cost, 0, 300, LiveCluster.Options.defaults(), 120_000, logDir);
    }

    /** One run's figures: serial latency p50 and p99 (ms), concurrent throughput (requests/s). */
    record Figures(double p50, double p99, double perSecond) {}

    /**
     * The gateway's overhead, in {@code runs} runs: in each, the same one-token requests first to a
     * bare streaming endpoint on loopback (the HTTP exchange alone: the floor), then through lumen
     * serve with 3 workers, one at a time (latency against the modelled prefill and the floor) and
     * {@link #OVERHEAD_CONCURRENCY} at a time (throughput). Each figure is printed as the median of
     * the runs with their range, with the machine's load average beside it: on shared cores the
     * figures move with what else runs.
     */
    static void overhead(PrintWriter out, int n, int runs, Path dir) throws Exception {
        SimpleCostModel cost = SimpleCostModel.fastReload();
        double modelled = cost.prefillMs(OVERHEAD_PROMPT);
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        out.printf(Locale.ROOT, "Gateway on loopback (3 workers, one-token requests of %d prompt tokens, streamed; %d runs of %d requests"
                + " one at a time and %d at a time; %d cores, load average %.2f at the start):%n", OVERHEAD_PROMPT, runs, n,
                OVERHEAD_CONCURRENCY, os.getAvailableProcessors(), os.getSystemLoadAverage());
        // a warm-up pass, not counted: the client's HTTP stack is compiled before anything is timed
        org.eclipse.jetty.server.Server warm = bareEndpoint();
        try {
            measure("http://127.0.0.1:" + ((org.eclipse.jetty.server.ServerConnector) warm.getConnectors()[0]).getLocalPort(), n);
        } finally {
            warm.stop();
        }
        List<Figures> floor = new ArrayList<>();
        List<Figures> gateway = new ArrayList<>();
        String callsLine = "";
        int suspicions = 0;
        double silence = 0;
        for (int run = 0; run < runs; run++) {
            org.eclipse.jetty.server.Server bare = bareEndpoint();
            try {
                floor.add(measure("http://127.0.0.1:" + ((org.eclipse.jetty.server.ServerConnector) bare.getConnectors()[0]).getLocalPort(), n));
            } finally {
                bare.stop();
            }
            try (LiveServer s = LiveServer.start(settings(lumen.core.Config.defaults("lumen").withWorkers(3), cost,
                    Files.createDirectories(dir.resolve("overhead-" + run))), null, 60_000)) {
                gateway.add(measure(s.url(), n));
                // nothing is failed in this run: every failure the detector declared is a false suspicion
                suspicions += s.cluster().suspicions().size();
                silence = Math.max(silence, s.cluster().longestSilenceMs());
                org.HdrHistogram.Histogram calls = s.cluster().callLatency();
                callsLine = String.format(Locale.ROOT, "  the gateway's calls to its workers (last run, %d, the warm-up included): p50 %.2f ms,"
                        + " p99 %.2f ms%n", calls.getTotalCount(), calls.getValueAtPercentile(50) / 1000.0, calls.getValueAtPercentile(99) / 1000.0);
            }
            Figures f = floor.get(run);
            Figures g = gateway.get(run);
            out.printf(Locale.ROOT, "  run %d: bare endpoint p50 %.2f ms, p99 %.2f ms, %.0f requests/s; lumen serve p50 %.1f ms, p99 %.1f ms,"
                    + " %.0f requests/s%n", run + 1, f.p50(), f.p99(), f.perSecond(), g.p50(), g.p99(), g.perSecond());
            out.flush();
        }
        out.printf(Locale.ROOT, "  lumen serve, one at a time: latency p50 %s ms, p99 %s ms (median [range] of %d runs), where the cost"
                + " model charges %.1f ms (the prefill): the live overhead is p50 %s ms, p99 %s ms%n", spread(gateway, Figures::p50, 0, 1),
                spread(gateway, Figures::p99, 0, 1), runs, modelled, spread(gateway, Figures::p50, modelled, 1),
                spread(gateway, Figures::p99, modelled, 1));
        out.printf(Locale.ROOT, "  against the bare endpoint in the same runs: p50 %s times, p99 %s times its latency; throughput %s of"
                + " its requests/s%n", ratio(gateway, floor, Figures::p50), ratio(gateway, floor, Figures::p99),
                ratio(gateway, floor, Figures::perSecond));
        out.printf(Locale.ROOT, "  %d at a time: %s requests/s%n", OVERHEAD_CONCURRENCY, spread(gateway, Figures::perSecond, 0, 0));
        out.print(callsLine);
        LiveCluster.Options det = LiveCluster.Options.defaults();
        out.printf(Locale.ROOT, "  the failure detector under this load (heartbeat every %d ms, timeout %d ms): %d false suspicions in %d runs"
                + " (no worker was failed); the longest a live worker went unheard %.0f ms, %.2f of the timeout%n", det.heartbeatMs(),
                det.timeoutMs(), suspicions, runs, silence, silence / det.timeoutMs());
        out.flush();
    }

    /** Serial latency percentiles and concurrent throughput of one-token requests to {@code url}. */
    static Figures measure(String url, int n) throws Exception {
        HistoryClient c = new HistoryClient(url, OutputStream.nullOutputStream(), Duration.ofSeconds(60));
        double[] lat = new double[n];
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
        double wall = (System.nanoTime() - t0) / 1e9;
        pool.shutdownNow();
        java.util.Arrays.sort(lat);
        return new Figures(pct(lat, 50), pct(lat, 99), n / wall);
    }

    /**
     * A bare streaming completions endpoint on loopback, on the same HTTP server as the gateway
     * (Jetty): each request answered with one chunk of one token and [DONE], no model and no
     * cluster, so its latency is the HTTP exchange's alone.
     */
    static org.eclipse.jetty.server.Server bareEndpoint() throws Exception {
        org.eclipse.jetty.util.thread.QueuedThreadPool pool = new org.eclipse.jetty.util.thread.QueuedThreadPool(64, 8);
        pool.setDaemon(true);
        org.eclipse.jetty.server.Server s = new org.eclipse.jetty.server.Server(pool);
        org.eclipse.jetty.server.ServerConnector c = new org.eclipse.jetty.server.ServerConnector(s);
        c.setHost("127.0.0.1");
        c.setPort(0);
        s.addConnector(c);
        byte[] body = ("data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"1\",\"token_ids\":[1],"
                + "\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        s.setHandler(new org.eclipse.jetty.server.Handler.Abstract() {
            @Override
            public boolean handle(org.eclipse.jetty.server.Request req, org.eclipse.jetty.server.Response res,
                    org.eclipse.jetty.util.Callback cb) throws Exception {
                org.eclipse.jetty.server.Request.asInputStream(req).readAllBytes();
                res.setStatus(200);
                res.getHeaders().put(org.eclipse.jetty.http.HttpHeader.CONTENT_TYPE, "text/event-stream");
                try (OutputStream o = org.eclipse.jetty.io.Content.Sink.asOutputStream(res)) {
                    o.write(body);
                }
                cb.succeeded();
                return true;
            }
        });
        s.start();
        return s;
    }

    /** "median [min-max]" of a figure over the runs, less {@code minus}, with {@code decimals}. */
    static String spread(List<Figures> fs, java.util.function.ToDoubleFunction<Figures> f, double minus, int decimals) {
        double[] v = fs.stream().mapToDouble(f).map(x -> x - minus).sorted().toArray();
        String fmt = "%." + decimals + "f";
        return String.format(Locale.ROOT, fmt + " [" + fmt + "-" + fmt + "]", v[v.length / 2], v[0], v[v.length - 1]);
    }

    /** The per-run ratio of a figure, gateway over floor: "median [min-max]". */
    static String ratio(List<Figures> g, List<Figures> floor, java.util.function.ToDoubleFunction<Figures> f) {
        double[] v = new double[g.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(g.get(i)) / f.applyAsDouble(floor.get(i));
        }
        java.util.Arrays.sort(v);
        return String.format(Locale.ROOT, "%.2f [%.2f-%.2f]", v[v.length / 2], v[0], v[v.length - 1]);
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
