package lumen.runtime;

/**
 * How long each piece of work takes, in milliseconds. The cluster runtime and the simulator take
 * every duration from here, so a calibrated model changes both at once.
 */
public interface CostModel {
    /** Computing {@code tokens} KV positions of one request's prefill (or catch-up). */
    double prefillMs(int tokens);

    /** One decode iteration of a batch of {@code batch} requests with mean context {@code ctx}. */
    double decodeMs(int batch, double ctx);

    /**
     * One decode iteration of {@code batch} requests with mean context {@code ctx} that also verifies
     * {@code draftTokens} draft tokens (over the batch's requests) as extra tokens of the same
     * forward pass.
     */
    double decodeMs(int batch, double ctx, int draftTokens);

    /**
     * One iteration of continuous batching: prefill chunks ({@code chunks[i]} new positions of a
     * request after {@code cached[i]} already in the GPU; null for none), a decode step of
     * {@code batch} requests with mean context {@code ctx}, and {@code draftTokens} draft tokens
     * verified in it. A model that knows one forward pass serves them all prices it as one pass;
     * this default prices the prefill and the decode as two.
     */
    default double iterationMs(int[] chunks, int[] cached, int batch, double ctx, int draftTokens) {
        int tokens = 0;
        if (chunks != null) {
            for (int c : chunks) {
                tokens += c;
            }
        }
        return (tokens > 0 ? prefillMs(tokens) : 0) + (batch > 0 ? decodeMs(batch, ctx, draftTokens) : 0);
    }

    /** Streaming one physical page of {@code pageTokens} positions to the holder's host memory. */
    double streamPageMs(int pageTokens);

    /** Restoring {@code positions} checkpointed positions from host memory into the GPU. */
    double restoreMs(int positions);

    /** Loading the draft model after a restart. */
    double draftLoadMs();

    /** Loading the full model after a restart (in the background of the draft, under LUMEN). */
    double fullLoadMs();

    /** The draft model proposing {@code k} tokens for each of {@code batch} requests, in one batched step. */
    double draftRoundMs(int k, int batch);

    /** Time from a worker's failure until it restarts (detection and process restart). */
    double restartDelayMs();
}
