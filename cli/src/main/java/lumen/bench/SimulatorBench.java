package lumen.bench;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import lumen.core.Config;
import lumen.runtime.Arrival;
import lumen.sim.Preset;
import lumen.sim.ProfiledCostModel;
import lumen.sim.SimResult;
import lumen.sim.Simulator;
import lumen.sim.SyntheticWorkload;
import lumen.workload.Lengths;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Simulated spec events per second: one run of 120 s of Poisson arrivals (ShareGPT lengths) on
 * the Llama-3-70B-like preset, a quarter of the workers failing at 40 s, under LUMEN. The score is
 * runs per second; multiplied by the run's events it gives events per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SimulatorBench {
    @Param({"8", "64"})
    public int workers;

    List<Arrival> arrivals;
    ProfiledCostModel cost;
    Config config;
    List<SimResult.Failure> failures;

    @Setup
    public void setup() {
        Preset p = Preset.LLAMA3_70B;
        cost = p.costModel();
        config = new Config("lumen", workers, 1, 1000, 50_000, 256, p.budgetPositions(), 16, 4);
        arrivals = new SyntheticWorkload(workers * 0.5, 1, Lengths.Source.SHAREGPT).arrivals(120_000, new SplittableRandom(1));
        int[] victims = new int[Math.max(1, workers / 4)];
        for (int i = 0; i < victims.length; i++) {
            victims[i] = i;
        }
        failures = List.of(new SimResult.Failure(40_000, victims));
    }

    /** Events of one run, to turn runs per second into events per second. */
    public long eventsPerRun() {
        return run().events;
    }

    @Benchmark
    public SimResult run() {
        return new Simulator(new Simulator.Options(config, cost, 1024, 64, 0.7, 1), null).run(arrivals, failures);
    }
}
