package lumen.runtime;

/**
 * A linear cost model with every parameter named. The defaults are round numbers of the right
 * order for a 30B-70B model on one modern GPU; they make the runtime's timing plausible, not
 * calibrated (calibration from measured profiles belongs to the simulator's presets).
 *
 * @param prefillFixedMs   fixed cost of a prefill call
 * @param prefillPerToken  cost per prefilled position
 * @param decodeFixedMs    fixed cost of a decode iteration
 * @param decodePerSeq     cost per sequence in the batch
 * @param decodePerCtx     cost per position of mean context (attention reads), per sequence
 * @param verifyPerToken   extra cost per draft token verified in the target's pass
 * @param streamPerPage    cost of streaming one page of 16 positions (scaled linearly)
 * @param restorePerToken  cost per restored position
 * @param draftLoad        draft model load time
 * @param fullLoad         full model load time
 * @param proposePerToken  draft model cost per proposed token of a round (a small model's step reads its
 *                         weights once for the whole batch, so the batch does not change it here)
 * @param restartDelay     failure detection plus process restart
 */
public record SimpleCostModel(double prefillFixedMs, double prefillPerToken, double decodeFixedMs,
                              double decodePerSeq, double decodePerCtx, double verifyPerToken,
                              double streamPerPage, double restorePerToken, double draftLoad,
                              double fullLoad, double proposePerToken, double restartDelay) implements CostModel {

    public static SimpleCostModel defaults() {
        return new SimpleCostModel(5, 0.05, 12, 0.3, 0.0005, 0.4, 0.5, 0.01, 3_000, 30_000, 1.5, 1_000);
    }

    /** The defaults with model loads and restarts shortened (0.15 s draft, 1.2 s full, 0.1 s
     * restart), so that assist and handover happen while short test workloads still run. */
    public static SimpleCostModel fastReload() {
        return new SimpleCostModel(5, 0.05, 12, 0.3, 0.0005, 0.4, 0.5, 0.01, 150, 1_200, 1.5, 100);
    }

    @Override
    public double prefillMs(int tokens) {
        return prefillFixedMs + prefillPerToken * tokens;
    }

    @Override
    public double decodeMs(int batch, double ctx) {
        return decodeFixedMs + batch * (decodePerSeq + decodePerCtx * ctx);
    }

    @Override
    public double decodeMs(int batch, double ctx, int draftTokens) {
        return decodeMs(batch, ctx) + verifyPerToken * draftTokens;
    }

    @Override
    public double streamPageMs(int pageTokens) {
        return streamPerPage * pageTokens / 16.0;
    }

    @Override
    public double restoreMs(int positions) {
        return restorePerToken * positions;
    }

    @Override
    public double draftLoadMs() {
        return draftLoad;
    }

    @Override
    public double fullLoadMs() {
        return fullLoad;
    }

    @Override
    public double draftRoundMs(int k, int batch) {
        return proposePerToken * k;
    }

    @Override
    public double restartDelayMs() {
        return restartDelay;
    }
}
