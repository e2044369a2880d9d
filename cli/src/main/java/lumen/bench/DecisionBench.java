package lumen.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Core;
import lumen.core.LoadIndex;
import lumen.core.WorkerRec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Placement and routing decisions per second at 4, 64 and 1024 workers: the decision core's
 * {@link LoadIndex} against a plain O(W) argmin scan over the same state, measured in the same
 * run. Half the workers, at random and whatever their load, lack the room a placement asks for,
 * so the index's best-first search meets full workers among the least loaded ones. Each invocation asks for a different request size and server, so neither side
 * can answer from a cache.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DecisionBench {
    @Param({"4", "64", "1024"})
    public int workers;

    private ClusterState state;
    private long[] needs;
    private int[] servers;
    private int i;

    @Setup(Level.Trial)
    public void setup() {
        Config c = new Config("lumen", workers, 1.0, 4.0, 1e9, 0, 1L << 40, 16, 4);
        ClusterState s = ClusterState.initial(c);
        SplittableRandom r = new SplittableRandom(42);
        // give every worker a different load and free budget
        for (int w = 0; w < workers; w++) {
            WorkerRec rec = s.worker(w);
            long reserved = r.nextLong(c.budget() / 2);
            s = s.withWorker(rec.withCounters(r.nextInt(5000), reserved));
        }
        s = Core.arrive(s, 0, 64, new int[256]).state();
        state = s;
        needs = new long[1024];
        servers = new int[1024];
        for (int k = 0; k < needs.length; k++) {
            needs[k] = r.nextLong(c.budget() / 2);
            servers[k] = r.nextInt(workers);
        }
    }

    @Benchmark
    public int placementIndexed() {
        int k = i++ & 1023;
        return state.index().minLoadWithRoom(needs[k], servers[k]);
    }

    @Benchmark
    public int placementScan() {
        int k = i++ & 1023;
        return scanPlacement(state, needs[k], servers[k]);
    }

    @Benchmark
    public int reprefillTargetIndexed() {
        return state.reprefillTarget() + (i++ & 0);
    }

    @Benchmark
    public int reprefillTargetScan() {
        return scanPlacement(state, Long.MIN_VALUE, -1) + (i++ & 0);
    }

    /** A whole Place step of the core: decision plus the persistent state update. */
    @Benchmark
    public ClusterState placeStep() {
        return Core.place(state, 0).state();
    }

    /** The O(W) baseline: the least loaded UP worker other than the server with room (lowest id). */
    static int scanPlacement(ClusterState s, long need, int server) {
        int best = -1;
        double bestLoad = 0;
        long budget = s.config().budget();
        for (int w = 0; w < s.workerCount(); w++) {
            WorkerRec rec = s.worker(w);
            if (w == server || !s.isUp(w) || budget - rec.reserved() < need) {
                continue;
            }
            double l = s.load(w);
            if (best < 0 || l < bestLoad) {
                best = w;
                bestLoad = l;
            }
        }
        return best;
    }

}
