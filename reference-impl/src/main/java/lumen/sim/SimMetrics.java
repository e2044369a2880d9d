package lumen.sim;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.DoubleHistogram;

/**
 * The paper's metrics, from a run with failures and the same run without them.
 *
 * <ul>
 *   <li><b>Recovery time</b>: from the first failure until the metrics are back within 10% of the
 *       failure-free baseline and stay there: requests are binned by arrival time ({@link #BIN_MS}),
 *       and each bin's mean is smoothed over it and its two neighbours (so that one noisy bin of a
 *       few requests does not count as degraded); recovery ends where {@link #SUSTAIN_BINS} bins in a
 *       row have TTFT and TPOT at most 1.1 times the baseline's (plus {@link #SLACK_MS}).</li>
 *   <li><b>Failure-impact window</b>: from the first failure to the end of recovery.</li>
 *   <li><b>TTFT and TPOT</b> (mean, p50, p99, by HdrHistogram) over the requests that arrive in the
 *       impact window or are interrupted: all of them, the interrupted ones, and the survivors' (never
 *       interrupted). An interrupted request's TTFT is the paper's <em>replay TTFT</em>: from the
 *       failure to its next token.</li>
 * </ul>
 */
public final class SimMetrics {
    public static final double BIN_MS = 5_000;
    public static final double SLACK_MS = 5;

    /** Mean, median and 99th percentile of a set of times (ms); n = 0 gives NaNs. */
    public record Stats(long n, double mean, double p50, double p99) {
        public String text() {
            return n == 0 ? "-" : String.format(Locale.ROOT, "%.0f / %.0f / %.0f", mean, p50, p99);
        }
    }

    /** One policy's figures. */
    public record Summary(String policy, double failAtMs, double recoveryMs, Stats ttftAll, Stats ttftInterrupted,
                          Stats ttftSurvivors, Stats tpotAll, Stats tpotInterrupted, Stats tpotSurvivors,
                          long requests, long interrupted, long restored, double draftAcceptance) {}

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

    /** Bin means of a metric by arrival time, each over the bin and its two neighbours. */
    static double[] bins(List<SimResult.Req> rs, ToDoubleFunction<SimResult.Req> f, int count) {
        double[] sum = new double[count];
        int[] n = new int[count];
        for (SimResult.Req r : rs) {
            int b = (int) (r.arriveMs / BIN_MS);
            double v = f.applyAsDouble(r);
            if (b < count && !Double.isNaN(v)) {
                sum[b] += v;
                n[b]++;
            }
        }
        double[] m = new double[count];
        for (int i = 0; i < count; i++) {
            double s = 0;
            int k = 0;
            for (int j = Math.max(0, i - 1); j <= Math.min(count - 1, i + 1); j++) {
                s += sum[j];
                k += n[j];
            }
            m[i] = k == 0 ? Double.NaN : s / k;
        }
        return m;
    }

    /** Bins that must be good in a row for the metrics to count as back (30 s). */
    public static final int SUSTAIN_BINS = 6;

    /**
     * Recovery time after {@code failAtMs} of {@code run} against {@code baseline}: the start of
     * the first {@link #SUSTAIN_BINS} bins in a row whose smoothed TTFT and TPOT are both within
     * 10% of the baseline's (bins without requests count as good), minus the failure time; NaN
     * when that never happens.
     */
    public static double recoveryMs(SimResult run, SimResult baseline, double failAtMs) {
        double end = Math.max(run.requests.stream().mapToDouble(r -> r.arriveMs).max().orElse(0), failAtMs);
        int count = (int) (end / BIN_MS) + 1;
        int failBin = (int) (failAtMs / BIN_MS);
        boolean[] bad = new boolean[count];
        for (ToDoubleFunction<SimResult.Req> m : List.<ToDoubleFunction<SimResult.Req>>of(SimResult.Req::ttftMs, SimResult.Req::tpotMs)) {
            double[] a = bins(run.requests, m, count);
            double[] b = bins(baseline.requests, m, count);
            for (int i = failBin; i < count; i++) {
                bad[i] |= !Double.isNaN(a[i]) && !Double.isNaN(b[i]) && a[i] > 1.1 * b[i] + SLACK_MS;
            }
        }
        int good = 0;
        for (int i = failBin; i < count; i++) {
            good = bad[i] ? 0 : good + 1;
            if (good == SUSTAIN_BINS) {
                int start = i - SUSTAIN_BINS + 1;
                return start == failBin ? 0 : start * BIN_MS - failAtMs;
            }
        }
        return Double.NaN;
    }

    public static Summary summarize(String policy, SimResult run, SimResult baseline) {
        double failAt = run.failures.isEmpty() ? Double.NaN : run.failures.get(0).atMs();
        double rec = Double.isNaN(failAt) ? Double.NaN : recoveryMs(run, baseline, failAt);
        double windowEnd = Double.isNaN(rec) ? Double.POSITIVE_INFINITY : failAt + Math.max(rec, BIN_MS);
        Predicate<SimResult.Req> inWindow = Double.isNaN(failAt) ? r -> true
                : r -> r.interrupted || r.arriveMs >= failAt && r.arriveMs < windowEnd || r.arriveMs < failAt && r.doneMs > failAt;
        List<SimResult.Req> all = new ArrayList<>();
        List<SimResult.Req> hit = new ArrayList<>();
        List<SimResult.Req> surv = new ArrayList<>();
        for (SimResult.Req r : run.requests) {
            if (inWindow.test(r)) {
                all.add(r);
                (r.interrupted ? hit : surv).add(r);
            }
        }
        long proposed = run.drafts.stream().mapToLong(SimResult.Draft::proposed).sum();
        long accepted = run.drafts.stream().mapToLong(SimResult.Draft::accepted).sum();
        ToDoubleFunction<SimResult.Req> ttft = r -> r.interrupted ? r.replayTtftMs() : r.ttftMs();
        return new Summary(policy, failAt, rec, stats(all, ttft), stats(hit, SimResult.Req::replayTtftMs),
                stats(surv, SimResult.Req::ttftMs), stats(all, SimResult.Req::tpotMs), stats(hit, SimResult.Req::tpotMs),
                stats(surv, SimResult.Req::tpotMs), run.requests.size(), run.requests.stream().filter(r -> r.interrupted).count(),
                run.requests.stream().filter(r -> r.restored).count(), proposed == 0 ? Double.NaN : accepted / (double) proposed);
    }

    /**
     * The failure-free run's figures over the arrivals of {@code of}'s failure-impact window (from
     * its failure to the end of its recovery, or to the end of the run), so that a policy and the
     * baseline are compared on the same stretch of the workload.
     */
    public static Summary baselineOver(String label, SimResult base, Summary of) {
        double from = of.failAtMs();
        double to = Double.isNaN(of.recoveryMs()) ? Double.POSITIVE_INFINITY : from + Math.max(of.recoveryMs(), BIN_MS);
        List<SimResult.Req> in = new ArrayList<>();
        for (SimResult.Req r : base.requests) {
            if (Double.isNaN(from) || r.arriveMs >= from && r.arriveMs < to) {
                in.add(r);
            }
        }
        Stats none = new Stats(0, Double.NaN, Double.NaN, Double.NaN);
        return new Summary(label, Double.NaN, Double.NaN, stats(in, SimResult.Req::ttftMs), none, stats(in, SimResult.Req::ttftMs),
                stats(in, SimResult.Req::tpotMs), none, stats(in, SimResult.Req::tpotMs), in.size(), 0, 0, Double.NaN);
    }

    /** The summaries as a text table. */
    public static String table(List<Summary> ss) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-24s %9s %20s %20s %20s %20s %20s %8s %8s%n", "policy", "recovery", "TTFT all (ms)",
                "TTFT interrupted", "TTFT survivors", "TPOT all (ms)", "TPOT interrupted", "interr.", "accept"));
        b.append(String.format(Locale.ROOT, "%-24s %9s %20s %20s %20s %20s %20s %8s %8s%n", "", "(s)", "mean / p50 / p99", "", "", "mean / p50 / p99", "", "", ""));
        for (Summary s : ss) {
            b.append(String.format(Locale.ROOT, "%-24s %9s %20s %20s %20s %20s %20s %8d %8s%n", s.policy(),
                    Double.isNaN(s.failAtMs()) ? "-" : Double.isNaN(s.recoveryMs()) ? "never" : String.format(Locale.ROOT, "%.0f", s.recoveryMs() / 1000),
                    s.ttftAll().text(), s.ttftInterrupted().text(), s.ttftSurvivors().text(), s.tpotAll().text(), s.tpotInterrupted().text(),
                    s.interrupted(), Double.isNaN(s.draftAcceptance()) ? "-" : String.format(Locale.ROOT, "%.2f", s.draftAcceptance())));
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
