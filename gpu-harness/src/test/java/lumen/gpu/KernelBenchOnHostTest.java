package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.io.PrintWriter;
import java.io.StringWriter;
import lumen.sim.ProfiledCostModel;
import lumen.sim.GpuProfile;
import lumen.sim.Preset;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The GPU benchmark's code, run end to end on the host device with small sizes: every
 * measurement completes, through the same kernel backend and kernels as on a GPU, and the profile
 * is whole. Its figures time the host running one thread at a time and mean nothing; the
 * simulator refuses the profile, as it refuses every profile not measured on a GPU.
 */
class KernelBenchOnHostTest {

    @BeforeAll
    static void compiler() {
        HostDevice.assumeBuildable();
    }

    static final KernelBench.Sizes SMOKE = new KernelBench.Sizes(64 << 10, 2, 40, 1 << 20, 2, 2, new int[] {16, 100}, 1000, 4, 64);

    @Test
    void everyMeasurementCompletesOnTheKernelsAndTheProfileIsWhole() {
        StringWriter text = new StringWriter();
        GpuProfile p = GpuBench.kernels(new PrintWriter(text, true), SMOKE, (g, pages) -> new KernelBackend(HostDevice::start, g, pages));
        String out = text.toString();
        assertThat(out).startsWith("device: the host CPU");
        assertThat(p.backend()).isEqualTo("kernels-on-host");
        assertThat(p.stream().size()).isEqualTo(GpuBench.GEOMETRIES.size() * GpuBench.PAGE_TOKENS.length);
        for (GpuProfile.Stream s : p.stream()) {
            assertThat(s.gbps() > 0 && Double.isFinite(s.gbps())).as(s.toString()).isTrue();
            assertThat(s.shareOfCeiling()).isCloseTo(s.gbps() / p.d2hCeilingGBps(), within(1e-9));
        }
        assertThat(p.decodeAloneMs() > 0 && p.decodeStreamingMs() > 0).as(out).isTrue();
        assertThat(p.restore()).hasSize(2);
        assertThat(p.restore()).as(out).allMatch(r -> r.restoreMs() > 0 && r.reprefillMs() > 0);
        assertThat(p.verify().greedyRowsPerS() > 0 && p.verify().rejectionRowsPerS() > 0).as(out).isTrue();
        assertThat(out).contains("are for the GPU; these CPU figures neither meet nor miss them");
        ProfiledCostModel cost = Preset.LLAMA3_70B.costModel();
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> p.applyTo(cost, "host profile")).actual();
        assertThat(e.getMessage()).contains("the cost model takes GPU measurements only");
    }
}
