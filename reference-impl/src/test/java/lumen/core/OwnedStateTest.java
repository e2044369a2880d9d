package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A state whose load index is updated in place ({@link ClusterState#owned}) answers as the same
 * steps taken on values; a state the owner moved past refuses to read its index; a frozen state
 * and a state rebuilt from its workers are values again.
 */
class OwnedStateTest {

    /** The same worker updates on a value and on an owned state, the index compared after each. */
    @Test
    void anOwnedStateAnswersAsTheValue() {
        SplittableRandom r = new SplittableRandom(3);
        for (int workers : new int[] {3, 64, 700}) {
            Config c = new Config("lumen", workers, 1, 1, 64, 32, 500, 16, 4);
            ClusterState value = ClusterState.initial(c);
            ClusterState owned = value.owned();
            for (int step = 0; step < 3_000; step++) {
                int w = r.nextInt(workers);
                WorkerRec rec = value.worker(w);
                WorkerRec next = r.nextInt(10) == 0
                        ? rec.withState(rec.state() == WorkerState.UP ? WorkerState.FAILED : WorkerState.UP, ActiveModel.FULL)
                        : rec.withCounters(r.nextInt(400), r.nextInt(500));
                value = value.withWorker(next);
                owned = owned.withWorker(next);
                if (r.nextInt(4) == 0) {
                    owned = owned.withFailure(); // an update that leaves the index as it is
                    value = value.withFailure();
                }
                same(owned.index(), value.index(), workers);
            }
            assertThat(owned.fingerprint()).isEqualTo(value.fingerprint());
        }
    }

    @Test
    void aStateTheOwnerMovedPastMayNotReadItsIndex() {
        Config c = new Config("lumen", 100, 1, 1, 64, 32, 500, 16, 4);
        ClusterState a = ClusterState.initial(c).owned();
        ClusterState b = a.withWorker(a.worker(5).withCounters(10, 20));
        ClusterState sibling = a.withFailure(); // shares a's index, and so goes stale with it
        ClusterState d = b.withWorker(b.worker(7).withCounters(30, 40));
        assertThatThrownBy(a::index).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(sibling::arriveTarget).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(b::index).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.withWorker(b.worker(9))).isInstanceOf(IllegalStateException.class);
        assertThat(d.index().get(7).free()).isEqualTo(500 - 40);
        // the workers and everything else of a stale state are values still
        assertThat(a.worker(5).stored()).isZero();
        assertThat(b.worker(5).stored()).isEqualTo(10);
        // rebuilt from its workers, a stale state is a value again
        ClusterState back = b.reindexed();
        assertThat(back.isOwned()).isFalse();
        assertThat(back.index().get(5).free()).isEqualTo(500 - 20);
        assertThat(back.index().get(7).free()).isEqualTo(500);
    }

    @Test
    void aFrozenStateIsNotChangedByItsOwnersLaterUpdates() {
        Config c = new Config("lumen", 40, 1, 1, 64, 32, 500, 16, 4);
        ClusterState s = ClusterState.initial(c).owned();
        SplittableRandom r = new SplittableRandom(8);
        List<ClusterState> frozen = new ArrayList<>();
        List<int[]> answers = new ArrayList<>();
        for (int step = 0; step < 400; step++) {
            int w = r.nextInt(40);
            s = s.withWorker(s.worker(w).withCounters(r.nextInt(300), r.nextInt(500)));
            if (step % 20 == 0) {
                ClusterState f = s.frozen();
                frozen.add(f);
                answers.add(answers(f.index(), 40));
                s = f.owned(); // as the mirror does: a new owner after a state is handed out
            }
        }
        for (int i = 0; i < frozen.size(); i++) {
            assertThat(answers(frozen.get(i).index(), 40)).as("snapshot %d", i).containsExactly(answers.get(i));
        }
        assertThat(frozen.get(0).frozen()).isSameAs(frozen.get(0));
    }

    /** Found by a review: a frozen state, or a second owner's, is not changed when the first owner's state goes on; that state refuses. */
    @Test
    void theStateAFrozenOrNewlyOwnedStateCameFromMayNotGoOn() {
        Config c = new Config("lumen", 100, 1, 1, 64, 32, 500, 16, 4);
        ClusterState s = ClusterState.initial(c).owned();
        ClusterState s1 = s.withWorker(s.worker(5).withCounters(10, 20));
        ClusterState f = s1.frozen();
        int before = f.index().minLoadWithRoom(490, -1);
        assertThatThrownBy(() -> s1.withWorker(s1.worker(0).withCounters(0, 400))).isInstanceOf(IllegalStateException.class);
        assertThat(f.index().minLoadWithRoom(490, -1)).isEqualTo(before).isEqualTo(f.reindexed().index().minLoadWithRoom(490, -1));
        ClusterState t = f.owned().withWorker(f.worker(5).withCounters(30, 40));
        ClusterState o2 = t.owned();
        assertThatThrownBy(() -> t.withWorker(t.worker(5).withCounters(100, 200))).isInstanceOf(IllegalStateException.class);
        assertThat(o2.index().get(5)).isEqualTo(o2.reindexed().index().get(5));
        assertThat(o2.index().get(5).free()).isEqualTo(500 - 40);
    }

    /** Found by a review: an update that throws half way leaves no state that reads the half-written index. */
    @Test
    void anUpdateThatThrowsLeavesNoStateThatReadsItsHalfWrittenIndex() {
        Config c = new Config("lumen", 100, 1, 1, 64, 32, 500, 16, 4).withReadings(Readings.DEFAULT.with("citedLoads", "stale:3"));
        double[] v = new double[100];
        java.util.Arrays.fill(v, 7);
        v[60] = 1;
        ClusterState cur = ClusterState.initial(c).owned().withSeen(v);
        double[] cut = new double[50]; // too short: the update throws at worker 50, after writing 0..49
        java.util.Arrays.fill(cut, 7);
        cut[10] = 0;
        assertThatThrownBy(() -> cur.withSeen(cut)).isInstanceOf(ArrayIndexOutOfBoundsException.class);
        assertThatThrownBy(cur::index).isInstanceOf(IllegalStateException.class);
        assertThat(cur.reindexed().index().minLoadWithRoom(1, -1)).isEqualTo(60);
    }

    private static int[] answers(LoadIndex idx, int workers) {
        int[] out = new int[workers * 2 + 3];
        for (int w = 0; w < workers; w++) {
            LoadIndex.Entry e = idx.get(w);
            out[2 * w] = e == null ? -1 : (int) e.free();
            out[2 * w + 1] = e == null ? -1 : (int) e.load();
        }
        out[2 * workers] = idx.minLoad();
        out[2 * workers + 1] = idx.maxLoad();
        out[2 * workers + 2] = idx.minLoadWithRoom(100, 3);
        return out;
    }

    private static void same(LoadIndex a, LoadIndex b, int workers) {
        assertThat(answers(a, workers)).containsExactly(answers(b, workers));
        assertThat(a.size()).isEqualTo(b.size());
        assertThat(a.minQueue()).isEqualTo(b.minQueue());
    }
}
