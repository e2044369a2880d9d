package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import lumen.gpu.CudaBackend;
import lumen.sim.GpuProfile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen bench gpu} without a GPU: CPU-backend figures, labelled so, that the simulator refuses. */
class BenchGpuCliTest {
    @TempDir
    Path tmp;

    @Test
    void withoutAGpuTheFiguresAreTheCpuBackendsAndSaySo() throws Exception {
        Assumptions.assumeTrue(CudaBackend.probe().isPresent(), "a GPU is present: this test is for machines without one");
        Path json = tmp.resolve("profile.json");
        CliRun r = CliRun.of("bench", "gpu", "--quick", "--json", json.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out().contains("JCuda backend unavailable: ") && r.out().contains("THESE ARE NOT GPU FIGURES")).as(r.out()).isTrue();
        assertThat(r.out().contains("qwen3-14b-tp2") && r.out().contains("re-prefill ms") && r.out().contains("rows/s")).as(r.out()).isTrue();
        GpuProfile p = GpuProfile.read(json);
        assertThat(p.backend()).isEqualTo("cpu");
        assertThat(p.stream()).as("three geometries by five page sizes").hasSize(15);
        CliRun sim = CliRun.of("simulate", "--set", "gpu_profile=" + json, "--duration-s", "10", "-q");
        assertThat(sim.exit()).as(sim.out() + sim.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(sim.err()).contains("measured on the cpu backend; the cost model takes GPU measurements only");
    }
}
