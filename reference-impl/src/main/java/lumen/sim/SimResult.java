package lumen.sim;

import java.util.ArrayList;
import java.util.List;

/** What one simulated run measured: per-request times, the failures, the drafts verified. */
public final class SimResult {

    /**
     * Workers failing together at one time. With {@code holder}, the worker that holds the most
     * checkpoints of their requests at that moment fails with them (the paper's "holder fails too"
     * scenario). The holder is found at run time; when the failing workers' requests have none (a
     * policy without checkpoints, or nothing checkpointed yet), {@code fallback} fails instead, so that
     * every policy loses as many workers.
     */
    public record Failure(double atMs, int[] workers, boolean holder, int fallback) {
        public Failure(double atMs, int[] workers) {
            this(atMs, workers, false, -1);
        }
    }

    /** One verified draft: when, how long after its draft model was ready, tokens proposed and kept. */
    public record Draft(double atMs, double sinceReadyMs, int proposed, int accepted) {}

    /** One request: its arrival, first token and completion times (ms), and what befell it. */
    public static final class Req {
        public final int id;
        public final double arriveMs;
        public final int promptLen;
        public final int outLen;
        public double firstMs = Double.NaN;
        public double doneMs = Double.NaN;
        public boolean interrupted;
        public boolean restored;
        /** When a failure first interrupted it, and when it next delivered a token (ms). */
        public double interruptedMs = Double.NaN;
        public double replayFirstMs = Double.NaN;
        /** When it last delivered a token (ms): the start of its next decode step's time per token. */
        public double lastTokenMs = Double.NaN;

        public Req(int id, double arriveMs, int promptLen, int outLen) {
            this.id = id;
            this.arriveMs = arriveMs;
            this.promptLen = promptLen;
            this.outLen = outLen;
        }

        public double ttftMs() {
            return firstMs - arriveMs;
        }

        /** The paper's replay TTFT of an interrupted request: from the failure to its next token (ms). */
        public double replayTtftMs() {
            return replayFirstMs - interruptedMs;
        }

        /** Time per output token after the first, ms; NaN for a one-token output. */
        public double tpotMs() {
            return outLen > 1 ? (doneMs - firstMs) / (outLen - 1) : Double.NaN;
        }
    }

    /** The cluster once a second: requests waiting for prefill, requests decoding, output tokens so far. */
    public record Sample(double atMs, int queued, int decoding, long tokens) {}

    /**
     * A metric's values filed by the second in which they happened: per second, their weighted sum,
     * sum of squares and weight, so that any window's mean and its standard error come from sums.
     */
    public static final class Series {
        private double[] sum = new double[64];
        private double[] sumSq = new double[64];
        private double[] weight = new double[64];
        private int seconds;

        /** A value at {@code atMs}, counted {@code w} times (a decode step's per-token time counts once per token). */
        public void add(double atMs, double value, double w) {
            if (Double.isNaN(value) || Double.isNaN(atMs) || w <= 0) {
                return;
            }
            int s = Math.max(0, (int) (atMs / 1000));
            if (s >= sum.length) {
                int n = Math.max(s + 1, sum.length * 2);
                sum = java.util.Arrays.copyOf(sum, n);
                sumSq = java.util.Arrays.copyOf(sumSq, n);
                weight = java.util.Arrays.copyOf(weight, n);
            }
            sum[s] += value * w;
            sumSq[s] += value * value * w;
            weight[s] += w;
            seconds = Math.max(seconds, s + 1);
        }

        /** Seconds from 0 to the last with a value. */
        public int seconds() {
            return seconds;
        }

        public double sum(int s) {
            return s < seconds ? sum[s] : 0;
        }

        public double sumSq(int s) {
            return s < seconds ? sumSq[s] : 0;
        }

        public double weight(int s) {
            return s < seconds ? weight[s] : 0;
        }

        /** The mean over seconds [from, to), NaN when there is nothing there. */
        public double mean(int from, int to) {
            double a = 0;
            double w = 0;
            for (int s = Math.max(0, from); s < Math.min(to, seconds); s++) {
                a += sum[s];
                w += weight[s];
            }
            return w == 0 ? Double.NaN : a / w;
        }
    }

    public final List<Req> requests = new ArrayList<>();
    public final List<Sample> samples = new ArrayList<>();
    public final List<Failure> failures = new ArrayList<>();
    public final List<Draft> drafts = new ArrayList<>();
    /** Time per output token of every decode step, filed by the step's end (weight: its tokens). */
    public final Series tpotSteps = new Series();
    public long events;
    public long failuresSkipped;
    public double endMs;
    public double wallSeconds;
}
