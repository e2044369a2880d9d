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

    public final List<Req> requests = new ArrayList<>();
    public final List<Sample> samples = new ArrayList<>();
    public final List<Failure> failures = new ArrayList<>();
    public final List<Draft> drafts = new ArrayList<>();
    public long events;
    public long failuresSkipped;
    public double endMs;
    public double wallSeconds;
}
