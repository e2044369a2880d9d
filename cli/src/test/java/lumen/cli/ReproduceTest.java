package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals(2 * r4, ReproduceCommand.rate(Preset.QWEN3_32B_4W, 8, 64, 0.85), 1e-9);
        assertEquals(r4 / 0.85 * 0.5, ReproduceCommand.rate(Preset.QWEN3_32B_4W, 4, 64, 0.5), 1e-9);
        assertTrue(ReproduceCommand.rate(Preset.LLAMA3_70B, 4, 64, 0.85) < r4, "a 70B worker serves fewer requests than a 32B one");
    }

    @Test
    void theTraceIsReplayedWhileItLastsTheRunElseGammaArrivalsWithItsStatistics() {
        List<String> small = ReproduceCommand.workload(Preset.QWEN3_32B_4W, 4, 600, 0.85);
        assertEquals("workload=azure-conv", small.get(0));
        assertTrue(small.get(1).startsWith("rate_scale="), small.toString());
        List<String> big = ReproduceCommand.workload(Preset.LLAMA3_70B, 64, 180, 0.85);
        assertEquals(List.of("workload=gamma", "cv=1.09", "lengths=azure_conv"), big.subList(0, 3));
    }

    @Test
    void cellsAreMeansOverSeedsAndChangesAreSignedPercentages() {
        List<Map<String, SimMetrics.Summary>> seeds = List.of(
                Map.of("stop-and-restart", summary("stop-and-restart", 1000, 40_000), "lumen", summary("lumen", 700, Double.NaN)),
                Map.of("stop-and-restart", summary("stop-and-restart", 1000, 50_000), "lumen", summary("lumen", 740, 30_000)));
        assertEquals("-28%", ReproductionDoc.change(seeds, "lumen", "stop-and-restart", s -> s.ttftAll().mean()));
        assertEquals("0.72 ± 0.03", ReproduceCommand.cell(seeds, "lumen", s -> s.ttftAll().mean(), 1000, "%.2f"));
        assertEquals("45 ± 7", ReproductionDoc.recovery(seeds, "stop-and-restart"));
        assertEquals("30 (1 never)", ReproductionDoc.recovery(seeds, "lumen"), "a seed that never recovers is counted, not averaged in");
        List<Map<String, SimMetrics.Summary>> never = List.of(Map.of("lumen", summary("lumen", 700, Double.NaN)));
        assertEquals("never", ReproductionDoc.recovery(never, "lumen"));
    }

    @Test
    void aLoadOutsideItsRangeIsRefused() throws Exception {
        CliRun r = CliRun.of("reproduce", "--load", "3", "--out", "/nonexistent/never-written.md");
        assertEquals(ExitCodes.BAD_INPUT, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("--load must be between 0 and 2, not 3.0"), r.err());
    }
}
