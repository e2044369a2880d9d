package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProfiledCostModelTest {
    static final ProfiledCostModel H100 = ProfiledCostModel.calibrate(new ProfiledCostModel.Params("h100-80gb", 8, 1.0, 327_680, 10, 20, 0.02,
            4, 1_500, 35_000, 3_000));

    @Test
    void itPassesThroughTheProfilesMedians() {
        // medians of the Splitwise profile, Llama-2-70B on DGX-H100 at TP 8 (five runs per point)
        assertThat(H100.prefillMs(2048)).isCloseTo(134.4, within(0.1));
        assertThat(H100.prefillMs(8192)).isCloseTo(831.5, within(0.1));
        assertThat(H100.decodeMs(64, 512)).isCloseTo(50.2, within(0.1));
        assertThat(H100.decodeMs(1, 512)).isCloseTo(30.6, within(0.1));
        assertThat(H100.decodeMs(1, 8192)).isCloseTo(31.4, within(0.1));
    }

    @Test
    void itInterpolatesBetweenAndExtendsBeyond() {
        double mid = H100.prefillMs(3072);
        assertThat(mid > 134.4 && mid < 376.2).as("between the 2048 and 4096 medians: " + mid).isTrue();
        assertThat(H100.prefillMs(65_536) > H100.prefillMs(32_768)).as("extended linearly past the last point").isTrue();
        assertThat(H100.prefillMs(1)).as("held flat below the first point").isCloseTo(H100.prefillMs(128), within(1e-9));
        // at batch 1 the profile's decode time is flat up to a 4,096-token prompt and grows by 8,192
        assertThat(H100.decodeMs(32, 8192) > H100.decodeMs(32, 512) + 20).as("attention grows with every request's context").isTrue();
        assertThat(H100.prefillMs(0)).isEqualTo(0);
        assertThat(H100.decodeMs(0, 100)).isEqualTo(0);
    }

    @Test
    void streamingAndRestoreFollowEq1() {
        // 16 positions of 327,680 bytes over 10 GB/s
        assertThat(H100.streamPageMs(16)).isCloseTo(16 * 327_680 / 1e7, within(1e-9));
        // 1,000 positions of 327,680 bytes over 20 GB/s
        assertThat(H100.restoreMs(1000)).isCloseTo(1000 * 327_680 / 2e7, within(1e-9));
        assertThat(Preset.LLAMA3_70B.kvBytesPerToken()).as("Eq. 1: 2 * 80 * 8 * 128 * 2 bytes").isEqualTo(327_680L);
        assertThat(Preset.QWEN3_32B_4W.kvBytesPerToken()).isEqualTo(2L * 64 * 8 * 128 * 2);
        assertThat(Preset.QWEN3_14B_8W.kvBytesPerToken()).isEqualTo(2L * 48 * 8 * 128 * 2);
    }

    @Test
    void anUnprofiledSetupIsRefused() {
        assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> ProfiledCostModel.calibrate(new ProfiledCostModel.Params("tpu-v5", 8, 1, 1, 1, 1, 0, 0, 0, 0, 0)));
    }

    @Test
    void listValuesExpandIntoExperiments() throws Exception {
        SimConfig c = SimConfig.load(null, null, List.of("theta=0,100", "tau=1,2,3", "policies=lumen,stop-and-restart"));
        List<SimConfig.Experiment> es = c.expand();
        assertThat(es).hasSize(6);
        assertThat(es.get(0).axes()).isEqualTo(List.of("tau", "theta"));
        assertThat(es.get(0).policies()).isEqualTo(List.of("lumen", "stop-and-restart"));
        assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> SimConfig.load(null, null, List.of("nope=1")));
    }
}
