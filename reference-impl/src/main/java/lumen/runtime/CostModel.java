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

    /** Verifying a draft of {@code k} tokens in one pass of the target, for one request. */
    double verifyMs(int k);

    /** Streaming one physical page of {@code pageTokens} positions to the holder's host memory. */
    double streamPageMs(int pageTokens);

    /** Restoring {@code positions} checkpointed positions from host memory into the GPU. */
    double restoreMs(int positions);

    /** Loading the draft model after a restart. */
    double draftLoadMs();

    /** Loading the full model after a restart (in the background of the draft, under LUMEN). */
    double fullLoadMs();

    /** The draft model proposing {@code k} tokens. */
    double draftProposeMs(int k);

    /** Time from a worker's failure until it restarts (detection and process restart). */
    double restartDelayMs();
}
