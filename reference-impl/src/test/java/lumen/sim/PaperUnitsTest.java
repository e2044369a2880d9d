package lumen.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.util.List;
import lumen.core.Config;
import lumen.runtime.Arrival;
import org.junit.jupiter.api.Test;

/** Eq. 4 and Eq. 6 as the paper states them: loads in KV pages, tau in pages, theta relative to the load before the failure. */
class PaperUnitsTest {
    private static SimConfig.Experiment exp(String... sets) throws IOException {
        return SimConfig.load(null, null, List.of(sets)).expand().get(0);
    }

    private static final String[] SMALL = {"workload=poisson", "rate=3", "duration_s=40", "fail_at_s=30"};

    private static SimConfig.Experiment small(String... more) throws IOException {
        String[] all = new String[SMALL.length + more.length];
        System.arraycopy(SMALL, 0, all, 0, SMALL.length);
        System.arraycopy(more, 0, all, SMALL.length, more.length);
        return exp(all);
    }

    @Test
    void pagesAreConvertedToTheSpecsPositions() throws IOException {
        Config c = small("alpha=2", "beta=64", "tau=32", "theta=500").options("lumen").config();
        // loads are counted in positions, 16 to a page: 2 per page is 2 per position of a page, 64 pages per queued request 1,024 positions
        assertThat(c.pageTokens()).isEqualTo(16);
        assertThat(c.alpha()).isEqualTo(2);
        assertThat(c.beta()).isEqualTo(64 * 16);
        assertThat(c.tau()).as("32 pages, the paper's 512 tokens").isEqualTo(512);
        assertThat(c.theta()).as("an absolute theta of 500 pages").isEqualTo(500 * 16);
    }

    @Test
    void aRelativeThetaIsAMultipleOfTheMeanLoadBeforeTheFailure() throws IOException {
        SimConfig.Experiment e = small("theta=2x");
        double two = e.options("lumen").config().theta();
        // the load measured by hand: the same arrivals, without failures, sampled each second of the minute before the failure
        SimConfig.Experiment plain = small("theta=0");
        Simulator.Options o = plain.options("lumen");
        List<Arrival> a = plain.arrivals();
        Simulator s = new Simulator(o, null);
        double mean = s.meanLoadBefore(a, 0, 30_000);
        assertThat(mean).as("some load before the failure").isGreaterThan(0);
        assertThat(two).isCloseTo(2 * mean, within(1e-9 * mean));
        assertThat(small("theta=0.5x").options("lumen").config().theta()).isCloseTo(0.5 * mean, within(1e-9 * mean));
        assertThat(small("theta=2x").options("fixed-checkpointing").config().theta()).as("a policy without Eq. 6 does not measure").isEqualTo(2);
    }

    @Test
    void aBadThetaIsNamedWithItsSource() {
        assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> small("theta=twox").options("lumen"))
                .withMessageContaining("theta").withMessageContaining("twox");
        assertThatExceptionOfType(SimConfig.BadValue.class).isThrownBy(() -> small("theta=-1x").options("lumen"))
                .withMessageContaining("theta");
    }
}
