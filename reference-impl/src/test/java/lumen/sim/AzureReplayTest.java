package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import lumen.runtime.Arrival;
import org.junit.jupiter.api.Test;

class AzureReplayTest {

    @Test
    void aLaterStretchIsTheSameRowsShiftedToStartAtZero() {
        List<Arrival> whole = new AzureReplay("conv", 2).arrivals(400_000, new SplittableRandom(1));
        List<Arrival> later = new AzureReplay("conv", 2, 100_000).arrivals(300_000, new SplittableRandom(1));
        List<Arrival> tail = whole.stream().filter(a -> a.atMs() >= 100_000).toList();
        assertThat(later).hasSameSizeAs(tail).isNotEmpty();
        for (int i = 0; i < later.size(); i++) {
            assertThat(later.get(i).atMs()).isCloseTo(tail.get(i).atMs() - 100_000, within(1e-6));
            assertThat(later.get(i).promptLen()).isEqualTo(tail.get(i).promptLen());
            assertThat(later.get(i).outLen()).isEqualTo(tail.get(i).outLen());
        }
        assertThat(later.get(0).id()).as("ids count from 0 in the run").isZero();
        assertThat(new AzureReplay("conv", 2, 100_000).name()).isEqualTo("azure-conv-x2.0-from100s");
    }

    @Test
    void aNegativeStartIsRefused() {
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new AzureReplay("conv", 1, -5))
                .withMessageContaining("start must be 0 or more");
    }
}
