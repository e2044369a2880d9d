package lumen.runtime;

import java.util.HashMap;
import java.util.Map;
import lumen.core.PageDigest;

/**
 * What a worker's target model does in one iteration, for one request, on the worker's own KV: a
 * prefill (or the catch-up after a restore) that writes the KV of the positions it is given and,
 * at the start of a request, reads it back for the first token; or a decode step, one verification
 * pass ({@link Verification#greedy}) that feeds back the last token and each draft token it keeps,
 * writing their KV, and reads the KV up to each for the next token. Either way it reports the
 * content of the pages the written positions touch, as the trace shows them. It runs where the
 * worker's memory is: in the runtime's process, or in a worker process of {@code lumen serve}.
 */
public final class TargetPass {
    /**
     * One request's step.
     *
     * @param total  the request's prompt plus reference output length (the true KV's extent)
     * @param have   the KV positions the decision core says the worker holds (a prefill checks it)
     * @param upTo   a prefill writes positions have+1..upTo
     * @param outLen output tokens so far (a prefill with none reads the first token)
     * @param drafts the draft tokens a decode step verifies (none: a plain decode)
     * @param left   the tokens the request still needs (a decode step emits at most that many)
     */
    public record Job(boolean prefill, int req, long seed, int promptLen, int total, int have, int upTo, int outLen,
                      int[] drafts, int left) {
        public static Job prefill(int req, long seed, int promptLen, int total, int have, int upTo, int outLen) {
            return new Job(true, req, seed, promptLen, total, have, upTo, outLen, new int[0], 0);
        }

        public static Job decode(int req, long seed, int promptLen, int total, int outLen, int[] drafts, int left) {
            return new Job(false, req, seed, promptLen, total, 0, 0, outLen, drafts, left);
        }
    }

    /** What a step did: the tokens it emitted, the content of the pages its written positions touch, the positions held after it. */
    public record Pass(int[] tokens, PageDigest[] content, int positions) {}

    private final KvDataPlane gpu;
    private final TokenModels models;
    /** Per request: the digests of its true KV (what the target compares the KV it reads with). */
    private final Map<Integer, long[]> truth = new HashMap<>();

    public TargetPass(KvDataPlane gpu, TokenModels models) {
        this.gpu = gpu;
        this.models = models;
    }

    public KvDataPlane gpu() {
        return gpu;
    }

    private long[] truth(Job j) {
        long[] t = truth.get(j.req());
        if (t == null || t.length < j.total()) {
            t = models.trueDigests(j.seed(), j.total());
            truth.put(j.req(), t);
        }
        return t;
    }

    /** Runs one step on this worker's KV. */
    public Pass run(Job j) {
        int r = j.req();
        int p = j.promptLen();
        long[] tr = truth(j);
        if (j.prefill()) {
            int have = gpu.positions(r);
            if (have != j.have()) {
                throw new IllegalStateException("the worker holds " + have + " KV positions of request " + r + ", the core " + j.have());
            }
            if (have < j.upTo()) {
                gpu.compute(r, j.seed(), have + 1, j.upTo());
            }
            // the first token's own KV is written by the first decode step, which feeds it back
            int[] toks = j.outLen() == 0 ? new int[] {models.target(j.seed(), 1, gpu.digest(r, p), tr[p - 1])} : new int[0];
            return new Pass(toks, content(r, have + 1, j.upTo()), gpu.positions(r));
        }
        int n = j.outLen();
        int[] out = Verification.greedy(j.drafts(), j.left(), i -> {
            int m = n + i + 1;
            gpu.compute(r, j.seed(), p + m - 1, p + m - 1);
            return models.target(j.seed(), m, gpu.digest(r, p + m - 1), tr[p + m - 2]);
        });
        int kv = gpu.positions(r);
        return new Pass(out, content(r, kv - out.length + 1, kv), kv);
    }

    private PageDigest[] content(int r, int from, int to) {
        return content(gpu, r, from, to);
    }

    /** The content of r's pages on {@code gpu} that positions from..to touch, as the trace reports it. */
    public static PageDigest[] content(KvDataPlane gpu, int r, int from, int to) {
        int pt = gpu.geometry().pageTokens();
        int[][] shape = PageDigest.shape(from, to, pt);
        PageDigest[] out = new PageDigest[shape.length];
        for (int i = 0; i < shape.length; i++) {
            int page = (shape[i][0] - 1) / pt;
            out[i] = new PageDigest(shape[i][0], shape[i][1], gpu.pageDigest(r, page, shape[i][1]));
        }
        return out;
    }

    /** r is done here: its KV and what the target kept for it are freed. */
    public void free(int r) {
        gpu.free(r);
        truth.remove(r);
    }

    /** A crash. */
    public void clear() {
        gpu.clear();
        truth.clear();
    }
}
