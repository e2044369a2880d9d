package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

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
        assertThat(m.params().streamGBps()).as("the lower of the network (10) and the measured 16-token streaming (6)").isCloseTo(6, within(1e-9));
        assertThat(m.params().restoreGBps()).isCloseTo(40, within(1e-9));
        assertThat(m.params().streamSlowdown()).isCloseTo(0.015, within(1e-9));
        assertThat(m.prefillMs(2048)).as("compute is unchanged").isCloseTo(base.prefillMs(2048), within(1e-9));
        assertThat(m.restoreMs(10_000) < base.restoreMs(10_000)).as("a faster restore than the stated 20 GB/s").isTrue();
        SimConfig.Experiment e = SimConfig.load(null, null, List.of("gpu_profile=" + f)).expand().get(0);
        assertThat(e.options("lumen").cost().params().restoreGBps()).as("lumen simulate --set gpu_profile=FILE uses it").isCloseTo(40, within(1e-9));
    }

    @Test
    void aCpuProfileOrAMissingOrMalformedFileIsRefusedWithItsName(@TempDir Path dir) throws IOException {
        Path cpu = dir.resolve("cpu.json");
        Files.writeString(cpu, profile("cpu", 6, 40, 0).toJson());
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> GpuProfile.read(cpu).applyTo(Preset.LLAMA3_70B.costModel(), cpu.toString())).actual();
        assertThat(e.getMessage()).isEqualTo(cpu + ": measured on the cpu backend; the cost model takes GPU measurements only");
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{ not json");
        assertThat(assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> GpuProfile.read(bad)).actual().getMessage())
                .startsWith(bad + ": not a GPU profile");
        SimConfig.BadValue b = assertThatExceptionOfType(SimConfig.BadValue.class)
                .isThrownBy(() -> SimConfig.load(null, null, List.of("gpu_profile=" + dir.resolve("none.json"))).expand().get(0).options("lumen")).actual();
        assertThat(b.getMessage())
                .isEqualTo("--set gpu_profile=" + dir.resolve("none.json") + ": key 'gpu_profile': " + dir.resolve("none.json") + ": no such file");
    }
}
