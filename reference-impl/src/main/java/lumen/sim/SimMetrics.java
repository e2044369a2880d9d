package lumen.sim;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.DoubleHistogram;

/**
 * The paper's metrics, from a run with failures and the same seed's run without them (the same
 * arrivals, so the two are paired second by second and request by request).
 *
 * <ul>
 *   <li><b>Series</b>: TTFT filed by the second of the first token (an interrupted request's replay
 *       TTFT by the second of its first token after the failure), and the time per output token of
 *       every decode step filed by the second the step ends, weighted by its tokens
 *       ({@link SimResult#tpotSteps}). A request's stall across a failure is one long step.</li>
 *   <li><b>Recovery time</b>: from the first failure to the start of the first {@link #SUSTAIN_S}
 *       seconds in a row at which neither series is degraded (the metrics are back, and stay back),
 *       before the last arrival. A second is degraded when the run's mean over the
 *       {@code 2 * HALF_WINDOW_S + 1} seconds around it exceeds the failure-free run's by more than the
 *       paper's 10% plus {@link #Z} standard errors of the difference of the two means (a noise-aware
 *       band: a second with few requests must be worse by more before it counts). One-second
 *       resolution, so no bin edges to fall on. NaN ("never") when no such stretch comes before the
 *       last arrival. A divergence long after the recovery (a burst the two runs meet in different
 *       states) does not undo it. The paper's reading ({@link #paperRecoveryMs}: back within 10%)
 *       is the same with no allowance for noise.</li>
 *   <li><b>Failure-impact window</b>: from the failure, as long as the longest recovery among the
 *       policies compared ({@link #experiment}), at least {@link #MIN_WINDOW_MS}; the same window for
 *       every policy and for the failure-free run, so that a policy that recovers early is not
 *       diluted by a longer window than another's. {@link #summarize} alone takes the run's own.</li>
 *   <li><b>TTFT and TPOT</b> (mean, p50, p99, by HdrHistogram) over the requests whose (replay)
 *       first token falls in the window: all of them, the interrupted ones and the survivors'.</li>
 *   <li><b>Excess TTFT</b>, window-free, in request-seconds: over every request, paired by id with
 *       the failure-free run, how much later its first token came, plus each interrupted request's
 *       stall (its replay TTFT).</li>
 * </ul>
 */
public final class SimMetrics {
    /** Seconds on each side of a second that its degradation test averages (5 s in all). */
    public static final int HALF_WINDOW_S = 2;
    /** The paper's band: back within 10% of the failure-free run. */
    public static final double BAND = 0.10;
    /** Standard errors of the difference that the band also allows. */
    public static final double Z = 3;
    /** Seconds in a row that must be good for the metrics to count as back. */
    public static final int SUSTAIN_S = 30;
    /** The shortest failure-impact window. */
    public static final double MIN_WINDOW_MS = 10_000;

    /** Mean, median and 99th percentile of a set of times (ms); n = 0 gives NaNs. */
    public record Stats(long n, double mean, double p50, double p99) {
        public String text() {
            return n == 0 ? "-" : String.format(Locale.ROOT, "%.0f / %.0f / %.0f", mean, p50, p99);
        }
    }

    /**
     * One policy's figures over a failure-impact window of {@code windowMs} from {@code failAtMs}.
     * {@code excessTtftS} is the window-free excess TTFT, request-seconds (NaN for a failure-free run).
     */
    public record Summary(String policy, double failAtMs, double recoveryMs, double windowMs, Stats ttftAll, Stats ttftInterrupted,
                          Stats ttftSurvivors, Stats tpotAll, Stats tpotInterrupted, Stats tpotSurvivors,
                          long requests, long interrupted, long restored, double draftAcceptance, double excessTtftS,
                          double paperRecoveryMs) {
        /** The same figures with the noise-aware recovery only (the paper's reading not computed: NaN). */
        public Summary(String policy, double failAtMs, double recoveryMs, double windowMs, Stats ttftAll, Stats ttftInterrupted,
                       Stats ttftSurvivors, Stats tpotAll, Stats tpotInterrupted, Stats tpotSurvivors,
                       long requests, long interrupted, long restored, double draftAcceptance, double excessTtftS) {
            this(policy, failAtMs, recoveryMs, windowMs, ttftAll, ttftInterrupted, ttftSurvivors, tpotAll, tpotInterrupted, tpotSurvivors,
                    requests, interrupted, restored, draftAcceptance, excessTtftS, Double.NaN);
        }

        /** The same figures without a recovery time (nothing to compare with). */
        public Summary withoutRecovery() {
            return new Summary(policy, failAtMs, Double.NaN, windowMs, ttftAll, ttftInterrupted, ttftSurvivors, tpotAll, tpotInterrupted,
                    tpotSurvivors, requests, interrupted, restored, draftAcceptance, Double.NaN, Double.NaN);
        }
    }

    private SimMetrics() {}

    public static Stats stats(List<SimResult.Req> rs, ToDoubleFunction<SimResult.Req> f) {
        DoubleHistogram h = new DoubleHistogram(3);
        double sum = 0;
        long n = 0;
        for (SimResult.Req r : rs) {
            double v = f.applyAsDouble(r);
            if (!Double.isNaN(v)) {
                h.recordValue(Math.max(v, 0.001));
                sum += v;
                n++;
            }
        }
        return n == 0 ? new Stats(0, Double.NaN, Double.NaN, Double.NaN)
                : new Stats(n, sum / n, h.getValueAtPercentile(50), h.getValueAtPercentile(99));
    }

    /** A request's TTFT as the paper counts it: an interrupted request's is its replay TTFT. */
    static double ttft(SimResult.Req r) {
        return r.interrupted ? r.replayTtftMs() : r.ttftMs();
    }

    /** When that first token came (ms). */
    static double firstTokenMs(SimResult.Req r) {
        return r.interrupted ? r.replayFirstMs : r.firstMs;
    }

    /** TTFT filed by the second of the first token. */
    public static SimResult.Series ttftSeries(SimResult r) {
        SimResult.Series s = new SimResult.Series();
        for (SimResult.Req q : r.requests) {
            s.add(firstTokenMs(q), ttft(q), 1);
        }
        return s;
    }

    /** Whether second {@code at} of {@code run} is degraded against {@code base} (see the class comment), {@code z} standard errors of noise allowed ({@link #Z}: the kit's band; 0: the paper's reading). */
    static boolean degraded(SimResult.Series run, SimResult.Series base, int at, double z) {
        double[] a = window(run, at);
        double[] b = window(base, at);
        if (a[2] == 0 || b[2] == 0) {
            return false;
        }
        double ma = a[0] / a[2];
        double mb = b[0] / b[2];
        double va = Math.max(0, a[1] / a[2] - ma * ma);
        double vb = Math.max(0, b[1] / b[2] - mb * mb);
        double se = Math.sqrt(va / a[2] + vb / b[2]);
        return ma - mb > BAND * mb + z * se;
    }

    /** {sum, sum of squares, weight} over the seconds around {@code at}. */
    private static double[] window(SimResult.Series s, int at) {
        double[] w = new double[3];
        for (int i = Math.max(0, at - HALF_WINDOW_S); i <= at + HALF_WINDOW_S; i++) {
            w[0] += s.sum(i);
            w[1] += s.sumSq(i);
            w[2] += s.weight(i);
        }
        return w;
    }

    /**
     * Recovery time after {@code failAtMs} of {@code run} against {@code baseline}: to the start of the
     * first {@link #SUSTAIN_S} seconds in a row with neither series degraded, before the last arrival;
     * 0 when they start at the failure; NaN when there are none.
     */
    public static double recoveryMs(SimResult run, SimResult baseline, double failAtMs) {
        return recoveryMs(run, baseline, failAtMs, Z);
    }

    /**
     * The paper's recovery time: as {@link #recoveryMs(SimResult, SimResult, double)}, a second
     * degraded as soon as the run's mean exceeds the failure-free run's by more than 10%, with no
     * allowance for noise ("back within 10% of the failure-free run").
     */
    public static double paperRecoveryMs(SimResult run, SimResult baseline, double failAtMs) {
        return recoveryMs(run, baseline, failAtMs, 0);
    }

    private static double recoveryMs(SimResult run, SimResult baseline, double failAtMs, double z) {
        double lastArrival = run.requests.stream().mapToDouble(r -> r.arriveMs).max().orElse(0);
        int from = (int) (failAtMs / 1000);
        int to = (int) (lastArrival / 1000);
        SimResult.Series[][] pairs = {{ttftSeries(run), ttftSeries(baseline)}, {run.tpotSteps, baseline.tpotSteps}};
        int good = 0;
        for (int s = from; s <= to; s++) {
            boolean bad = false;
            for (SimResult.Series[] p : pairs) {
                bad |= degraded(p[0], p[1], s, z);
            }
            good = bad ? 0 : good + 1;
            if (good == SUSTAIN_S) {
                int start = s - SUSTAIN_S + 1;
                return start == from ? 0 : start * 1000.0 - failAtMs;
            }
        }
        return Double.NaN;
    }

    /**
     * The window-free excess TTFT of {@code run} over {@code baseline}, request-seconds: per request
     * (paired by id), how much later its first token came, plus an interrupted request's replay TTFT.
     */
    public static double excessTtftS(SimResult run, SimResult baseline) {
        Map<Integer, SimResult.Req> base = new HashMap<>();
        for (SimResult.Req q : baseline.requests) {
            base.put(q.id, q);
        }
        double sum = 0;
        for (SimResult.Req q : run.requests) {
            SimResult.Req b = base.get(q.id);
            if (b == null || Double.isNaN(q.firstMs) || Double.isNaN(b.firstMs)) {
                continue;
            }
            sum += q.firstMs - b.firstMs + (q.interrupted && !Double.isNaN(q.replayTtftMs()) ? q.replayTtftMs() : 0);
        }
        return sum / 1000;
    }

    /** The run's figures over its own failure-impact window. */
    public static Summary summarize(String policy, SimResult run, SimResult baseline) {
        double failAt = run.failures.isEmpty() ? Double.NaN : run.failures.get(0).atMs();
        double rec = Double.isNaN(failAt) ? Double.NaN : recoveryMs(run, baseline, failAt);
        return summarize(policy, run, baseline, rec, windowFor(rec));
    }

    /** The window that covers a recovery of {@code recoveryMs} (NaN: to the end of the run). */
    static double windowFor(double recoveryMs) {
        return Double.isNaN(recoveryMs) ? Double.POSITIVE_INFINITY : Math.max(recoveryMs, MIN_WINDOW_MS);
    }

    /** The run's figures over a window of {@code windowMs} from its failure, with its recovery time already found. */
    static Summary summarize(String policy, SimResult run, SimResult baseline, double recoveryMs, double windowMs) {
        double failAt = run.failures.isEmpty() ? Double.NaN : run.failures.get(0).atMs();
        List<SimResult.Req> all = new ArrayList<>();
        List<SimResult.Req> hit = new ArrayList<>();
        List<SimResult.Req> surv = new ArrayList<>();
        for (SimResult.Req r : run.requests) {
            if (inWindow(firstTokenMs(r), failAt, windowMs)) {
                all.add(r);
                (r.interrupted ? hit : surv).add(r);
            }
        }
        long proposed = run.drafts.stream().mapToLong(SimResult.Draft::proposed).sum();
        long accepted = run.drafts.stream().mapToLong(SimResult.Draft::accepted).sum();
        return new Summary(policy, failAt, recoveryMs, windowMs, stats(all, SimMetrics::ttft), stats(hit, SimResult.Req::replayTtftMs),
                stats(surv, SimResult.Req::ttftMs), stats(all, SimResult.Req::tpotMs), stats(hit, SimResult.Req::tpotMs),
                stats(surv, SimResult.Req::tpotMs), run.requests.size(), run.requests.stream().filter(r -> r.interrupted).count(),
                run.requests.stream().filter(r -> r.restored).count(), proposed == 0 ? Double.NaN : accepted / (double) proposed,
                Double.isNaN(failAt) ? Double.NaN : excessTtftS(run, baseline),
                Double.isNaN(failAt) ? Double.NaN : paperRecoveryMs(run, baseline, failAt));
    }

    private static boolean inWindow(double t, double failAt, double windowMs) {
        return Double.isNaN(failAt) || t >= failAt && t < failAt + windowMs;
    }

    /**
     * One experiment: each policy's failure run against its own failure-free run, all over one
     * window (the longest recovery among them), preceded by the failure-free run of the first
     * policy over that window, labelled {@code baselineLabel}.
     *
     * @param runs      per policy, in order: {failure run, its failure-free run}
     */
    public static List<Summary> experiment(Map<String, SimResult[]> runs, String baselineLabel) {
        Map<String, Double> rec = new LinkedHashMap<>();
        double window = MIN_WINDOW_MS;
        for (Map.Entry<String, SimResult[]> e : runs.entrySet()) {
            SimResult run = e.getValue()[0];
            double failAt = run.failures.isEmpty() ? Double.NaN : run.failures.get(0).atMs();
            double r = Double.isNaN(failAt) ? Double.NaN : recoveryMs(run, e.getValue()[1], failAt);
            rec.put(e.getKey(), r);
            window = Math.max(window, windowFor(r));
        }
        List<Summary> out = new ArrayList<>();
        Map.Entry<String, SimResult[]> first = runs.entrySet().iterator().next();
        double failAt = first.getValue()[0].failures.isEmpty() ? Double.NaN : first.getValue()[0].failures.get(0).atMs();
        out.add(baselineOver(baselineLabel, first.getValue()[1], failAt, window));
        for (Map.Entry<String, SimResult[]> e : runs.entrySet()) {
            out.add(summarize(e.getKey(), e.getValue()[0], e.getValue()[1], rec.get(e.getKey()), window));
        }
        return out;
    }

    /**
     * The failure-free run's figures over the window {@code windowMs} from {@code failAtMs}, so that a
     * policy and the baseline are compared on the same stretch of the workload.
     */
    public static Summary baselineOver(String label, SimResult base, double failAtMs, double windowMs) {
        List<SimResult.Req> in = new ArrayList<>();
        for (SimResult.Req r : base.requests) {
            if (inWindow(r.firstMs, failAtMs, windowMs)) {
                in.add(r);
            }
        }
        Stats none = new Stats(0, Double.NaN, Double.NaN, Double.NaN);
        return new Summary(label, Double.NaN, Double.NaN, windowMs, stats(in, SimResult.Req::ttftMs), none, stats(in, SimResult.Req::ttftMs),
                stats(in, SimResult.Req::tpotMs), none, stats(in, SimResult.Req::tpotMs), in.size(), 0, 0, Double.NaN, Double.NaN);
    }

    /** The summaries as a text table. */
    public static String table(List<Summary> ss) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-24s %9s %9s %20s %20s %20s %20s %20s %8s %8s%n", "policy", "recovery", "excess", "TTFT all (ms)",
                "TTFT interrupted", "TTFT survivors", "TPOT all (ms)", "TPOT interrupted", "interr.", "accept"));
        b.append(String.format(Locale.ROOT, "%-24s %9s %9s %20s %20s %20s %20s %20s %8s %8s%n", "", "(s)", "TTFT(r·s)", "mean / p50 / p99", "", "",
                "mean / p50 / p99", "", "", ""));
        for (Summary s : ss) {
            b.append(String.format(Locale.ROOT, "%-24s %9s %9s %20s %20s %20s %20s %20s %8d %8s%n", s.policy(),
                    Double.isNaN(s.failAtMs()) ? "-" : Double.isNaN(s.recoveryMs()) ? "never" : String.format(Locale.ROOT, "%.0f", s.recoveryMs() / 1000),
                    Double.isNaN(s.excessTtftS()) ? "-" : String.format(Locale.ROOT, "%.0f", s.excessTtftS()),
                    s.ttftAll().text(), s.ttftInterrupted().text(), s.ttftSurvivors().text(), s.tpotAll().text(), s.tpotInterrupted().text(),
                    s.interrupted(), Double.isNaN(s.draftAcceptance()) ? "-" : String.format(Locale.ROOT, "%.2f", s.draftAcceptance())));
        }
        if (!ss.isEmpty() && Double.isFinite(ss.get(0).windowMs())) {
            b.append(String.format(Locale.ROOT, "(TTFT and TPOT over the requests whose first token falls in the %.0f s from the failure: the longest"
                    + " recovery; excess TTFT over every request, against the same seed's run without the failure)%n", ss.get(0).windowMs() / 1000));
        }
        return b.toString();
    }

    /** Per-request CSV: one row per request. */
    public static void writeCsv(SimResult r, String policy, Writer w) throws IOException {
        w.write("policy,request,arrive_ms,prompt_tokens,output_tokens,first_token_ms,done_ms,ttft_ms,tpot_ms,interrupted,restored,"
                + "interrupted_ms,replay_ttft_ms\n");
        for (SimResult.Req q : r.requests) {
            w.write(String.format(Locale.ROOT, "%s,%d,%.3f,%d,%d,%.3f,%.3f,%.3f,%s,%b,%b,%s,%s%n", policy, q.id, q.arriveMs, q.promptLen, q.outLen,
                    q.firstMs, q.doneMs, q.ttftMs(), Double.isNaN(q.tpotMs()) ? "" : String.format(Locale.ROOT, "%.3f", q.tpotMs()),
                    q.interrupted, q.restored, q.interrupted ? String.format(Locale.ROOT, "%.3f", q.interruptedMs) : "",
                    q.interrupted ? String.format(Locale.ROOT, "%.3f", q.replayTtftMs()) : ""));
        }
    }
}
