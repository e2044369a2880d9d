package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import lumen.sim.Preset;
import lumen.sim.SimMetrics;
import org.junit.jupiter.api.Test;

/** The rules behind docs/reproduction.md: the load rule, the workload choice, and the cells of its tables. */
class ReproduceTest {

    static SimMetrics.Summary summary(String policy, double ttftMs, double recoveryMs) {
        SimMetrics.Stats s = new SimMetrics.Stats(10, ttftMs, ttftMs, ttftMs);
        return new SimMetrics.Summary(policy, 100_000, recoveryMs, s, s, s, s, s, s, 10, 1, 1, Double.NaN);
    }

    @Test
    void theLoadRuleScalesWithWorkersAndLoad() {
        double r4 = ReproduceCommand.rate(Preset.QWEN3_32B_4W, 4, 64, 0.85);
        assertThat(ReproduceCommand.rate(Preset.QWEN3_32B_4W, 8, 64, 0.85)).isCloseTo(2 * r4, within(1e-9));
        assertThat(ReproduceCommand.rate(Preset.QWEN3_32B_4W, 4, 64, 0.5)).isCloseTo(r4 / 0.85 * 0.5, within(1e-9));
        assertThat(ReproduceCommand.rate(Preset.LLAMA3_70B, 4, 64, 0.85) < r4).as("a 70B worker serves fewer requests than a 32B one").isTrue();
    }

    @Test
    void theTraceIsReplayedWhileItLastsTheRunElseGammaArrivalsWithItsStatistics() {
        List<String> small = ReproduceCommand.workload(Preset.QWEN3_32B_4W, 4, 600, 0.85);
        assertThat(small.get(0)).isEqualTo("workload=azure-conv");
        assertThat(small.get(1)).as(small.toString()).startsWith("rate_scale=");
        List<String> big = ReproduceCommand.workload(Preset.LLAMA3_70B, 64, 180, 0.85);
        assertThat(big.subList(0, 3)).isEqualTo(List.of("workload=gamma", "cv=1.09", "lengths=azure_conv"));
    }

    @Test
    void cellsAreMeansOverSeedsAndChangesAreSignedPercentages() {
        List<Map<String, SimMetrics.Summary>> seeds = List.of(
                Map.of("stop-and-restart", summary("stop-and-restart", 1000, 40_000), "lumen", summary("lumen", 700, Double.NaN)),
                Map.of("stop-and-restart", summary("stop-and-restart", 1000, 50_000), "lumen", summary("lumen", 740, 30_000)));
        assertThat(ReproductionDoc.change(seeds, "lumen", "stop-and-restart", s -> s.ttftAll().mean())).isEqualTo("-28%");
        assertThat(ReproduceCommand.cell(seeds, "lumen", s -> s.ttftAll().mean(), 1000, "%.2f")).isEqualTo("0.72 ± 0.03");
        assertThat(ReproductionDoc.recovery(seeds, "stop-and-restart")).isEqualTo("45 ± 7");
        assertThat(ReproductionDoc.recovery(seeds, "lumen")).as("a seed that never recovers is counted, not averaged in").isEqualTo("30 (1 never)");
        List<Map<String, SimMetrics.Summary>> never = List.of(Map.of("lumen", summary("lumen", 700, Double.NaN)));
        assertThat(ReproductionDoc.recovery(never, "lumen")).isEqualTo("never");
    }

    @Test
    void aLoadOutsideItsRangeIsRefused() throws Exception {
        CliRun r = CliRun.of("reproduce", "--load", "3", "--out", "/nonexistent/never-written.md");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.err()).contains("--load must be between 0 and 2, not 3.0");
    }
}
