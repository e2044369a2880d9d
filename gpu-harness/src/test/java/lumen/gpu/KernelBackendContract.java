package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
                assertThat(a.emitted()).isEqualTo(b.emitted());
                assertThat(a.tokens()).isEqualTo(b.tokens());
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
                assertThat(kernels.pageChecksums(r)).isEqualTo(cpu.pageChecksums(r));
            }
            assertThat(kernels.decode(reqs)).isEqualTo(cpu.decode(reqs));
            assertThat(kernels.digest(3, 60)).isEqualTo(cpu.digest(3, 60));
        }
    }

    @Test
    void aGeometryTheVectorReadsCannotTakeIsRefused() {
        KvGeometry odd = new KvGeometry(3, 1, 2);
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> open(odd, 1)).actual();
        assertThat(e.getMessage())
                .isEqualTo("the kernel backends need pages of a multiple of 16 bytes and token rows of a multiple of 4; got 6 and 2");
    }
}
