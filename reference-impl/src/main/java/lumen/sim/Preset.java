package lumen.sim;

/**
 * Cluster presets close to the paper's setups (its Table B). Each is a model geometry (for the
 * KV size of Eq. 1), a worker count, and a cost model calibrated from the Llama-2-70B profile.
 * Llama-3-70B has Llama-2-70B's layer geometry (80 layers, 8 KV heads of 128, hidden 8192), so
 * its profile is used as is; the Qwen3 models are scaled by parameter count (compute and weight
 * reads both grow with it), which is an assumption, not a measurement.
 *
 * <p>Loads and restarts are stated, not measured: the full model from local NVMe at about 4 GB/s
 * of BF16 weights (70B: 140 GB, 35 s), a 1.5B draft in 1.5 s, 3 s to detect a failure and restart
 * the process. Streaming goes over a 100 Gb/s network (10 GB/s usable), restores over PCIe Gen5
 * (20 GB/s usable). Checkpoint budget: 256 GB of host DRAM per worker.
 */
public enum Preset {
    /** The paper's 4-worker prototype: Qwen3-32B-like (64 layers, 8 KV heads, head 128), H100, TP 4. */
    QWEN3_32B_4W("qwen3-32b-4w", 4, 64, 8, 128, 32.0 / 70, "h100-80gb", 4, 16_000, 1_500),
    /** The paper's 8-worker prototype: Qwen3-14B-like (48 layers, 8 KV heads, head 128), H100, TP 2. */
    QWEN3_14B_8W("qwen3-14b-8w", 8, 48, 8, 128, 14.0 / 70, "h100-80gb", 2, 7_000, 1_500),
    /** The paper's simulations: Llama-3-70B-like (80 layers, 8 KV heads, head 128), H100, TP 8; 4 to 64 workers. */
    LLAMA3_70B("llama3-70b", 16, 80, 8, 128, 1.0, "h100-80gb", 8, 35_000, 1_500);

    public final String key;
    public final int defaultWorkers;
    public final int layers;
    public final int kvHeads;
    public final int headDim;
    public final double computeScale;
    public final String hardware;
    public final int tensorParallel;
    public final double fullLoadMs;
    public final double draftLoadMs;

    Preset(String key, int defaultWorkers, int layers, int kvHeads, int headDim, double computeScale, String hardware,
           int tensorParallel, double fullLoadMs, double draftLoadMs) {
        this.key = key;
        this.defaultWorkers = defaultWorkers;
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.headDim = headDim;
        this.computeScale = computeScale;
        this.hardware = hardware;
        this.tensorParallel = tensorParallel;
        this.fullLoadMs = fullLoadMs;
        this.draftLoadMs = draftLoadMs;
    }

    /** Eq. 1 per token: 2 (K and V) * layers * KV heads * head dim * 2 bytes (BF16). */
    public long kvBytesPerToken() {
        return 2L * layers * kvHeads * headDim * 2;
    }

    /** Host DRAM for checkpoints on one worker, in positions (256 GB / Eq. 1). */
    public long budgetPositions() {
        return 256L * 1_000_000_000L / kvBytesPerToken();
    }

    private ProfiledCostModel calibrated;

    /** The preset's cost model, calibrated once. */
    public synchronized ProfiledCostModel costModel() {
        if (calibrated == null) {
            calibrated = calibrate();
        }
        return calibrated;
    }

    private ProfiledCostModel calibrate() {
        return ProfiledCostModel.calibrate(new ProfiledCostModel.Params(hardware, tensorParallel, computeScale, kvBytesPerToken(),
                10, 20, 0.02, 4, draftLoadMs, fullLoadMs, 3_000));
    }

    public static Preset of(String key) {
        for (Preset p : values()) {
            if (p.key.equals(key)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown preset '" + key + "'; known: qwen3-32b-4w, qwen3-14b-8w, llama3-70b");
    }
}
