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
        return new SimMetrics.Summary(policy, 100_000, recoveryMs, 30_000, s, s, s, s, s, s, 10, 1, 1, Double.NaN, Double.NaN);
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
        // two seeds: a 95% interval of Student's t with one degree of freedom (12.706 standard errors)
        assertThat(ReproductionDoc.change(seeds, "lumen", "stop-and-restart", s -> s.ttftAll().mean())).isEqualTo("-28.00% ± 25.41");
        assertThat(ReproduceCommand.cell(seeds, "lumen", s -> s.ttftAll().mean(), 1000, "%.2f")).isEqualTo("0.72 ± 0.25");
        assertThat(ReproductionDoc.recovery(seeds, "stop-and-restart")).isEqualTo("45 ± 64");
        assertThat(ReproductionDoc.recovery(seeds, "lumen")).as("a seed that never recovers is counted, not averaged in").isEqualTo("30 (1 never)");
        List<Map<String, SimMetrics.Summary>> never = List.of(Map.of("lumen", summary("lumen", 700, Double.NaN)));
        assertThat(ReproductionDoc.recovery(never, "lumen")).isEqualTo("never");
    }

    @Test
    void aChangeRowSaysWhetherOursGoesThePapersWayAndHowFar() {
        double[] ci = ReproduceCommand.meanAndHalfWidth(new double[] {1, 2, 3, 4, 5});
        assertThat(ci[0]).isCloseTo(3, within(1e-12));
        assertThat(ci[1]).isCloseTo(2.776 * Math.sqrt(2.5) / Math.sqrt(5), within(1e-9));
        List<Map<String, SimMetrics.Summary>> seeds = List.of(
                Map.of("fixed-checkpointing", summary("fixed-checkpointing", 1000, 40_000), "lumen", summary("lumen", 700, 30_000)),
                Map.of("fixed-checkpointing", summary("fixed-checkpointing", 1000, 40_000), "lumen", summary("lumen", 740, 30_000)));
        StringBuilder b = new StringBuilder();
        ReproductionDoc.changeRow(b, "LUMEN vs FC", "TTFT", "-44.4%", seeds, "lumen", "fixed-checkpointing", s -> s.ttftAll().mean());
        assertThat(b.toString()).isEqualTo("| LUMEN vs FC | TTFT | -44.4% | -28.00% ± 25.41 | same | no |\n");
        b.setLength(0);
        ReproductionDoc.changeRow(b, "LUMEN vs FC", "TTFT", "-30%*", seeds, "lumen", "fixed-checkpointing", s -> s.ttftAll().mean());
        assertThat(b.toString()).as("within a quarter of -30%").endsWith("| same | yes |\n");
        b.setLength(0);
        List<Map<String, SimMetrics.Summary>> noisy = List.of(
                Map.of("fixed-checkpointing", summary("fixed-checkpointing", 1000, 40_000), "lumen", summary("lumen", 800, 30_000)),
                Map.of("fixed-checkpointing", summary("fixed-checkpointing", 1000, 40_000), "lumen", summary("lumen", 1100, 30_000)));
        ReproductionDoc.changeRow(b, "LUMEN vs FC", "TTFT", "-7.1%", noisy, "lumen", "fixed-checkpointing", s -> s.ttftAll().mean());
        assertThat(b.toString()).as("an interval that holds 0").contains("| inside the noise |");
    }

    @Test
    void theCalibrationTakesTheCellNearestThePapersStopAndRestart() {
        double t = ReproduceCommand.TARGET_TTFT;
        double p = ReproduceCommand.TARGET_TPOT;
        assertThat(ReproduceCommand.error(t, p, 20, 20)).isZero();
        assertThat(ReproduceCommand.error(2 * t, p, 20, 20)).as("twice and half as far count alike")
                .isCloseTo(ReproduceCommand.error(t / 2, p, 20, 20), within(1e-12)).isGreaterThan(0);
        assertThat(ReproduceCommand.error(t, p, Double.NaN, 20)).as("a cell that never recovers").isInfinite();
        List<ReproduceCommand.Cell> grid = List.of(
                new ReproduceCommand.Cell(0.7, 8, t / 3, p, 15, ReproduceCommand.error(t / 3, p, 15, 20)),
                new ReproduceCommand.Cell(0.85, 8, t * 1.1, p / 1.2, 25, ReproduceCommand.error(t * 1.1, p / 1.2, 25, 20)),
                new ReproduceCommand.Cell(0.95, 64, t, p, Double.NaN, ReproduceCommand.error(t, p, Double.NaN, 20)));
        assertThat(ReproduceCommand.best(grid)).isSameAs(grid.get(1));
        assertThat(ReproduceCommand.best(grid.subList(2, 3))).as("none recovers").isNull();
    }

    @Test
    void aLoadOutsideItsRangeIsRefused() throws Exception {
        CliRun r = CliRun.of("reproduce", "--load", "3", "--out", "/nonexistent/never-written.md");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.err()).contains("--load must be between 0 and 2, not 3.0");
    }
}
