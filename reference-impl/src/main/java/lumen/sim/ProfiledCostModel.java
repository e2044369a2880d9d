package lumen.sim;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import lumen.runtime.CostModel;

/**
 * A cost model calibrated from measured latencies: the Splitwise simulator's performance model
 * ({@code lumen/data/splitwise_sim_perf_model.csv}: Llama-2-70B on DGX-A100 and DGX-H100, prefill
 * of a batch and one decode iteration, five runs per point; medians are taken).
 *
 * <ul>
 *   <li><b>Prefill</b> of {@code n} tokens: piecewise-linear in the batch's tokens
 *       ({@code prompt_size * batch_size}) through the medians, extended linearly past the last
 *       point, times {@link Params#computeScale}.</li>
 *   <li><b>Decode iteration</b> of {@code b} requests with mean context {@code L}: the profile
 *       varies the batch at prompt 512 and the prompt at batch 1, so the model is separable,
 *       {@code T(b, L) = T(b, 512) + b * (T(1, L) - T(1, 512))}: the attention part grows with
 *       every request's context, the weight reads with neither. Times {@code computeScale}.</li>
 *   <li><b>Verification</b> of {@code d} draft tokens in a decode iteration: {@code d} more tokens
 *       through the same forward pass, a mini-prefill fused into the decode step. They read no
 *       weights and no KV that the step does not read already, so each costs what one more token
 *       costs in the profile's prefill (token) curve: its slope from the first point to the last,
 *       times {@code computeScale}.</li>
 *   <li><b>Streaming and restore</b>: bytes over bandwidth, with the KV size of Eq. 1.</li>
 *   <li><b>Loads, restart, draft</b>: stated constants (no public profile measures them). A draft
 *       round of {@code k} tokens for {@code b} requests takes {@code k * draftTokenMs} times the
 *       profile's relative growth of a decode step from batch 1 to batch {@code b} (an assumption:
 *       the draft model's batch curve is shaped like the target's).</li>
 * </ul>
 */
public final class ProfiledCostModel implements CostModel {

    /**
     * Every knob of the model, with its unit.
     *
     * @param hardware        the profile's hardware: {@code a100-80gb} or {@code h100-80gb}
     * @param tensorParallel  the profile's tensor parallelism: 2, 4 or 8
     * @param computeScale    multiplies prefill and decode times: a model's size relative to 70B (1 for 70B)
     * @param kvBytesPerToken Eq. 1: 2 * layers * kv heads * head dim * bytes per element
     * @param streamGBps      checkpoint streaming to the holder's host memory, GB/s (the network)
     * @param restoreGBps     restore from host memory into the GPU, GB/s (PCIe on the holder)
     * @param streamSlowdown  fraction by which a decode iteration slows while pages stream (0.02 = 2%)
     * @param draftTokenMs    draft model time per proposed token of one request, ms (a round for a batch
     *                        grows with the batch as the profile's decode step does)
     * @param draftLoadMs     loading the draft model after a restart, ms
     * @param fullLoadMs      loading the full model after a restart, ms
     * @param restartDelayMs  failure detection and process restart, ms
     */
    public record Params(String hardware, int tensorParallel, double computeScale, long kvBytesPerToken, double streamGBps,
                         double restoreGBps, double streamSlowdown, double draftTokenMs,
                         double draftLoadMs, double fullLoadMs, double restartDelayMs) {}

    private final Params p;
    private final double[] prefillX;
    private final double[] prefillY;
    private final double[] batchX;
    private final double[] batchY;
    private final double[] ctxX;
    private final double[] ctxY;
    private final double ctxBase;
    /** ms per token of the prefill curve, from its first point to its last (before computeScale). */
    private final double tokenSlope;

    private ProfiledCostModel(Params p, TreeMap<Integer, List<Double>> prefill, TreeMap<Integer, List<Double>> byBatch,
                              TreeMap<Integer, List<Double>> byCtx) {
        this.p = p;
        prefillX = keys(prefill);
        prefillY = medians(prefill);
        batchX = keys(byBatch);
        batchY = medians(byBatch);
        ctxX = keys(byCtx);
        ctxY = medians(byCtx);
        ctxBase = interpolate(ctxX, ctxY, 512);
        int n = prefillX.length - 1;
        tokenSlope = Math.max(0, (prefillY[n] - prefillY[0]) / (prefillX[n] - prefillX[0]));
    }

    private ProfiledCostModel(Params p, ProfiledCostModel o) {
        this.p = p;
        prefillX = o.prefillX;
        prefillY = o.prefillY;
        batchX = o.batchX;
        batchY = o.batchY;
        ctxX = o.ctxX;
        ctxY = o.ctxY;
        ctxBase = o.ctxBase;
        tokenSlope = o.tokenSlope;
    }

    /** The same calibration with other knobs (for example a GPU profile's measured bandwidths). */
    public ProfiledCostModel with(Params q) {
        return new ProfiledCostModel(q, this);
    }

    /** Calibrates from the shipped Splitwise profile of Llama-2-70B. */
    public static ProfiledCostModel calibrate(Params p) {
        TreeMap<Integer, List<Double>> prefill = new TreeMap<>();
        TreeMap<Integer, List<Double>> byBatch = new TreeMap<>();
        TreeMap<Integer, List<Double>> byCtx = new TreeMap<>();
        String res = "/lumen/data/splitwise_sim_perf_model.csv";
        try (InputStream in = ProfiledCostModel.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalStateException("the kit's data file " + res + " is missing from the class path");
            }
            MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                    .with(CsvSchema.emptySchema().withHeader()).readValues(in);
            while (it.hasNext()) {
                Map<String, String> r = it.next();
                if (!r.get("model").equals("llama2-70b") || !r.get("hardware").equals(p.hardware())
                        || Integer.parseInt(r.get("tensor_parallel")) != p.tensorParallel()) {
                    continue;
                }
                int prompt = Integer.parseInt(r.get("prompt_size"));
                int batch = Integer.parseInt(r.get("batch_size"));
                prefill.computeIfAbsent(prompt * batch, k -> new ArrayList<>()).add(Double.parseDouble(r.get("prompt_time")));
                double tok = Double.parseDouble(r.get("token_time"));
                if (prompt == 512) {
                    byBatch.computeIfAbsent(batch, k -> new ArrayList<>()).add(tok);
                }
                if (batch == 1) {
                    byCtx.computeIfAbsent(prompt, k -> new ArrayList<>()).add(tok);
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("reading " + res, ex);
        }
        if (prefill.size() < 2 || byBatch.size() < 2 || byCtx.size() < 2) {
            throw new IllegalArgumentException("no Llama-2-70B profile for " + p.hardware() + " at TP " + p.tensorParallel());
        }
        return new ProfiledCostModel(p, prefill, byBatch, byCtx);
    }

    public Params params() {
        return p;
    }

    private static double[] keys(TreeMap<Integer, List<Double>> m) {
        return m.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
    }

    private static double[] medians(TreeMap<Integer, List<Double>> m) {
        return m.values().stream().mapToDouble(v -> {
            double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
        }).toArray();
    }

    /** Piecewise-linear through (x, y), extended linearly on both sides. */
    static double interpolate(double[] x, double[] y, double at) {
        int i = 1;
        while (i < x.length - 1 && at > x[i]) {
            i++;
        }
        double t = (at - x[i - 1]) / (x[i] - x[i - 1]);
        return Math.max(0, y[i - 1] + t * (y[i] - y[i - 1]));
    }

    /**
     * Below the profile's smallest prefill (128 tokens) the time is held at that point's: the
     * profile is flat there (a fixed cost of about 50 ms at 70B), and extending its noisy first
     * segment would make a 1-token catch-up prefill dearer than a 128-token one.
     */
    @Override
    public double prefillMs(int tokens) {
        return tokens <= 0 ? 0 : p.computeScale() * interpolate(prefillX, prefillY, Math.max(tokens, prefillX[0]));
    }

    @Override
    public double decodeMs(int batch, double ctx) {
        return decodeMs(batch, ctx, 0);
    }

    @Override
    public double decodeMs(int batch, double ctx, int draftTokens) {
        if (batch <= 0) {
            return 0;
        }
        double attention = Math.max(0, interpolate(ctxX, ctxY, ctx) - ctxBase);
        return p.computeScale() * (interpolate(batchX, batchY, batch) + batch * attention + Math.max(0, draftTokens) * tokenSlope);
    }

    /** A decode iteration (verifying {@code draftTokens} draft tokens) while checkpoint pages stream out of this worker. */
    public double decodeWhileStreamingMs(int batch, double ctx, int draftTokens) {
        return decodeMs(batch, ctx, draftTokens) * (1 + p.streamSlowdown());
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

    @Override
    public double draftRoundMs(int k, int batch) {
        // within the profile's batches: past them its extrapolation is not a curve's shape
        double growth = Math.max(1, interpolate(batchX, batchY, Math.min(Math.max(batch, 1), batchX[batchX.length - 1]))
                / interpolate(batchX, batchY, 1));
        return k * p.draftTokenMs() * growth;
    }

    @Override
    public double restartDelayMs() {
        return p.restartDelayMs();
    }
}
