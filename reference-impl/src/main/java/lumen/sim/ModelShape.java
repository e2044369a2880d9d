package lumen.sim;

/**
 * A dense decoder's shapes: what the per-operator cost model scales each profiled operator by,
 * and what Eq. 1 sizes the KV cache by. The figures are the models' published configurations
 * (their {@code config.json}).
 *
 * @param name         the model
 * @param layers       decoder layers
 * @param hidden       hidden size
 * @param qHeads       attention (query) heads
 * @param kvHeads      key-value heads (grouped-query attention)
 * @param headDim      dimension of one head
 * @param intermediate the gated MLP's inner size
 * @param vocab        the vocabulary (input embedding and output head, untied)
 */
public record ModelShape(String name, int layers, int hidden, int qHeads, int kvHeads, int headDim, int intermediate, int vocab) {
    /** The profiled model: Vidur's and Splitwise's measurements are of this one. Llama-3-70B has the same layers. */
    public static final ModelShape LLAMA2_70B = new ModelShape("Llama-2-70B", 80, 8192, 64, 8, 128, 28_672, 32_000);
    public static final ModelShape QWEN3_32B = new ModelShape("Qwen3-32B", 64, 5120, 64, 8, 128, 25_600, 151_936);
    public static final ModelShape QWEN3_14B = new ModelShape("Qwen3-14B", 40, 5120, 40, 8, 128, 17_408, 151_936);
    /** The draft: the paper names a 1.5B Qwen3; Qwen3's nearest size is 1.7B. */
    public static final ModelShape QWEN3_1_7B = new ModelShape("Qwen3-1.7B", 28, 2048, 16, 8, 128, 6_144, 151_936);

    public ModelShape {
        if (layers < 1 || hidden < 1 || qHeads < 1 || kvHeads < 1 || headDim < 1 || intermediate < 1 || vocab < 1) {
            throw new IllegalArgumentException("model shape " + name + " needs positive sizes");
        }
    }

    /** Eq. 1 per token: 2 (K and V) * layers * KV heads * head dim * 2 bytes (BF16). */
    public long kvBytesPerToken() {
        return 2L * layers * kvHeads * headDim * 2;
    }

    /**
     * The weights in BF16, bytes: per layer the QKV and output projections and the gated MLP's three
     * matrices (norms are negligible), and the embedding and output head. Qwen3-32B comes to 32.8 B
     * parameters, Llama-2-70B to 69.0 B, as published.
     */
    public double weightBytes() {
        double perLayer = (double) hidden * (qHeads + 2 * kvHeads) * headDim + (double) qHeads * headDim * hidden + 3.0 * hidden * intermediate;
        return 2 * (layers * perLayer + 2.0 * vocab * hidden);
    }

    /**
     * Each profiled operator's work relative to the same operator of Llama-2-70B: the weights a
     * projection reads (which also set its multiply-adds per token), the elements an element-wise
     * operator touches. In the order of {@link ProfiledCostModel#OPS}.
     */
    double[] opRatios() {
        ModelShape l = LLAMA2_70B;
        double qkv = (double) hidden * (qHeads + 2 * kvHeads) * headDim / ((double) l.hidden * (l.qHeads + 2 * l.kvHeads) * l.headDim);
        double out = (double) qHeads * headDim * hidden / ((double) l.qHeads * l.headDim * l.hidden);
        double mlp = (double) hidden * intermediate / ((double) l.hidden * l.intermediate);
        double h = (double) hidden / l.hidden;
        double rope = (double) (qHeads + kvHeads) * headDim / ((l.qHeads + l.kvHeads) * l.headDim);
        double act = (double) intermediate / l.intermediate;
        // input_layernorm, attn_pre_proj, attn_rope, attn_post_proj, post_attention_layernorm, mlp_up_proj, mlp_act, mlp_down_proj, add
        return new double[] {h, qkv, rope, out, h, mlp, act, mlp, h};
    }
}
