package lumen.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import lumen.runtime.Arrival;
import org.apache.commons.math3.distribution.GammaDistribution;
import org.apache.commons.math3.random.Well19937c;
import lumen.workload.Lengths;

/**
 * Poisson or Gamma arrivals at a mean rate, with (prompt, output) lengths drawn from a real
 * length distribution (ShareGPT, arXiv, Azure conv or code). Gamma inter-arrivals with shape
 * {@code 1/cv^2} give a coefficient of variation {@code cv}; cv = 1 is Poisson.
 */
public final class SyntheticWorkload implements Workload {
    private final double ratePerS;
    private final double cv;
    private final Lengths.Source lengths;

    public SyntheticWorkload(double ratePerS, double cv, Lengths.Source lengths) {
        if (!(ratePerS > 0) || !(cv > 0)) {
            throw new IllegalArgumentException("rate and cv must be positive (rate " + ratePerS + ", cv " + cv + ")");
        }
        this.ratePerS = ratePerS;
        this.cv = cv;
        this.lengths = lengths;
    }

    @Override
    public String name() {
        return (cv == 1 ? "poisson" : "gamma-cv" + cv) + "-" + ratePerS + "rps-" + lengths.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public List<Arrival> arrivals(double durationMs, SplittableRandom rnd) {
        Lengths l = Lengths.of(lengths);
        List<Arrival> out = new ArrayList<>();
        double shape = 1 / (cv * cv);
        double meanMs = 1000 / ratePerS;
        GammaDistribution gaps = new GammaDistribution(new Well19937c(rnd.nextLong()), shape, meanMs / shape);
        double t = 0;
        while (true) {
            t += gaps.sample();
            if (t > durationMs) {
                return out;
            }
            int[] pair = l.sample(rnd);
            out.add(new Arrival(out.size(), t, Math.max(1, pair[0]), Math.max(1, pair[1]), rnd.nextLong()));
        }
    }
}
