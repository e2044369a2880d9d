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
