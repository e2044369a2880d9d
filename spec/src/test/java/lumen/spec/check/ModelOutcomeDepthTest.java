package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcResult;
import org.junit.jupiter.api.Test;

/**
 * A passing model agrees with the manifest on its distinct states exactly, and on its depth
 * exactly with one TLC worker; with more, TLC may report a deeper search than the model's
 * diameter (its search is not level by level), never a shallower one.
 */
class ModelOutcomeDepthTest {
    private static final ModelEntry ENTRY = new ModelEntry("MCX", "MCX.tla", "MCX.cfg", "ci", "exhaustive", "pass", null, null,
            48_346L, 29, "a model");

    private static boolean agrees(long distinct, int depth, int workers) {
        TlcResult r = new TlcResult(TlcResult.Status.PASS, null, 469_089, distinct, depth, Duration.ofSeconds(15), List.of(), -1, null);
        return ModelOutcome.of(ENTRY, r, workers).agrees();
    }

    @Test
    void oneWorkerPinsTheDepth() {
        assertThat(agrees(48_346, 29, 1)).isTrue();
        assertThat(agrees(48_346, 30, 1)).isFalse();
        assertThat(agrees(48_346, 28, 1)).isFalse();
    }

    @Test
    void moreWorkersMayReportADeeperSearchOnly() {
        assertThat(agrees(48_346, 29, 2)).isTrue();
        assertThat(agrees(48_346, 30, 2)).isTrue();
        assertThat(agrees(48_346, 28, 2)).isFalse();
        assertThat(agrees(48_347, 30, 2)).isFalse();
        assertThat(ModelOutcome.of(ENTRY, new TlcResult(TlcResult.Status.PASS, null, 1, 48_346, 27, Duration.ZERO, List.of(), -1, null), 4)
                .disagreement()).contains("at depth 29 or more (4 TLC workers)");
    }
}
