package lumen.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProfiledCostModelTest {
    static final ProfiledCostModel H100 = ProfiledCostModel.calibrate(new ProfiledCostModel.Params("h100-80gb", 8, 1.0, 327_680, 10, 20, 0.02,
            0.5, 4, 1_500, 35_000, 3_000));

    @Test
    void itPassesThroughTheProfilesMedians() {
        // medians of the Splitwise profile, Llama-2-70B on DGX-H100 at TP 8 (five runs per point)
        assertEquals(134.4, H100.prefillMs(2048), 0.1);
        assertEquals(831.5, H100.prefillMs(8192), 0.1);
        assertEquals(50.2, H100.decodeMs(64, 512), 0.1);
        assertEquals(30.6, H100.decodeMs(1, 512), 0.1);
        assertEquals(31.4, H100.decodeMs(1, 8192), 0.1);
    }

    @Test
    void itInterpolatesBetweenAndExtendsBeyond() {
        double mid = H100.prefillMs(3072);
        assertTrue(mid > 134.4 && mid < 376.2, "between the 2048 and 4096 medians: " + mid);
        assertTrue(H100.prefillMs(65_536) > H100.prefillMs(32_768), "extended linearly past the last point");
        assertEquals(H100.prefillMs(128), H100.prefillMs(1), 1e-9, "held flat below the first point");
        // at batch 1 the profile's decode time is flat up to a 4,096-token prompt and grows by 8,192
        assertTrue(H100.decodeMs(32, 8192) > H100.decodeMs(32, 512) + 20, "attention grows with every request's context");
        assertEquals(0, H100.prefillMs(0));
        assertEquals(0, H100.decodeMs(0, 100));
    }

    @Test
    void streamingAndRestoreFollowEq1() {
        // 16 positions of 327,680 bytes over 10 GB/s
        assertEquals(16 * 327_680 / 1e7, H100.streamPageMs(16), 1e-9);
        // 1,000 positions of 327,680 bytes over 20 GB/s
        assertEquals(1000 * 327_680 / 2e7, H100.restoreMs(1000), 1e-9);
        assertEquals(327_680L, Preset.LLAMA3_70B.kvBytesPerToken(), "Eq. 1: 2 * 80 * 8 * 128 * 2 bytes");
        assertEquals(2L * 64 * 8 * 128 * 2, Preset.QWEN3_32B_4W.kvBytesPerToken());
        assertEquals(2L * 48 * 8 * 128 * 2, Preset.QWEN3_14B_8W.kvBytesPerToken());
    }

    @Test
    void anUnprofiledSetupIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ProfiledCostModel.calibrate(new ProfiledCostModel.Params("tpu-v5", 8, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0)));
    }

    @Test
    void listValuesExpandIntoExperiments() throws Exception {
        SimConfig c = SimConfig.load(null, null, List.of("theta=0,100", "tau=1,2,3", "policies=lumen,stop-and-restart"));
        List<SimConfig.Experiment> es = c.expand();
        assertEquals(6, es.size());
        assertEquals(List.of("tau", "theta"), es.get(0).axes());
        assertEquals(List.of("lumen", "stop-and-restart"), es.get(0).policies());
        assertThrows(SimConfig.BadValue.class, () -> SimConfig.load(null, null, List.of("nope=1")));
    }
}
