package lumen.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuProfileTest {

    static GpuProfile profile(String backend, double stream16, double restore, double slowdown) {
        return new GpuProfile(backend, "test device", "2026-11-29T00:00:00Z", 50,
                List.of(new GpuProfile.Stream("llama3-70b-tp8", 16, stream16, stream16 / 50), new GpuProfile.Stream("llama3-70b-tp8", 256, 45, 0.9)),
                1.0, 1.01, slowdown, restore, List.of(new GpuProfile.Restore(1024, 2, 30)), 64, new GpuProfile.Verify(4, 32000, 1e9, 1e6));
    }

    @Test
    void aGpuProfileSetsStreamingRestoreAndSlowdownInTheCostModel(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("gpu.json");
        Files.writeString(f, profile("jcuda", 6, 40, 0.015).toJson());
        ProfiledCostModel base = Preset.LLAMA3_70B.costModel();
        ProfiledCostModel m = GpuProfile.read(f).applyTo(base, f.toString());
        assertEquals(6, m.params().streamGBps(), 1e-9, "the lower of the network (10) and the measured 16-token streaming (6)");
        assertEquals(40, m.params().restoreGBps(), 1e-9);
        assertEquals(0.015, m.params().streamSlowdown(), 1e-9);
        assertEquals(base.prefillMs(2048), m.prefillMs(2048), 1e-9, "compute is unchanged");
        assertTrue(m.restoreMs(10_000) < base.restoreMs(10_000), "a faster restore than the stated 20 GB/s");
        SimConfig.Experiment e = SimConfig.load(null, null, List.of("gpu_profile=" + f)).expand().get(0);
        assertEquals(40, e.options("lumen").cost().params().restoreGBps(), 1e-9, "lumen simulate --set gpu_profile=FILE uses it");
    }

    @Test
    void aCpuProfileOrAMissingOrMalformedFileIsRefusedWithItsName(@TempDir Path dir) throws IOException {
        Path cpu = dir.resolve("cpu.json");
        Files.writeString(cpu, profile("cpu", 6, 40, 0).toJson());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GpuProfile.read(cpu).applyTo(Preset.LLAMA3_70B.costModel(), cpu.toString()));
        assertEquals(cpu + ": measured on the cpu backend; the cost model takes GPU measurements only", e.getMessage());
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{ not json");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GpuProfile.read(bad)).getMessage().startsWith(bad + ": not a GPU profile"));
        SimConfig.BadValue b = assertThrows(SimConfig.BadValue.class,
                () -> SimConfig.load(null, null, List.of("gpu_profile=" + dir.resolve("none.json"))).expand().get(0).options("lumen"));
        assertEquals("--set gpu_profile=" + dir.resolve("none.json") + ": key 'gpu_profile': " + dir.resolve("none.json") + ": no such file",
                b.getMessage());
    }
}
