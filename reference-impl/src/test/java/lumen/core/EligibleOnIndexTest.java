package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Past {@link ActionProperties#SCAN_MAX} workers, A1, A3 and S14 find the least loaded eligible
 * holder on the {@link LoadIndex}: the answer must be the plain scan's, on states the core reaches
 * (random walks with failures and tight budgets), and on states no correct run reaches (a request
 * queued on a second worker, or on none), where the index's notion of eligible differs.
 */
class EligibleOnIndexTest {

    /** The rule as the paper states it, by a scan: UP, r not in its run queue, room for r; least loaded, lowest id. */
    private static int scan(ClusterState s, RequestRec r, int except) {
        int best = -1;
        for (int w = 0; w < s.workerCount(); w++) {
            WorkerRec rec = s.worker(w);
            boolean room = s.budgetOnStored() ? rec.stored() < s.config().budget() : rec.reserved() + r.size() <= s.config().budget();
            if (w != except && rec.state() == WorkerState.UP && !rec.runq().containsKey(r.id()) && room
                    && (best < 0 || s.seen(w) < s.seen(best))) {
                best = w;
            }
        }
        return best;
    }

    @Test
    void theIndexAnswersAsTheScanOnLargeClusters() {
        int states = 0;
        int unusual = 0;
        for (long seed = 0; seed < 12; seed++) {
            Config cfg = new Config(seed % 2 == 0 ? "lumen" : "lumen-dual", ActionProperties.SCAN_MAX + 1 + (int) seed * 7, 1, 1, 3, 2,
                    12 + seed % 5, 4, 3);
            RandomWalk walk = new RandomWalk(cfg, seed, 60, 6);
            Random rnd = new Random(seed);
            for (int i = 0; i < 1500 && walk.step(st -> { }); i++) {
                ClusterState s = walk.state;
                int[] ids = s.requests().keys();
                if (ids.length == 0) {
                    continue;
                }
                RequestRec r = s.request(ids[rnd.nextInt(ids.length)]);
                int except = rnd.nextInt(3) == 0 ? rnd.nextInt(s.workerCount()) : -1;
                assertThat(ActionProperties.leastLoadedEligible(s, r, except)).as("seed %d step %d", seed, i).isEqualTo(scan(s, r, except));
                states++;
                // the same request also queued on another UP worker, or dropped from its own queue
                int other = rnd.nextInt(s.workerCount());
                if (s.isUp(other)) {
                    ClusterState odd = rnd.nextBoolean() ? s.withWorker(s.worker(other).enqueue(r.id()))
                            : r.server() >= 0 ? s.withWorker(s.worker(r.server()).dequeue(r.id())) : s;
                    assertThat(ActionProperties.leastLoadedEligible(odd, r, except)).as("seed %d step %d, odd", seed, i)
                            .isEqualTo(scan(odd, r, except));
                    unusual++;
                }
            }
        }
        assertThat(states).isGreaterThan(5_000);
        assertThat(unusual).isGreaterThan(1_000);
    }
}
