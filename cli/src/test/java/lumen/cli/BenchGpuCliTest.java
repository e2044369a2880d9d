package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("JCuda backend unavailable: ") && r.out().contains("THESE ARE NOT GPU FIGURES"), r.out());
        assertTrue(r.out().contains("qwen3-14b-tp2") && r.out().contains("re-prefill ms") && r.out().contains("rows/s"), r.out());
        GpuProfile p = GpuProfile.read(json);
        assertEquals("cpu", p.backend());
        assertEquals(15, p.stream().size(), "three geometries by five page sizes");
        CliRun sim = CliRun.of("simulate", "--set", "gpu_profile=" + json, "--duration-s", "10", "-q");
        assertEquals(ExitCodes.BAD_INPUT, sim.exit(), sim.out() + sim.err());
        assertTrue(sim.err().contains("measured on the cpu backend; the cost model takes GPU measurements only"), sim.err());
    }
}
