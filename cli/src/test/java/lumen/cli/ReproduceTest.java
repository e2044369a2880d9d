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
        ReproduceCommand.Hw h = ReproduceCommand.presetHw(Preset.QWEN3_32B_4W);
        double r4 = ReproduceCommand.rate(Preset.QWEN3_32B_4W, h, 4, 0.85);
        assertThat(ReproduceCommand.rate(Preset.QWEN3_32B_4W, h, 8, 0.85)).isCloseTo(2 * r4, within(1e-9));
        assertThat(ReproduceCommand.rate(Preset.QWEN3_32B_4W, h, 4, 0.5)).isCloseTo(r4 / 0.85 * 0.5, within(1e-9));
        assertThat(ReproduceCommand.rate(Preset.LLAMA3_70B, h, 4, 0.85) < r4).as("a 70B worker serves fewer requests than a 32B one").isTrue();
        ReproduceCommand.Hw a100 = new ReproduceCommand.Hw("a100-80gb", 2, 0);
        assertThat(ReproduceCommand.rate(Preset.QWEN3_32B_4W, a100, 4, 0.85)).as("two A100s serve fewer than four H100s").isLessThan(r4);
        // Qwen3-32B on two A100s: 136 GB for weights and KV, 65.5 GB of weights, 262,144 bytes per position
        assertThat(ReproduceCommand.fullBatch(Preset.QWEN3_32B_4W.costModel("a100-80gb", 2), a100)).as("the KV pool's full batch")
                .isEqualTo((int) ((0.85 * 160e9 - Preset.QWEN3_32B_4W.model.weightBytes()) / 262_144 / 1_366));
        assertThat(ReproduceCommand.fullBatch(Preset.QWEN3_32B_4W.costModel("a100-80gb", 2), new ReproduceCommand.Hw("a100-80gb", 2, 64)))
                .as("a cap below the pool").isEqualTo(64);
    }

    @Test
    void theTraceIsReplayedWhileItLastsTheRunElseGammaArrivalsWithItsStatistics() {
        ReproduceCommand.Hw h = ReproduceCommand.presetHw(Preset.QWEN3_32B_4W);
        List<String> small = ReproduceCommand.workload(Preset.QWEN3_32B_4W, h, 4, 600, 0.85, ReproduceCommand.Draw.of(1, 100, 400));
        assertThat(small.get(0)).isEqualTo("workload=azure-conv");
        assertThat(small.get(1)).as(small.toString()).startsWith("rate_scale=");
        List<String> big = ReproduceCommand.workload(Preset.LLAMA3_70B, h, 64, 180, 0.85, ReproduceCommand.Draw.of(1, 40, 80));
        assertThat(big.subList(0, 3)).isEqualTo(List.of("workload=gamma", "cv=1.09", "lengths=azure_conv"));
    }

    @Test
    void eachSeedDrawsItsOwnFailureMomentAndStretchOfTheTrace() {
        java.util.Set<Double> moments = new java.util.HashSet<>();
        java.util.Set<String> starts = new java.util.HashSet<>();
        ReproduceCommand.Hw h = ReproduceCommand.presetHw(Preset.QWEN3_32B_4W);
        for (int s = 1; s <= 10; s++) {
            ReproduceCommand.Draw d = ReproduceCommand.protoDraw(s, 600);
            assertThat(d.failAtS()).isBetween(100.0, 400.0);
            assertThat(ReproduceCommand.protoDraw(s, 600)).as("a seed's draw is the same every time").isEqualTo(d);
            moments.add(d.failAtS());
            starts.add(ReproduceCommand.workload(Preset.QWEN3_32B_4W, h, 4, 600, 0.85, d).get(2));
        }
        assertThat(moments).as("ten seeds, ten moments").hasSize(10);
        assertThat(starts).as("ten seeds, ten stretches of the trace").hasSize(10);
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
    void theCalibrationTakesTheCellNearestThePapersFigures() {
        ReproduceCommand.Target t = ReproduceCommand.TARGET_4W;
        assertThat(ReproduceCommand.error(1.16, 138.9, 4.69, 224.6, 20, true, t)).isZero();
        assertThat(ReproduceCommand.error(2 * 1.16, 138.9, 4.69, 224.6, 20, true, t)).as("twice and half as far count alike")
                .isCloseTo(ReproduceCommand.error(1.16 / 2, 138.9, 4.69, 224.6, 20, true, t), within(1e-12)).isGreaterThan(0);
        assertThat(ReproduceCommand.error(1.16, 138.9, 4.69, 224.6, Double.NaN, true, t)).as("a cell that never recovers").isInfinite();
        assertThat(ReproduceCommand.error(1.16, 138.9, 4.69, 224.6, Double.NaN, false, t)).as("the first stage leaves recovery out").isZero();
        assertThat(ReproduceCommand.error(5, 500, 3.9, 210, 25, true, ReproduceCommand.TARGET_8W))
                .as("the 8-worker prototype has no failure-free figures to fit").isZero();
        ReproduceCommand.Hw h = ReproduceCommand.presetHw(Preset.QWEN3_32B_4W);
        List<ReproduceCommand.Cell> grid = List.of(
                new ReproduceCommand.Cell(h, 0.7, 8, 1.16, 138.9, 2, 150, 15, ReproduceCommand.error(1.16, 138.9, 2, 150, 15, true, t)),
                new ReproduceCommand.Cell(h, 0.85, 8, 1.2, 130, 4.5, 230, 25, ReproduceCommand.error(1.2, 130, 4.5, 230, 25, true, t)),
                new ReproduceCommand.Cell(h, 0.95, 64, 1.16, 138.9, 4.69, 224.6, Double.NaN,
                        ReproduceCommand.error(1.16, 138.9, 4.69, 224.6, Double.NaN, true, t)));
        assertThat(ReproduceCommand.best(grid)).isSameAs(grid.get(1));
        assertThat(ReproduceCommand.best(grid.subList(2, 3))).as("none recovers").isNull();
        assertThat(grid.get(1).ttftRatio()).isCloseTo(4.5 / 1.2, within(1e-12));
    }

    @Test
    void aLoadOutsideItsRangeIsRefused() throws Exception {
        CliRun r = CliRun.of("reproduce", "--load", "3", "--out", "/nonexistent/never-written.md");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.err()).contains("--load must be between 0 and 2, not 3.0");
    }
}
