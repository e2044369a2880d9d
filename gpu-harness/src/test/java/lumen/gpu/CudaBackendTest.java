package lumen.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import lumen.runtime.KvGeometry;
import org.junit.jupiter.api.Test;

/** The same suites on the GPU, and the GPU against the CPU twins on the same inputs; skipped, with the reason, where there is no GPU. */
@RequiresGpu
class CudaBackendTest extends BackendContract {

    @Override
    Backend open(KvGeometry g, int pages) {
        return new CudaBackend(g, pages);
    }

    @Test
    void rejectionSamplingEqualsTheCpuTwinTokenForToken() {
        for (int k : new int[] {1, 4, 8}) {
            Batch x = batch(P, Q, k, 50_000, 13 + k);
            try (Backend gpu = open(SMALL, 1); Backend cpu = new CpuBackend(SMALL, 1)) {
                Kernels.Emitted a = gpu.verifyRejection(x.p(), x.q(), x.draft(), x.uAccept(), x.uSample(), k, P.length);
                Kernels.Emitted b = cpu.verifyRejection(x.p(), x.q(), x.draft(), x.uAccept(), x.uSample(), k, P.length);
                assertArrayEquals(b.emitted(), a.emitted());
                assertArrayEquals(b.tokens(), a.tokens());
            }
        }
    }

    @Test
    void checksumsAndDecodeEqualTheCpuTwins() {
        try (Backend gpu = open(LLAMA_TP8, 64); Backend cpu = new CpuBackend(LLAMA_TP8, 64)) {
            int[] reqs = {1, 2, 3};
            for (int r : reqs) {
                gpu.compute(r, 1000L * r, 1, 20 * r);
                cpu.compute(r, 1000L * r, 1, 20 * r);
                assertArrayEquals(cpu.pageChecksums(r), gpu.pageChecksums(r));
            }
            assertArrayEquals(cpu.decode(reqs), gpu.decode(reqs));
            assertEquals(cpu.digest(3, 60), gpu.digest(3, 60));
        }
    }
}
