package lumen.sim;

import java.util.List;
import java.util.SplittableRandom;
import lumen.runtime.Arrival;

/** A source of requests for the simulator: one class per workload, all behind this interface. */
public interface Workload {
    /** A short name for tables and file names. */
    String name();

    /** The requests, in arrival order, for a run of {@code durationMs}; ids from 0. */
    List<Arrival> arrivals(double durationMs, SplittableRandom rnd);
}
