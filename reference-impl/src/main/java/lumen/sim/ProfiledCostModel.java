package lumen.sim;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import lumen.runtime.CostModel;

/**
 * A cost model built per operator, as Vidur builds one, for the shapes of the model served, and
 * anchored to end-to-end measurements of the profiled model. Every figure comes from the shipped
 * profiles ({@code lumen/data/NOTICE.md}); what is assumed is said where it is used.
 *
 * <p><b>One forward pass.</b> An iteration of continuous batching is one pass over
 * {@code N} tokens: the prefill chunks', one per decoding request, and the draft tokens verified.
 * Its time is {@code g * gpu + overhead(sequences)}, where {@code gpu} is the sum over the model's
 * layers of
 * <ul>
 *   <li>the <b>linear and element-wise operators</b> (QKV and output projections, the gated MLP,
 *       the norms, RoPE, the residual add) at {@code N} tokens, from Vidur's per-layer profile of
 *       Llama-2-70B on H100 at the worker's tensor parallelism (made non-decreasing in the tokens:
 *       the medians jitter by microseconds where an operator is memory-bound), each scaled by the served model's
 *       weights (or elements) relative to Llama-2-70B's ({@link ModelShape#opRatios}): the
 *       assumption is that an operator's time scales with the bytes it reads when memory-bound
 *       and with its multiply-adds when compute-bound, which are in the same ratio;</li>
 *   <li>two <b>all-reduces</b> of {@code N * hidden} BF16 values (Megatron tensor parallelism), from
 *       Vidur's NCCL profile of DGX-H100;</li>
 *   <li><b>decode attention</b>: a linear fit to Vidur's FlashAttention decode profile (A100, TP 2,
 *       Llama-2-70B's heads) in the batch and the KV positions it reads, scaled by the KV heads per
 *       GPU and by the HBM bandwidth of H100 over A100 (3.35 / 2.04 TB/s, their data sheets);</li>
 *   <li><b>prefill attention</b> of each chunk of {@code c} new positions after {@code p} cached
 *       ones: a fit to the same profile's prefill rows in {@code c} and {@code c * (p + c / 2)},
 *       scaled by the query heads per GPU and by H100's speed over A100's measured on the
 *       Splitwise profile's 4,096-token prefill at TP 2.</li>
 * </ul>
 * The per-operator sum is a lower bound of what a serving engine achieves (Vidur adds its CPU
 * overheads for the same reason), so it is anchored to Splitwise's end-to-end measurements of
 * Llama-2-70B on the worker's GPU (A100 or H100) and tensor parallelism: {@code g} is the median over its prefills of
 * 512 tokens and more of the measured time over the per-operator time (less the one-request
 * overhead), and {@code overhead(b)} is what its decode iterations of {@code b} requests take
 * beyond {@code g} times the per-operator time (held where the medians dip: it does not shrink
 * as the batch grows; past the profile's largest batch, 64, it extends along its last segment). The
 * overhead is the engine's (scheduling, sampling, launches), so the served model does not scale it.
 *
 * <p><b>On A100</b> the operators keep H100's per-operator shapes (the kit has no A100 operator
 * profile) and the anchors are Splitwise's A100 measurements, so {@code g} absorbs the slower
 * compute; attention is the A100 profile's own, and the all-reduce is scaled by NVLink's 600
 * against 900 GB/s. A single {@code g} fitted on compute-bound prefills overshoots a memory-bound
 * one-request decode there, so the overhead term may start below zero: the decode medians decide,
 * and an iteration never costs less than half its per-operator time.
 *
 * <p><b>The KV pool</b> ({@link #kvCapacityPositions}) is what the worker's memory holds after the
 * weights. {@code lumen.sim.ProfiledCostModelTest} shows how far the anchored model lands from the
 * Splitwise prefills it was not fitted to, on both GPUs.
 *
 * <p><b>The draft</b> proposes with {@link Params#draft}'s shapes on one GPU, its {@code k} steps
 * back to back in one captured graph (no engine overhead), over no cached context (it starts
 * cold).
 *
 * <p><b>Streaming and restore</b>: bytes over bandwidth, with the KV size of Eq. 1. <b>Loads,
 * restart</b>: stated constants (no public profile measures them).
 */
public final class ProfiledCostModel implements CostModel {

    /**
     * Every knob of the model, with its unit.
     *
     * @param hardware       the profiles' hardware: {@code a100-80gb} or {@code h100-80gb}
     * @param tensorParallel the worker's tensor parallelism: 1, 2, 4 or 8 (the engine overhead needs 2, 4 or 8)
     * @param model          the served model's shapes
     * @param draft          the draft model's shapes
     * @param streamGBps     checkpoint streaming to the holder's host memory, GB/s (the network)
     * @param restoreGBps    restore from host memory into the GPU, GB/s (PCIe on the holder)
     * @param streamSlowdown fraction by which an iteration slows while pages stream (0.02 = 2%)
     * @param draftLoadMs    loading the draft model after a restart, ms
     * @param fullLoadMs     loading the full model after a restart, ms
     * @param restartDelayMs failure detection and process restart, ms
     */
    public record Params(String hardware, int tensorParallel, ModelShape model, ModelShape draft, double streamGBps,
                         double restoreGBps, double streamSlowdown, double draftLoadMs, double fullLoadMs, double restartDelayMs) {

        /** Eq. 1 of the served model. */
        public long kvBytesPerToken() {
            return model.kvBytesPerToken();
        }

        public Params withLinks(double stream, double restore, double slowdown) {
            return new Params(hardware, tensorParallel, model, draft, stream, restore, slowdown, draftLoadMs, fullLoadMs, restartDelayMs);
        }

        public Params withLoads(double draftLoad, double fullLoad) {
            return new Params(hardware, tensorParallel, model, draft, streamGBps, restoreGBps, streamSlowdown, draftLoad, fullLoad, restartDelayMs);
        }
    }

    /** Vidur's per-layer operators, in the order of {@link ModelShape#opRatios}. */
    static final String[] OPS = {"input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj", "post_attention_layernorm",
        "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"};
    /** The hardware the kit has end-to-end profiles of (Splitwise's), each with 80 GB per GPU. */
    public static final List<String> HARDWARE = List.of("a100-80gb", "h100-80gb");
    /** Memory of one GPU of either, bytes. */
    public static final double GPU_BYTES = 80e9;
    /**
     * The share of GPU memory the engine gives to the weights and the KV pool together (SGLang's
     * {@code mem_fraction_static}; the rest holds activations, CUDA graphs and the allocator's slack).
     */
    public static final double DEFAULT_KV_MEM_FRACTION = 0.85;
    /** NVLink bandwidth of DGX-H100 over DGX-A100 (900 and 600 GB/s per GPU, their data sheets): the all-reduce profile is DGX-H100's. */
    static final double NVLINK_H100_OVER_A100 = 900.0 / 600.0;
    /** HBM bandwidth of H100 SXM over A100 80 GB SXM (3.35 and 2.039 TB/s, their data sheets). */
    static final double HBM_H100_OVER_A100 = 3.35 / 2.039;
    /** Llama-2-70B's KV heads and query heads per GPU in the attention profile (TP 2), times the head dimension. */
    private static final double PROFILE_KV_WIDTH = 4 * 128;
    private static final double PROFILE_Q_WIDTH = 32 * 128;

    private final Params p;
    private final Tables t;
    /** The engine's efficiency: measured time over per-operator time. */
    private final double g;
    /** Batch sizes and the engine overhead of a decode iteration at each, ms. */
    private final double[] ovX;
    private final double[] ovY;

    /** {@link ModelShape#opRatios} of the served model and of the draft, taken once. */
    private final double[] modelRatios;
    private final double[] draftRatios;
    /** The share of the worker's GPU memory for weights and KV pool. */
    private final double kvMemFraction;
    /** Attention's speed over the A100 profile's: HBM for decode, compute for prefill (1 on A100). */
    private final double hbmOverProfile;
    private final double computeOverProfile;
    /** The all-reduce's time over the DGX-H100 profile's. */
    private final double allReduceOverProfile;

    private ProfiledCostModel(Params p, Tables t, double g, double[] ovX, double[] ovY, double kvMemFraction) {
        this.p = p;
        this.t = t;
        this.g = g;
        this.ovX = ovX;
        this.ovY = ovY;
        this.modelRatios = p.model().opRatios();
        this.draftRatios = p.draft().opRatios();
        this.kvMemFraction = kvMemFraction;
        boolean h100 = p.hardware().startsWith("h100");
        this.hbmOverProfile = h100 ? HBM_H100_OVER_A100 : 1;
        this.computeOverProfile = h100 ? t.computeH100OverA100 : 1;
        this.allReduceOverProfile = h100 ? 1 : NVLINK_H100_OVER_A100;
    }

    /**
     * Positions of KV cache one worker holds: the share {@code kvMemFraction} of its GPUs' memory
     * ({@link #GPU_BYTES} each, {@code tensorParallel} of them) less the served model's BF16 weights,
     * over Eq. 1. The simulator admits a request only while the positions reserved by the admitted
     * ones and its own ({@code RequestRec#size}) fit, as SGLang admits against its KV pool.
     */
    public long kvCapacityPositions() {
        double free = kvMemFraction * GPU_BYTES * p.tensorParallel() - p.model().weightBytes();
        return (long) Math.max(0, free / p.kvBytesPerToken());
    }

    /** The share of GPU memory for weights and KV pool. */
    public double kvMemFraction() {
        return kvMemFraction;
    }

    /** The same model with another share of GPU memory for weights and KV pool (0 to 1). */
    public ProfiledCostModel withKvMemFraction(double f) {
        if (!(f > 0 && f <= 1)) {
            throw new IllegalArgumentException("the KV memory fraction must be in (0, 1], not " + f);
        }
        return new ProfiledCostModel(p, t, g, ovX, ovY, f);
    }

    /** The same calibration with other knobs (for example a GPU profile's measured bandwidths); the shapes stay. */
    public ProfiledCostModel with(Params q) {
        if (!q.model().equals(p.model()) || !q.draft().equals(p.draft()) || q.tensorParallel() != p.tensorParallel()
                || !q.hardware().equals(p.hardware())) {
            return calibrate(q);
        }
        return new ProfiledCostModel(q, t, g, ovX, ovY, kvMemFraction);
    }

    /** Builds the model for {@code p} from the shipped profiles. */
    public static ProfiledCostModel calibrate(Params p) {
        if (!HARDWARE.contains(p.hardware())) {
            throw new IllegalArgumentException("no profile for '" + p.hardware() + "': the kit's profiles are of " + String.join(" and ", HARDWARE));
        }
        int tp = p.tensorParallel();
        if (tp != 2 && tp != 4 && tp != 8) {
            throw new IllegalArgumentException("TP " + tp + ": Splitwise measured Llama-2-70B at TP 2, 4 and 8 only");
        }
        Tables t = Tables.get();
        Splitwise sw = Splitwise.of(p.hardware(), tp);
        ProfiledCostModel llama = new ProfiledCostModel(new Params(p.hardware(), tp, ModelShape.LLAMA2_70B, p.draft(), 1, 1, 0, 0, 0, 0),
                t, 1, new double[] {1, 2}, new double[] {0, 0}, DEFAULT_KV_MEM_FRACTION);
        double dec1 = sw.decode.get(1);
        double gpuDec1 = llama.gpuMs(null, null, 1, sw.decodeCtx, 0, tp, ModelShape.LLAMA2_70B);
        List<Double> ratios = new ArrayList<>();
        for (Map.Entry<Integer, Double> e : sw.prefill.entrySet()) {
            if (e.getKey() >= 512) {
                double gpu = llama.gpuMs(new int[] {e.getKey()}, new int[] {0}, 0, 0, 0, tp, ModelShape.LLAMA2_70B);
                ratios.add((e.getValue() - dec1) / (gpu - gpuDec1));
            }
        }
        double eff = median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
        double[] bx = sw.decode.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
        double[] by = new double[bx.length];
        for (int i = 0; i < bx.length; i++) {
            int b = (int) bx[i];
            // an engine's overhead does not shrink as the batch grows: where the medians dip, the curve holds. It may start
            // below zero: on A100 the prefill-fitted g overshoots a memory-bound one-request decode, and the measurement decides
            double over = sw.decode.get(b) - eff * llama.gpuMs(null, null, b, b * sw.decodeCtx, 0, tp, ModelShape.LLAMA2_70B);
            by[i] = i == 0 ? over : Math.max(by[i - 1], over);
        }
        return new ProfiledCostModel(p, t, eff, bx, by, DEFAULT_KV_MEM_FRACTION);
    }

    public Params params() {
        return p;
    }

    /** The engine's efficiency factor {@code g}: the anchored time over the per-operator time. */
    public double efficiency() {
        return g;
    }

    /** The engine overhead of an iteration over {@code sequences} requests, ms (held flat below one, extended linearly past the profile). */
    public double overheadMs(int sequences) {
        return interpolate(ovX, ovY, Math.max(1, sequences));
    }

    /**
     * One iteration priced as one fused forward pass: the prefill chunks ({@code chunks[i]} new
     * positions after {@code cached[i]} already in the GPU), a decode step of {@code batch}
     * requests with mean context {@code ctx}, and {@code draftTokens} draft tokens verified in it.
     */
    @Override
    public double iterationMs(int[] chunks, int[] cached, int batch, double ctx, int draftTokens) {
        int seqs = batch + (chunks == null ? 0 : chunks.length);
        if (seqs == 0) {
            return 0;
        }
        double gpu = g * gpuMs(chunks, cached, batch, Math.max(0, batch * ctx), Math.max(0, draftTokens), p.tensorParallel(), p.model());
        // a correction below zero (see calibrate) never takes more than half the pass
        return Math.max(gpu / 2, gpu + overheadMs(seqs));
    }

    /** GPU time of one pass of {@code m} at tensor parallelism {@code tp}, summed over its layers, before {@code g}. */
    double gpuMs(int[] chunks, int[] cached, int batch, double ctxSum, int drafts, int tp, ModelShape m) {
        int n = batch + drafts;
        double prefillAttn = 0;
        double qScale = (double) m.qHeads() / tp * m.headDim() / PROFILE_Q_WIDTH / computeOverProfile;
        if (chunks != null) {
            for (int i = 0; i < chunks.length; i++) {
                double c = chunks[i];
                n += chunks[i];
                prefillAttn += Math.max(0, t.preC * c + t.preQ * c * (cached[i] + c / 2)) * qScale;
            }
        }
        if (n == 0) {
            return 0;
        }
        double[] r = m == p.model() ? modelRatios : m == p.draft() ? draftRatios : m.opRatios();
        double linear = Math.max(t.weightedOpsAt(tp, n, r), t.floor(tp));
        double allReduce = tp > 1 ? 2 * allReduceOverProfile * t.allReduceMs(tp, (double) n * m.hidden() * 2) : 0;
        double decodeAttn = 0;
        if (batch > 0) {
            double kvScale = Math.max(1.0, (double) m.kvHeads() / tp) * m.headDim() / PROFILE_KV_WIDTH / hbmOverProfile;
            decodeAttn = (t.decC + t.decB * batch + t.decKv * (ctxSum + drafts)) * kvScale;
        }
        return m.layers() * (linear + allReduce + decodeAttn + prefillAttn);
    }

    @Override
    public double prefillMs(int tokens) {
        return tokens <= 0 ? 0 : iterationMs(new int[] {tokens}, new int[] {0}, 0, 0, 0);
    }

    @Override
    public double decodeMs(int batch, double ctx) {
        return decodeMs(batch, ctx, 0);
    }

    @Override
    public double decodeMs(int batch, double ctx, int draftTokens) {
        return batch <= 0 ? 0 : iterationMs(null, null, batch, ctx, draftTokens);
    }

    /** The factor by which an iteration slows while checkpoint pages stream out of its worker. */
    public double streamingFactor() {
        return 1 + p.streamSlowdown();
    }

    @Override
    public double streamPageMs(int pageTokens) {
        return pageTokens * p.kvBytesPerToken() / (p.streamGBps() * 1e6);
    }

    /** Positions that stream in {@code ms} milliseconds. */
    public double streamablePositions(double ms) {
        return ms * p.streamGBps() * 1e6 / p.kvBytesPerToken();
    }

    @Override
    public double restoreMs(int positions) {
        return positions * (double) p.kvBytesPerToken() / (p.restoreGBps() * 1e6);
    }

    @Override
    public double draftLoadMs() {
        return p.draftLoadMs();
    }

    @Override
    public double fullLoadMs() {
        return p.fullLoadMs();
    }

    /** {@code k} steps of the draft model over the batch on one GPU, back to back, with no cached context. */
    @Override
    public double draftRoundMs(int k, int batch) {
        return k * g * gpuMs(null, null, Math.max(1, batch), 0, 0, 1, p.draft());
    }

    @Override
    public double restartDelayMs() {
        return p.restartDelayMs();
    }

    /** Piecewise-linear through (x, y), held flat below the first point and extended along the last segment. */
    static double interpolate(double[] x, double[] y, double at) {
        if (at <= x[0]) {
            return y[0];
        }
        int i = 1;
        while (i < x.length - 1 && at > x[i]) {
            i++;
        }
        double f = (at - x[i - 1]) / (x[i] - x[i - 1]);
        return y[i - 1] + f * (y[i] - y[i - 1]);
    }

    static double median(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static void readCsv(String name, Consumer<Map<String, String>> row) {
        String res = "/lumen/data/" + name;
        try (InputStream in = ProfiledCostModel.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalStateException("the kit's data file " + res + " is missing from the class path");
            }
            MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                    .with(CsvSchema.emptySchema().withHeader()).readValues(in);
            while (it.hasNext()) {
                row.accept(it.next());
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("reading " + res, ex);
        }
    }

    private static double num(Map<String, String> r, String col) {
        String v = r.get(col);
        return v == null || v.isEmpty() ? 0 : Double.parseDouble(v);
    }

    /** Medians of the values grouped by key, keys ascending. */
    private static TreeMap<Integer, Double> medians(Map<Integer, List<Double>> m) {
        TreeMap<Integer, Double> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, median(v.stream().mapToDouble(Double::doubleValue).toArray())));
        return out;
    }

    /** Splitwise's end-to-end medians of Llama-2-70B on one hardware and TP. */
    private record Splitwise(TreeMap<Integer, Double> prefill, TreeMap<Integer, Double> decode, double decodeCtx) {
        static Splitwise of(String hw, int tp) {
            Map<Integer, List<Double>> pre = new HashMap<>();
            Map<Integer, List<Double>> dec = new HashMap<>();
            readCsv("splitwise_sim_perf_model.csv", r -> {
                if (!r.get("model").equals("llama2-70b") || !r.get("hardware").equals(hw) || Integer.parseInt(r.get("tensor_parallel")) != tp) {
                    return;
                }
                int prompt = Integer.parseInt(r.get("prompt_size"));
                int batch = Integer.parseInt(r.get("batch_size"));
                int tokens = Integer.parseInt(r.get("token_size"));
                if (batch == 1 && tokens == 128) {
                    pre.computeIfAbsent(prompt, k -> new ArrayList<>()).add(num(r, "prompt_time"));
                }
                if (prompt == 512 && tokens == 128) {
                    dec.computeIfAbsent(batch, k -> new ArrayList<>()).add(num(r, "token_time"));
                }
            });
            if (pre.size() < 2 || !dec.containsKey(1)) {
                throw new IllegalArgumentException("no Llama-2-70B profile for " + hw + " at TP " + tp);
            }
            // 128 tokens generated after a 512-token prompt: a mean context of 576
            return new Splitwise(medians(pre), medians(dec), 576);
        }
    }

    /** The per-operator profiles, read once. */
    static final class Tables {
        private static Tables loaded;

        final Map<Integer, double[]> tokens = new HashMap<>();
        final Map<Integer, double[][]> ops = new HashMap<>();
        final Map<Integer, double[][]> allReduce = new HashMap<>();
        final double decC;
        final double decB;
        final double decKv;
        final double preC;
        final double preQ;
        final double computeH100OverA100;

        static synchronized Tables get() {
            if (loaded == null) {
                loaded = new Tables();
            }
            return loaded;
        }

        private Tables() {
            Map<Integer, TreeMap<Integer, double[]>> byTp = new HashMap<>();
            readCsv("vidur_h100_Llama-2-70b-hf_mlp.csv", r -> {
                double[] v = new double[OPS.length];
                for (int i = 0; i < OPS.length; i++) {
                    v[i] = num(r, "time_stats." + OPS[i] + ".median");
                }
                byTp.computeIfAbsent((int) num(r, "num_tensor_parallel_workers"), k -> new TreeMap<>()).put((int) num(r, "num_tokens"), v);
            });
            byTp.forEach((tp, m) -> {
                tokens.put(tp, m.keySet().stream().mapToDouble(Integer::doubleValue).toArray());
                double[][] y = m.values().toArray(new double[0][]);
                // the medians jitter by a few microseconds where an operator is memory-bound; more tokens never take less
                for (int i = 1; i < y.length; i++) {
                    for (int o = 0; o < OPS.length; o++) {
                        y[i][o] = Math.max(y[i][o], y[i - 1][o]);
                    }
                }
                ops.put(tp, y);
            });
            Map<Integer, Map<Integer, List<Double>>> ar = new HashMap<>();
            readCsv("vidur_h100_dgx_all_reduce.csv", r -> ar.computeIfAbsent((int) num(r, "num_workers"), k -> new HashMap<>())
                    .computeIfAbsent((int) num(r, "size"), k -> new ArrayList<>()).add(num(r, "time_stats.all_reduce.median")));
            ar.forEach((tp, m) -> {
                TreeMap<Integer, Double> med = medians(m);
                double[] y = med.values().stream().mapToDouble(Double::doubleValue).toArray();
                for (int i = 1; i < y.length; i++) {
                    y[i] = Math.max(y[i], y[i - 1]);
                }
                allReduce.put(tp, new double[][] {med.keySet().stream().mapToDouble(Integer::doubleValue).toArray(), y});
            });
            // least squares: decode t = c + b * batch + kv * positions read; prefill t = c * chunk + q * chunk * (cached + chunk / 2)
            double[][] dec = new double[3][4];
            double[][] pre = new double[2][3];
            readCsv("vidur_a100_attention_e8192_q64_kv8_tp2.csv", r -> {
                if ("True".equals(r.get("is_prefill"))) {
                    double c = num(r, "prefill_chunk_size");
                    accumulate(pre, new double[] {c, c * (num(r, "kv_cache_size") + c / 2)}, num(r, "time_stats.attn_prefill.median"));
                } else {
                    double b = num(r, "batch_size");
                    accumulate(dec, new double[] {1, b, b * num(r, "kv_cache_size")}, num(r, "time_stats.attn_decode.median")
                            + num(r, "time_stats.attn_input_reshape.median") + num(r, "time_stats.attn_output_reshape.median"));
                }
            });
            double[] d = solve(dec);
            double[] q = solve(pre);
            decC = d[0];
            decB = d[1];
            decKv = d[2];
            preC = q[0];
            preQ = q[1];
            computeH100OverA100 = Splitwise.of("a100-80gb", 2).prefill.get(4096) / Splitwise.of("h100-80gb", 2).prefill.get(4096);
        }

        /** Adds one observation to the normal equations {@code [X'X | X'y]}. */
        private static void accumulate(double[][] ne, double[] x, double y) {
            for (int i = 0; i < x.length; i++) {
                for (int j = 0; j < x.length; j++) {
                    ne[i][j] += x[i] * x[j];
                }
                ne[i][x.length] += x[i] * y;
            }
        }

        /** Gaussian elimination with partial pivoting of an augmented square system. */
        static double[] solve(double[][] a) {
            int n = a.length;
            double[][] m = new double[n][];
            for (int i = 0; i < n; i++) {
                m[i] = a[i].clone();
            }
            for (int c = 0; c < n; c++) {
                int piv = c;
                for (int r = c + 1; r < n; r++) {
                    if (Math.abs(m[r][c]) > Math.abs(m[piv][c])) {
                        piv = r;
                    }
                }
                double[] tmp = m[c];
                m[c] = m[piv];
                m[piv] = tmp;
                for (int r = 0; r < n; r++) {
                    if (r != c) {
                        double f = m[r][c] / m[c][c];
                        for (int k = c; k <= n; k++) {
                            m[r][k] -= f * m[c][k];
                        }
                    }
                }
            }
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = m[i][n] / m[i][i];
            }
            return x;
        }

        /**
         * The operators' medians per layer at {@code n} tokens, weighted by {@code r} and summed:
         * interpolated, and proportional to the tokens past the profile's last point.
         */
        double weightedOpsAt(int tp, int n, double[] r) {
            double[] x = tokens.get(tp);
            double[][] y = ops.get(tp);
            int i = Arrays.binarySearch(x, n);
            int hi = i >= 0 ? i : -i - 1;
            double sum = 0;
            for (int o = 0; o < OPS.length; o++) {
                double v;
                if (i >= 0) {
                    v = y[i][o];
                } else if (hi == 0) {
                    v = y[0][o];
                } else if (hi == x.length) {
                    v = y[x.length - 1][o] * n / x[x.length - 1];
                } else {
                    double f = (n - x[hi - 1]) / (x[hi] - x[hi - 1]);
                    v = y[hi - 1][o] + f * (y[hi][o] - y[hi - 1][o]);
                }
                sum += r[o] * v;
            }
            return sum;
        }

        /** The least a layer's operators take together at this TP: the profile's one-token sum of its element-wise operators (launch-bound). */
        double floor(int tp) {
            double[] one = ops.get(tp)[0];
            return one[0] + one[2] + one[4] + one[6] + one[8];
        }

        double allReduceMs(int tp, double bytes) {
            double[][] c = allReduce.get(tp);
            if (c == null) {
                throw new IllegalArgumentException("no all-reduce profile for TP " + tp);
            }
            return interpolate(c[0], c[1], bytes);
        }
    }
}
