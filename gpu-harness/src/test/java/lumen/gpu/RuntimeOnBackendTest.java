package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import org.junit.jupiter.api.Test;

/**
 * The reference runtime with the harness's CPU backend as every worker's KV data plane: every
 * reference scenario comes out as it does on the runtime's own data plane (outputs equal to the
 * failure-free reference, restores bit-exact, traces accepted or rejected as expected), so the
 * backend is a drop-in data plane; on a GPU machine, {@link CudaRuntimeTest} does the same on the GPU.
 */
class RuntimeOnBackendTest {

    /** The scenarios that do not pass with data planes made by {@code make}, each run's backends closed after it. */
    static List<String> failures(java.util.function.Function<lumen.runtime.KvGeometry, Backend> make) {
        List<String> bad = new ArrayList<>();
        for (Scenario sc : Scenarios.all()) {
            List<Backend> made = new ArrayList<>();
            try {
                ScenarioRun r = ScenarioRun.run(sc, g -> {
                    Backend b = make.apply(g);
                    made.add(b);
                    return b;
                });
                if (!r.passed()) {
                    bad.add(sc.name() + ": " + r.problems());
                }
            } finally {
                made.forEach(Backend::close);
            }
        }
        return bad;
    }

    @Test
    void everyReferenceScenarioPassesOnTheCpuBackend() {
        List<String> bad = failures(g -> new CpuBackend(g, 4_096));
        assertThat(bad).as(String.join("\n", bad)).isEmpty();
    }
}
