package lumen.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertTrue(out.startsWith("device: the host CPU"), out);
        assertEquals("kernels-on-host", p.backend());
        assertEquals(GpuBench.GEOMETRIES.size() * GpuBench.PAGE_TOKENS.length, p.stream().size());
        for (GpuProfile.Stream s : p.stream()) {
            assertTrue(s.gbps() > 0 && Double.isFinite(s.gbps()), s.toString());
            assertEquals(s.gbps() / p.d2hCeilingGBps(), s.shareOfCeiling(), 1e-9);
        }
        assertTrue(p.decodeAloneMs() > 0 && p.decodeStreamingMs() > 0, out);
        assertEquals(2, p.restore().size());
        assertTrue(p.restore().stream().allMatch(r -> r.restoreMs() > 0 && r.reprefillMs() > 0), out);
        assertTrue(p.verify().greedyRowsPerS() > 0 && p.verify().rejectionRowsPerS() > 0, out);
        assertTrue(out.contains("are for the GPU; these CPU figures neither meet nor miss them"), out);
        ProfiledCostModel cost = Preset.LLAMA3_70B.costModel();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.applyTo(cost, "host profile"));
        assertTrue(e.getMessage().contains("the cost model takes GPU measurements only"), e.getMessage());
    }
}
