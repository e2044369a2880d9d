package lumen.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import lumen.runtime.KvGeometry;
import org.junit.jupiter.api.Test;

/** The backend suites for a kernel backend, and the kernels against their CPU twins on the same inputs, token for token. */
abstract class KernelBackendContract extends BackendContract {

    @Test
    void rejectionSamplingEqualsTheCpuTwinTokenForToken() {
        for (int k : new int[] {1, 4, 8}) {
            Batch x = batch(P, Q, k, 50_000, 13 + k);
            try (Backend kernels = open(SMALL, 1); Backend cpu = new CpuBackend(SMALL, 1)) {
                Kernels.Emitted a = kernels.verifyRejection(x.p(), x.q(), x.draft(), x.uAccept(), x.uSample(), k, P.length);
                Kernels.Emitted b = cpu.verifyRejection(x.p(), x.q(), x.draft(), x.uAccept(), x.uSample(), k, P.length);
                assertArrayEquals(b.emitted(), a.emitted());
                assertArrayEquals(b.tokens(), a.tokens());
            }
        }
    }

    @Test
    void checksumsAndDecodeEqualTheCpuTwins() {
        try (Backend kernels = open(LLAMA_TP8, 64); Backend cpu = new CpuBackend(LLAMA_TP8, 64)) {
            int[] reqs = {1, 2, 3};
            for (int r : reqs) {
                kernels.compute(r, 1000L * r, 1, 20 * r);
                cpu.compute(r, 1000L * r, 1, 20 * r);
                assertArrayEquals(cpu.pageChecksums(r), kernels.pageChecksums(r));
            }
            assertArrayEquals(cpu.decode(reqs), kernels.decode(reqs));
            assertEquals(cpu.digest(3, 60), kernels.digest(3, 60));
        }
    }

    @Test
    void aGeometryTheVectorReadsCannotTakeIsRefused() {
        KvGeometry odd = new KvGeometry(3, 1, 2);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> open(odd, 1));
        assertEquals("the kernel backends need pages of a multiple of 16 bytes and token rows of a multiple of 4; got 6 and 2", e.getMessage());
    }
}
