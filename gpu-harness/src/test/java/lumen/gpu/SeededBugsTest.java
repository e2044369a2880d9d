package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import lumen.runtime.KvGeometry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Each property suite of {@link BackendContract} fails on a backend with one seeded bug: the suites can fail. */
class SeededBugsTest {

    /** A backend that forwards everything to the CPU backend; each mutant overrides one operation. */
    static class Forwarding implements Backend {
        final Backend d;

        Forwarding(Backend d) {
            this.d = d;
        }

        public String name() { return "mutant"; }
        public KvGeometry geometry() { return d.geometry(); }
        public int capacityPages() { return d.capacityPages(); }
        public int pagesInUse() { return d.pagesInUse(); }
        public long[] pageChecksums(int req) { return d.pageChecksums(req); }
        public List<byte[]> stream(int req, int from, int to) { return d.stream(req, from, to); }
        public int[] decode(int[] reqs) { return d.decode(reqs); }
        public int[] verifyGreedy(int[] draft, int[] target, int k) { return d.verifyGreedy(draft, target, k); }
        public Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] ua, float[] us, int k, int v) {
            return d.verifyRejection(p, q, draft, ua, us, k, v);
        }
        public void compute(int req, long seed, int from, int to) { d.compute(req, seed, from, to); }
        public int positions(int req) { return d.positions(req); }
        public byte[] gather(int req, int page) { return d.gather(req, page); }
        public void restore(int req, List<byte[]> pages, int positions) { d.restore(req, pages, positions); }
        public long digest(int req, int n) { return d.digest(req, n); }
        public void free(int req) { d.free(req); }
        public void clear() { d.clear(); }
        public void close() { d.close(); }
    }

    private static BackendContract suiteOn(Function<Backend, Backend> mutant) {
        return new BackendContract() {
            @Override
            Backend open(KvGeometry g, int pages) {
                return mutant.apply(new CpuBackend(g, pages + 8));
            }
        };
    }

    private static void caught(Function<Backend, Backend> mutant, Function<BackendContract, Executable> suite) {
        assertThatExceptionOfType(AssertionError.class).isThrownBy(suite.apply(suiteOn(mutant))::execute);
    }

    @Test
    void aRestoreThatSwapsTwoPagesFailsBitExactness() {
        caught(b -> new Forwarding(b) {
            @Override
            public void restore(int req, List<byte[]> pages, int positions) {
                List<byte[]> swapped = new ArrayList<>(pages);
                if (swapped.size() > 1) {
                    swapped.set(0, pages.get(1));
                    swapped.set(1, pages.get(0));
                }
                d.restore(req, swapped, positions);
            }
        }, s -> s::aRestoreIsBitExactAndMatchesTheReferenceDataPlane);
    }

    @Test
    void aFreeThatKeepsAPageFailsNoLostPage() {
        caught(b -> new Forwarding(b) {
            int leaked;

            @Override
            public void free(int req) {
                boolean had = d.positions(req) > 0;
                d.free(req);
                if (had) {
                    d.compute(-1 - leaked++, 0, 1, 1);
                }
            }
        }, s -> s::noPageIsLostOverRandomOperations);
    }

    @Test
    void aDecodeThatSkipsTheLastPositionFailsTheReadCheck() {
        caught(b -> new Forwarding(b) {
            @Override
            public int[] decode(int[] reqs) {
                int[] out = d.decode(reqs);
                out[out.length - 1] ^= 1;
                return out;
            }
        }, s -> s::aDecodeStepReadsExactlyTheComputedBytes);
    }

    @Test
    void aGreedyVerifierThatKeepsOneTooManyFailsTheTargetsOutput() {
        caught(b -> new Forwarding(b) {
            @Override
            public int[] verifyGreedy(int[] draft, int[] target, int k) {
                int[] e = d.verifyGreedy(draft, target, k);
                for (int i = 0; i < e.length; i++) {
                    e[i] = Math.min(k + 1, e[i] + 1);
                }
                return e;
            }
        }, s -> s::greedyVerificationIsTheTargetsOutputTokenForToken);
    }

    @Test
    void aRejectionSamplerThatSkipsTheResidualFailsTheDistributionTest() {
        caught(b -> new Forwarding(b) {
            @Override
            public Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] ua, float[] us, int k, int v) {
                // on rejection, resample from p instead of the residual max(0, p - q): a classic bug that biases towards q's tokens
                float[] noQ = new float[q.length];
                Kernels.Emitted e = d.verifyRejection(p, q, draft, ua, us, k, v);
                Kernels.Emitted fromP = d.verifyRejection(p, noQ, new int[draft.length], new float[ua.length], us, k, v);
                int[] tokens = e.tokens().clone();
                int rows = draft.length / k;
                for (int r = 0; r < rows; r++) {
                    int last = r * (k + 1) + e.emitted()[r] - 1;
                    if (e.emitted()[r] <= k) {
                        tokens[last] = fromP.tokens()[r * (k + 1) + k];
                    }
                }
                return new Kernels.Emitted(tokens, e.emitted());
            }
        }, s -> s::rejectionSamplingKeepsTheTargetsDistribution);
    }
}
