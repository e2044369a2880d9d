package lumen.sim;

/**
 * Cluster presets close to the paper's setups (its Table B). Each is a served model's shapes (for
 * the per-operator cost model and the KV size of Eq. 1), a worker count, and a worker's tensor
 * parallelism on H100 (the simulator's {@code hardware}, {@code tensor_parallel} and {@code max_batch}
 * keys put the same model on other workers; {@code lumen reproduce} chooses them by its calibration). Qwen3-14B's shapes are its published configuration (40 layers); the
 * paper's table gives it 48, which would make its KV 20% larger.
 *
 * <p>Loads and restarts are stated, not measured: the full model from local NVMe at about 4 GB/s
 * of BF16 weights (70B: 140 GB, 35 s), a 1.7B draft in 1.5 s, 3 s to detect a failure and restart
 * the process. Streaming goes over a 100 Gb/s network (10 GB/s usable), restores over PCIe Gen5
 * (20 GB/s usable). Checkpoint budget: 256 GB of host DRAM per worker.
 */
public enum Preset {
    /** The paper's 4-worker prototype: Qwen3-32B on H100, TP 4. */
    QWEN3_32B_4W("qwen3-32b-4w", 4, ModelShape.QWEN3_32B, "h100-80gb", 4, 16_000, 1_500),
    /** The paper's 8-worker prototype: Qwen3-14B on H100, TP 2. */
    QWEN3_14B_8W("qwen3-14b-8w", 8, ModelShape.QWEN3_14B, "h100-80gb", 2, 7_000, 1_500),
    /** The paper's simulations: Llama-3-70B (Llama-2-70B's layers), H100, TP 8; 4 to 64 workers. */
    LLAMA3_70B("llama3-70b", 16, ModelShape.LLAMA2_70B, "h100-80gb", 8, 35_000, 1_500);

    public final String key;
    public final int defaultWorkers;
    public final ModelShape model;
    public final String hardware;
    public final int tensorParallel;
    public final double fullLoadMs;
    public final double draftLoadMs;

    Preset(String key, int defaultWorkers, ModelShape model, String hardware, int tensorParallel, double fullLoadMs, double draftLoadMs) {
        this.key = key;
        this.defaultWorkers = defaultWorkers;
        this.model = model;
        this.hardware = hardware;
        this.tensorParallel = tensorParallel;
        this.fullLoadMs = fullLoadMs;
        this.draftLoadMs = draftLoadMs;
    }

    /** Eq. 1 per token of the served model. */
    public long kvBytesPerToken() {
        return model.kvBytesPerToken();
    }

    /** Host DRAM for checkpoints on one worker, in positions (256 GB / Eq. 1). */
    public long budgetPositions() {
        return 256L * 1_000_000_000L / kvBytesPerToken();
    }

    private final java.util.Map<String, ProfiledCostModel> calibrated = new java.util.concurrent.ConcurrentHashMap<>();

    /** The preset's cost model, calibrated once. */
    public ProfiledCostModel costModel() {
        return costModel(hardware, tensorParallel);
    }

    /** The preset's model served on other hardware or at another tensor parallelism, calibrated once per pair. */
    public ProfiledCostModel costModel(String hw, int tp) {
        return calibrated.computeIfAbsent(hw + "/" + tp, k -> ProfiledCostModel.calibrate(new ProfiledCostModel.Params(hw, tp, model,
                ModelShape.QWEN3_1_7B, 10, 20, 0.02, draftLoadMs, fullLoadMs, 3_000)));
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
