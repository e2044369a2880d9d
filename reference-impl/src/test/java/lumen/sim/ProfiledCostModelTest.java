package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProfiledCostModelTest {
    static ProfiledCostModel llama(int tp) {
        return ProfiledCostModel.calibrate(new ProfiledCostModel.Params("h100-80gb", tp, ModelShape.LLAMA2_70B, ModelShape.QWEN3_1_7B,
                10, 20, 0.02, 1_500, 35_000, 3_000));
    }

    @Test
    void thePerOperatorModelLandsNearTheEndToEndPrefillsItWasNotFittedTo() {
        // Splitwise medians of Llama-2-70B on DGX-H100, batch 1; the per-operator model is anchored by one factor per TP.
        // It lands within 20%: at most +18% (512 tokens, TP 2) and -18% (8,192 tokens, TP 4, where attention dominates)
        double[][] tp4 = {{512, 59.7}, {1024, 105.6}, {2048, 200.7}, {4096, 463.5}, {8192, 953.6}};
        double[][] tp2 = {{512, 83.8}, {1024, 158.0}, {2048, 310.3}, {4096, 642.7}, {8192, 1339.8}};
        for (Object[] c : new Object[][] {{4, tp4}, {2, tp2}}) {
            ProfiledCostModel m = llama((Integer) c[0]);
            for (double[] pt : (double[][]) c[1]) {
                assertThat(m.prefillMs((int) pt[0])).as("TP %s, prefill of %.0f tokens", c[0], pt[0]).isCloseTo(pt[1], within(0.20 * pt[1]));
            }
        }
    }

    @Test
    void oneIterationIsOneFusedPass() {
        ProfiledCostModel m = Preset.QWEN3_32B_4W.costModel();
        double fused = m.iterationMs(new int[] {512}, new int[] {0}, 32, 1_000, 0);
        double apart = m.prefillMs(512) + m.decodeMs(32, 1_000);
        assertThat(fused).as("the weights are read once and the engine's overhead paid once").isLessThan(apart);
        assertThat(fused).isGreaterThan(Math.max(m.prefillMs(512), m.decodeMs(32, 1_000)));
        assertThat(m.iterationMs(new int[] {256}, new int[] {4_000}, 0, 0, 0)).as("a chunk after a cached prefix attends to it")
                .isGreaterThan(m.iterationMs(new int[] {256}, new int[] {0}, 0, 0, 0));
        assertThat(m.decodeMs(32, 1_000, 128)).as("verifying drafts costs more tokens in the same pass").isGreaterThan(m.decodeMs(32, 1_000));
        assertThat(m.iterationMs(null, null, 0, 0, 0)).isEqualTo(0);
        assertThat(m.prefillMs(0)).isEqualTo(0);
        assertThat(m.decodeMs(0, 100)).isEqualTo(0);
    }

    @Test
    void moreWorkNeverCostsLess() {
        for (Preset p : Preset.values()) {
            ProfiledCostModel m = p.costModel();
            double prev = 0;
            for (int n = 1; n <= 20_000; n += 37) {
                double t = m.prefillMs(n);
                assertThat(t).as("%s prefill of %d tokens", p.key, n).isGreaterThanOrEqualTo(prev - 1e-9);
                prev = t;
            }
            prev = 0;
            for (int b = 1; b <= 128; b++) {
                double t = m.decodeMs(b, 1_500);
                assertThat(t).as("%s decode of %d requests", p.key, b).isGreaterThanOrEqualTo(prev - 1e-9);
                prev = t;
            }
            assertThat(m.decodeMs(32, 8_000)).as("attention grows with every request's context").isGreaterThan(m.decodeMs(32, 500));
            assertThat(m.draftRoundMs(4, 64)).as("a draft round grows with the batch").isGreaterThan(m.draftRoundMs(4, 1));
            assertThat(m.draftRoundMs(1, 32)).as("a draft step is cheaper than the target's").isLessThan(m.decodeMs(32, 0));
        }
        assertThat(Preset.QWEN3_32B_4W.costModel().iterationMs(new int[] {2_048}, new int[] {0}, 16, 1_000, 0))
                .as("a 32B model at TP 4 against a 70B model at TP 4")
                .isLessThan(llama(4).iterationMs(new int[] {2_048}, new int[] {0}, 16, 1_000, 0));
    }

    @Test
    void streamingAndRestoreFollowEq1() {
        ProfiledCostModel m = llama(8);
        // 16 positions of 327,680 bytes over 10 GB/s
        assertThat(m.streamPageMs(16)).isCloseTo(16 * 327_680 / 1e7, within(1e-9));
        // 1,000 positions of 327,680 bytes over 20 GB/s
        assertThat(m.restoreMs(1000)).isCloseTo(1000 * 327_680 / 2e7, within(1e-9));
        assertThat(Preset.LLAMA3_70B.kvBytesPerToken()).as("Eq. 1: 2 * 80 * 8 * 128 * 2 bytes").isEqualTo(327_680L);
        assertThat(Preset.QWEN3_32B_4W.kvBytesPerToken()).isEqualTo(2L * 64 * 8 * 128 * 2);
        assertThat(Preset.QWEN3_14B_8W.kvBytesPerToken()).isEqualTo(2L * 40 * 8 * 128 * 2);
    }

    @Test
    void anUnprofiledSetupIsRefused() {
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> ProfiledCostModel.calibrate(new ProfiledCostModel.Params(
                "tpu-v5", 8, ModelShape.LLAMA2_70B, ModelShape.QWEN3_1_7B, 1, 1, 0, 0, 0, 0))).withMessageContaining("tpu-v5");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> ProfiledCostModel.calibrate(new ProfiledCostModel.Params(
                "h100-80gb", 3, ModelShape.LLAMA2_70B, ModelShape.QWEN3_1_7B, 1, 1, 0, 0, 0, 0))).withMessageContaining("TP 3");
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

    @Test
    void onA100TheModelIsAnchoredToSplitwisesA100Measurements() {
        // Splitwise medians of Llama-2-70B on DGX-A100: decode of one request after a 512-token prompt, and prefills at batch 1
        double[][] a100 = {{2, 54.9, 196.9, 1485.3}, {4, 45.0, 127.0, 965.2}};
        for (double[] c : a100) {
            ProfiledCostModel m = ProfiledCostModel.calibrate(new ProfiledCostModel.Params("a100-80gb", (int) c[0], ModelShape.LLAMA2_70B,
                    ModelShape.QWEN3_1_7B, 10, 20, 0.02, 1_500, 35_000, 3_000));
            assertThat(m.decodeMs(1, 576)).as("TP %.0f, one-request decode", c[0]).isCloseTo(c[1], within(0.01 * c[1]));
            assertThat(m.prefillMs(512)).as("TP %.0f, 512-token prefill", c[0]).isCloseTo(c[2], within(0.20 * c[2]));
            assertThat(m.prefillMs(4_096)).as("TP %.0f, 4,096-token prefill", c[0]).isCloseTo(c[3], within(0.20 * c[3]));
            assertThat(m.prefillMs(4_096)).as("A100 is slower than H100").isGreaterThan(llama((int) c[0]).prefillMs(4_096));
        }
    }

    @Test
    void theKvPoolIsTheMemoryShareLessTheWeightsOverEq1() {
        assertThat(ModelShape.QWEN3_32B.weightBytes() / 2e9).as("Qwen3-32B's published 32.8 B parameters").isCloseTo(32.8, within(0.1));
        assertThat(ModelShape.LLAMA2_70B.weightBytes() / 2e9).as("Llama-2-70B's 69 B").isCloseTo(69.0, within(0.1));
        ProfiledCostModel m = Preset.QWEN3_32B_4W.costModel("a100-80gb", 2);
        long expected = (long) ((0.85 * 2 * 80e9 - ModelShape.QWEN3_32B.weightBytes()) / ModelShape.QWEN3_32B.kvBytesPerToken());
        assertThat(m.kvCapacityPositions()).isEqualTo(expected);
        assertThat(m.withKvMemFraction(0.4).kvCapacityPositions()).as("the weights alone do not fit in 40% of two GPUs").isZero();
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> m.withKvMemFraction(1.5)).withMessageContaining("1.5");
    }
}
