package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every reference scenario with the GPU as every worker's KV data plane. */
@RequiresGpu
class CudaRuntimeTest {
    @Test
    void everyReferenceScenarioPassesOnTheGpu() {
        List<String> bad = RuntimeOnBackendTest.failures(g -> new CudaBackend(g, 4_096));
        assertThat(bad).as(String.join("\n", bad)).isEmpty();
    }
}
