package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import lumen.runtime.CpuKvPlane;
import lumen.runtime.KvGeometry;
import lumen.runtime.PageBytes;
import lumen.runtime.Verification;
import org.apache.commons.math3.stat.inference.ChiSquareTest;
import org.junit.jupiter.api.Test;

/**
 * The property suites every backend must pass: restores are bit-exact, no page is lost, a decode
 * step reads exactly the bytes the model computed, greedy verification is the target's output,
 * and rejection sampling keeps the target's distribution.
 */
abstract class BackendContract {

    /** A backend with a pool of {@code pages} pages. */
    abstract Backend open(KvGeometry g, int pages);

    /** Geometries: small test pages, and a Llama-3-70B-like one per GPU at TP 8 (80 layers, 1 KV head of 128, K and V in BF16). */
    static final KvGeometry SMALL = new KvGeometry(16, 2, 16);
    static final KvGeometry LLAMA_TP8 = new KvGeometry(16, 80, 512);

    /** The digest reference-impl's CPU data plane gives the same KV. */
    static long referenceDigest(KvGeometry g, long seed, int n) {
        CpuKvPlane ref = new CpuKvPlane(g);
        ref.compute(0, seed, 1, n);
        return ref.digest(0, n);
    }

    @Test
    void aRestoreIsBitExactAndMatchesTheReferenceDataPlane() {
        for (KvGeometry g : List.of(SMALL, LLAMA_TP8)) {
            SplittableRandom rnd = new SplittableRandom(7);
            try (Backend b = open(g, 64)) {
                for (int trial = 0; trial < 12; trial++) {
                    int req = trial;
                    long seed = rnd.nextLong();
                    int n = 1 + rnd.nextInt(g == SMALL ? 200 : 40);
                    int cut = 1 + rnd.nextInt(n);
                    b.compute(req, seed, 1, cut);
                    if (cut < n) {
                        b.compute(req, seed, cut + 1, n);
                    }
                    long digest = b.digest(req, n);
                    assertThat(digest).as("the pool holds what the model computed").isEqualTo(referenceDigest(g, seed, n));
                    List<byte[]> pages = b.stream(req, 0, g.pagesFor(n) - 1);
                    long[] sums = b.pageChecksums(req);
                    b.free(req);
                    b.compute(999, rnd.nextLong(), 1, g.pageTokens());
                    b.restore(req, pages, n);
                    assertThat(b.digest(req, n)).as("restored bit for bit").isEqualTo(digest);
                    assertThat(b.pageChecksums(req)).isEqualTo(sums);
                    for (int i = 0; i < pages.size(); i++) {
                        assertThat(b.gather(req, i)).isEqualTo(pages.get(i));
                    }
                    b.free(req);
                    b.free(999);
                }
                assertThat(b.pagesInUse()).isEqualTo(0);
            }
        }
    }

    @Test
    void aPageHoldsItsPositionsThenZerosWhateverItsSlotHeldBefore() {
        KvGeometry g = SMALL;
        try (Backend b = open(g, 4)) {
            b.compute(1, 11, 1, 4 * g.pageTokens());
            b.free(1);
            long seed = 22;
            int n = g.pageTokens() + 3;
            b.compute(2, seed, 1, 5);
            b.compute(2, seed, 6, n);
            List<byte[]> pages = b.stream(2, 0, 1);
            long[] sums = b.pageChecksums(2);
            for (int i = 0; i < 2; i++) {
                byte[] want = new byte[g.pageBytes()];
                for (int pos = i * g.pageTokens() + 1; pos <= Math.min(n, (i + 1) * g.pageTokens()); pos++) {
                    for (int layer = 0; layer < g.layers(); layer++) {
                        PageBytes.fill(seed, layer, pos, want, g.offset(pos, layer), g.bytesPerTokenLayer());
                    }
                }
                assertThat(pages.get(i)).as("page " + i + ": its positions' KV, then zeros").isEqualTo(want);
                assertThat(sums[i]).as("page " + i + "'s checksum").isEqualTo(Kernels.checksum(want));
            }
        }
    }

    @Test
    void aCorruptedPageIsCaughtByTheRestoreCheck() {
        try (Backend b = open(SMALL, 16)) {
            b.compute(1, 42, 1, 40);
            List<byte[]> pages = b.stream(1, 0, 2);
            long[] good = b.pageChecksums(1);
            byte[] bad = pages.get(1).clone();
            bad[5] ^= 1;
            assertThat(Kernels.checksum(bad)).as("one flipped bit changes the page's checksum").isNotEqualTo(good[1]);
            // the check compares what landed with what was sent, so a page altered in flight fails it
            IllegalStateException e = assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> Restores.check(1, new long[] {good[0], good[1], good[2]}, new long[] {good[0], Kernels.checksum(bad), good[2]}))
                    .actual();
            assertThat(e.getMessage()).contains("not bit-exact: page 1");
        }
    }

    @Test
    void noPageIsLostOverRandomOperations() {
        SplittableRandom rnd = new SplittableRandom(11);
        try (Backend b = open(SMALL, 40)) {
            Map<Integer, Integer> live = new HashMap<>();
            Map<Integer, Long> seeds = new HashMap<>();
            for (int step = 0; step < 2_000; step++) {
                int req = rnd.nextInt(12);
                int op = rnd.nextInt(10);
                try {
                    if (op < 5) {
                        int have = live.getOrDefault(req, 0);
                        int more = 1 + rnd.nextInt(40);
                        seeds.putIfAbsent(req, rnd.nextLong());
                        b.compute(req, seeds.get(req), have + 1, have + more);
                        live.put(req, have + more);
                    } else if (op < 7 && live.containsKey(req)) {
                        int n = live.get(req);
                        List<byte[]> pages = b.stream(req, 0, SMALL.pagesFor(n) - 1);
                        b.restore(req, pages, n);
                        assertThat(b.digest(req, n)).isEqualTo(referenceDigest(SMALL, seeds.get(req), n));
                    } else if (op < 9) {
                        b.free(req);
                        live.remove(req);
                        seeds.remove(req);
                    } else if (rnd.nextInt(20) == 0) {
                        b.clear();
                        live.clear();
                        seeds.clear();
                    }
                } catch (IllegalStateException full) {
                    assertThat(full.getMessage()).startsWith("KV pool full");
                }
                int pages = live.values().stream().mapToInt(SMALL::pagesFor).sum();
                assertThat(b.pagesInUse()).as("pages in use are exactly the live requests' pages, at step " + step).isEqualTo(pages);
                for (Map.Entry<Integer, Integer> e : live.entrySet()) {
                    assertThat(b.positions(e.getKey())).isEqualTo(e.getValue());
                }
            }
        }
    }

    @Test
    void aFullPoolRefusesWithAClearErrorAndLosesNothing() {
        try (Backend b = open(SMALL, 4)) {
            b.compute(1, 1, 1, 48);
            long d = b.digest(1, 48);
            IllegalStateException e = assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> b.compute(2, 2, 1, 32)).actual();
            assertThat(e.getMessage()).isEqualTo("KV pool full: request 2 needs 2 more pages, 1 of 4 are free");
            assertThat(b.pagesInUse()).isEqualTo(3);
            assertThat(b.digest(1, 48)).isEqualTo(d);
        }
    }

    @Test
    void aDecodeStepReadsExactlyTheComputedBytes() {
        for (KvGeometry g : List.of(SMALL, LLAMA_TP8)) {
            try (Backend b = open(g, 128)) {
                SplittableRandom rnd = new SplittableRandom(3);
                int[] reqs = new int[9];
                long[] seeds = new long[reqs.length];
                int[] lens = new int[reqs.length];
                for (int j = 0; j < reqs.length; j++) {
                    reqs[j] = 100 + j;
                    seeds[j] = rnd.nextLong();
                    lens[j] = 1 + rnd.nextInt(g == SMALL ? 150 : 30);
                    b.compute(reqs[j], seeds[j], 1, lens[j]);
                }
                int[] got = b.decode(reqs);
                for (int j = 0; j < reqs.length; j++) {
                    assertThat(got[j]).as("request " + reqs[j] + " of " + lens[j] + " positions").isEqualTo(expectedAttend(g, seeds[j], lens[j]));
                }
            }
        }
    }

    /** The decode reduction computed from the model's bytes directly (PageBytes), not from any pool. */
    static int expectedAttend(KvGeometry g, long seed, int n) {
        int row = g.layers() * g.bytesPerTokenLayer();
        byte[] all = new byte[n * row];
        for (int pos = 1; pos <= n; pos++) {
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, all, (pos - 1) * row + layer * g.bytesPerTokenLayer(), g.bytesPerTokenLayer());
            }
        }
        return Kernels.attend(n, g, i -> all[(int) i] & 0xff);
    }

    @Test
    void greedyVerificationIsTheTargetsOutputTokenForToken() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (int k : new int[] {1, 2, 4, 8}) {
            int rows = 500;
            int[] draft = new int[rows * k];
            int[] target = new int[rows * (k + 1)];
            for (int b = 0; b < rows; b++) {
                for (int i = 0; i <= k; i++) {
                    target[b * (k + 1) + i] = rnd.nextInt(50);
                }
                for (int i = 0; i < k; i++) {
                    draft[b * k + i] = rnd.nextDouble() < 0.7 ? target[b * (k + 1) + i] : rnd.nextInt(50);
                }
            }
            try (Backend be = open(SMALL, 1)) {
                int[] emitted = be.verifyGreedy(draft, target, k);
                for (int b = 0; b < rows; b++) {
                    int row = b;
                    int[] d = java.util.Arrays.copyOfRange(draft, b * k, b * k + k);
                    int[] ref = Verification.greedy(d, k + 1, i -> target[row * (k + 1) + i]);
                    assertThat(emitted[b]).as("row " + b).isEqualTo(ref.length);
                    assertThat(java.util.Arrays.copyOfRange(target, b * (k + 1), b * (k + 1) + emitted[b])).isEqualTo(ref);
                }
            }
        }
    }

    /** A draft distribution q and target p over v tokens, and rows drafts drawn from q, with their uniforms. */
    record Batch(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample) {}

    static Batch batch(float[] p1, float[] q1, int k, int rows, long seed) {
        int v = p1.length;
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] p = new float[rows * (k + 1) * v];
        float[] q = new float[rows * k * v];
        int[] draft = new int[rows * k];
        float[] ua = new float[rows * k];
        float[] us = new float[rows * (k + 1)];
        for (int b = 0; b < rows; b++) {
            for (int i = 0; i <= k; i++) {
                System.arraycopy(p1, 0, p, (b * (k + 1) + i) * v, v);
                us[b * (k + 1) + i] = (float) rnd.nextDouble();
            }
            for (int i = 0; i < k; i++) {
                System.arraycopy(q1, 0, q, (b * k + i) * v, v);
                double u = rnd.nextDouble();
                double acc = 0;
                int x = v - 1;
                for (int t = 0; t < v; t++) {
                    acc += q1[t];
                    if (u < acc) {
                        x = t;
                        break;
                    }
                }
                draft[b * k + i] = x;
                ua[b * k + i] = (float) rnd.nextDouble();
            }
        }
        return new Batch(p, q, draft, ua, us);
    }

    static final float[] P = {0.30f, 0.20f, 0.15f, 0.10f, 0.10f, 0.08f, 0.05f, 0.02f};
    static final float[] Q = {0.05f, 0.10f, 0.30f, 0.05f, 0.25f, 0.05f, 0.15f, 0.05f};

    /** The chi-square p-value of the first emitted token of every row against P. */
    static double firstTokenFit(Kernels.Emitted e, int k) {
        long[] seen = new long[P.length];
        int rows = e.emitted().length;
        for (int b = 0; b < rows; b++) {
            seen[e.tokens()[b * (k + 1)]]++;
        }
        double[] expected = new double[P.length];
        for (int t = 0; t < P.length; t++) {
            expected[t] = P[t] * rows;
        }
        return new ChiSquareTest().chiSquareTest(expected, seen);
    }

    @Test
    void rejectionSamplingKeepsTheTargetsDistribution() {
        int k = 4;
        Batch x = batch(P, Q, k, 200_000, 9);
        try (Backend be = open(SMALL, 1)) {
            Kernels.Emitted e = be.verifyRejection(x.p(), x.q(), x.draft(), x.uAccept(), x.uSample(), k, P.length);
            double pValue = firstTokenFit(e, k);
            assertThat(pValue > 1e-4).as("emitted tokens follow p (chi-square p-value " + pValue + ")").isTrue();
            // and the test can fail: the draft's own tokens, kept unchecked, follow q, not p
            Kernels.Emitted unchecked = new Kernels.Emitted(draftsAsEmitted(x.draft(), k), e.emitted());
            assertThat(firstTokenFit(unchecked, k) < 1e-9).as("a verifier that keeps every draft token is caught").isTrue();
            double mean = java.util.Arrays.stream(e.emitted()).average().orElseThrow();
            assertThat(mean > 1 && mean < k + 1).as("some drafts are kept, some rejected: mean emitted " + mean).isTrue();
        }
    }

    static int[] draftsAsEmitted(int[] draft, int k) {
        int rows = draft.length / k;
        int[] out = new int[rows * (k + 1)];
        for (int b = 0; b < rows; b++) {
            System.arraycopy(draft, b * k, out, b * (k + 1), k);
        }
        return out;
    }

    @Test
    void badShapesAreRefusedWithTheirReason() {
        try (Backend be = open(SMALL, 1)) {
            IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                    .isThrownBy(() -> be.verifyGreedy(new int[4], new int[4], 2)).actual();
            assertThat(e.getMessage()).startsWith("greedy: need");
            assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> be.stream(1, 0, 0));
            List<byte[]> wrong = new ArrayList<>(List.of(new byte[3]));
            assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> be.restore(1, wrong, 1));
        }
    }
}
