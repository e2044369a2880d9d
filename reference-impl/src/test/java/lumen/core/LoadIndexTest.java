package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The indexed decisions equal a plain scan with the documented tie-break (lowest id). */
class LoadIndexTest {

    private static int scanMin(Map<Integer, LoadIndex.Entry> m, long need, int exclude) {
        return scanMin(m, need, exclude, exclude);
    }

    private static int scanMin(Map<Integer, LoadIndex.Entry> m, long need, int exclude, int exclude2) {
        int best = -1;
        for (LoadIndex.Entry e : m.values()) {
            if (e.id() == exclude || e.id() == exclude2 || e.free() < need) {
                continue;
            }
            LoadIndex.Entry b = best < 0 ? null : m.get(best);
            if (b == null || e.load() < b.load() || (e.load() == b.load() && e.id() < b.id())) {
                best = e.id();
            }
        }
        return best;
    }

    @Test
    void agreesWithAScanUnderRandomUpdates() {
        Random r = new Random(5);
        for (int round = 0; round < 30; round++) {
            // up to 5,000 workers: one, two, three and four levels of the tree
            int w = 1 + r.nextInt(round < 10 ? 6 : round < 20 ? 200 : 5_000);
            LoadIndex idx = LoadIndex.empty();
            Map<Integer, LoadIndex.Entry> ref = new HashMap<>();
            for (int step = 0; step < 2000; step++) {
                int id = r.nextInt(w);
                if (r.nextInt(5) == 0) {
                    idx = idx.without(id);
                    ref.remove(id);
                } else {
                    // few distinct values, so that ties on load, queue and free are common
                    LoadIndex.Entry e = new LoadIndex.Entry(id, r.nextInt(20), r.nextInt(8) * 0.5, r.nextInt(5));
                    idx = idx.with(e);
                    ref.put(id, e);
                }
                assertThat(idx.size()).isEqualTo(ref.size());
                long need = r.nextInt(22);
                int exclude = r.nextInt(w + 1) - 1;
                assertThat(idx.minLoadWithRoom(need, exclude)).as("minLoadWithRoom").isEqualTo(scanMin(ref, need, exclude));
                int exclude2 = r.nextInt(w + 1) - 1;
                assertThat(idx.minLoadWithRoom(need, exclude, exclude2)).as("two exclusions").isEqualTo(scanMin(ref, need, exclude, exclude2));
                assertThat(idx.minLoadWithRoom(need, exclude2, exclude))
                        .as("two exclusions, swapped").isEqualTo(scanMin(ref, need, exclude2, exclude));
                assertThat(idx.minLoad()).isEqualTo(scanMin(ref, Long.MIN_VALUE, -1));
                int max = -1;
                int minQ = -1;
                for (LoadIndex.Entry e : ref.values()) {
                    LoadIndex.Entry m = max < 0 ? null : ref.get(max);
                    if (m == null || e.load() > m.load() || (e.load() == m.load() && e.id() < m.id())) {
                        max = e.id();
                    }
                    LoadIndex.Entry q = minQ < 0 ? null : ref.get(minQ);
                    if (q == null || e.queue() < q.queue() || (e.queue() == q.queue() && e.id() < q.id())) {
                        minQ = e.id();
                    }
                }
                assertThat(idx.maxLoad()).isEqualTo(max);
                assertThat(idx.minQueue()).isEqualTo(minQ);
                int got = idx.minLoadWithRoom(need, exclude);
                if (got >= 0) {
                    assertThat(idx.get(got)).isEqualTo(ref.get(got));
                }
            }
        }
    }

    /** An update leaves the index it started from as it was: every earlier version still answers as its own scan. */
    @Test
    void everyVersionKeepsItsAnswers() {
        Random r = new Random(11);
        int w = 700;
        java.util.List<LoadIndex> versions = new java.util.ArrayList<>();
        java.util.List<Map<Integer, LoadIndex.Entry>> refs = new java.util.ArrayList<>();
        LoadIndex idx = LoadIndex.empty();
        Map<Integer, LoadIndex.Entry> ref = new HashMap<>();
        for (int step = 0; step < 3_000; step++) {
            int id = r.nextInt(w);
            if (r.nextInt(4) == 0) {
                idx = idx.without(id);
                ref.remove(id);
            } else {
                LoadIndex.Entry e = new LoadIndex.Entry(id, r.nextInt(50), r.nextInt(30), r.nextInt(9));
                idx = idx.with(e);
                ref.put(id, e);
            }
            if (step % 100 == 0) {
                versions.add(idx);
                refs.add(new HashMap<>(ref));
            }
        }
        for (int v = 0; v < versions.size(); v++) {
            LoadIndex old = versions.get(v);
            Map<Integer, LoadIndex.Entry> m = refs.get(v);
            assertThat(old.size()).isEqualTo(m.size());
            for (int id = 0; id < w; id++) {
                assertThat(old.get(id)).as("version %d, worker %d", v, id).isEqualTo(m.get(id));
            }
            for (long need = 0; need < 52; need += 3) {
                assertThat(old.minLoadWithRoom(need, -1)).as("version %d, need %d", v, need).isEqualTo(scanMin(m, need, -1));
            }
        }
    }

    @Test
    void anUnchangedEntryGivesTheSameIndex() {
        LoadIndex idx = LoadIndex.empty().with(new LoadIndex.Entry(40, 7, 2.5, 1));
        assertThat(idx.with(new LoadIndex.Entry(40, 7, 2.5, 1))).isSameAs(idx);
        assertThat(idx.with(40, 7, 2.5, 1)).isSameAs(idx);
        assertThat(idx.with(40, 7, 2.5, 2)).isNotSameAs(idx);
        assertThat(idx.get(40)).isEqualTo(new LoadIndex.Entry(40, 7, 2.5, 1));
        assertThat(idx.get(41)).isNull();
        assertThat(idx.get(1 << 20)).isNull();
        assertThat(idx.without(40).size()).isZero();
        assertThat(idx.without(40).minQueue()).isEqualTo(-1);
    }

    /** Found by a review: ids of 2^30 and more, where the tree's height times its bits reaches 32 and an int shift would wrap. */
    @Test
    void idsUpToTheLargestIntKeepEveryOther() {
        Map<Integer, LoadIndex.Entry> ref = new HashMap<>();
        LoadIndex idx = LoadIndex.empty();
        int[] ids = {5, 1 << 30, Integer.MAX_VALUE, 0, (1 << 30) + 5, 1 << 20, Integer.MAX_VALUE - 1};
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < ids.length; i++) {
                LoadIndex.Entry e = new LoadIndex.Entry(ids[i], 10 + i, (i * 7 + k) % 5, i % 3);
                idx = idx.with(e);
                ref.put(ids[i], e);
                for (int id : ids) {
                    assertThat(idx.get(id)).as("worker %d after adding %d", id, ids[i]).isEqualTo(ref.get(id));
                }
                assertThat(idx.size()).isEqualTo(ref.size());
                assertThat(idx.minLoad()).isEqualTo(scanMin(ref, Long.MIN_VALUE, -1));
                assertThat(idx.minLoadWithRoom(12, 5)).isEqualTo(scanMin(ref, 12, 5));
            }
            idx = idx.without(ids[k]);
            ref.remove(ids[k]);
        }
    }

    /** A load of -0.0 is 0.0, as among the spec's reals: the lower id wins the tie, as in a scan that compares with {@code <}. */
    @Test
    void minusZeroIsZero() {
        LoadIndex idx = LoadIndex.empty().with(new LoadIndex.Entry(1, 5, 0.0, 0)).with(new LoadIndex.Entry(2, 5, -0.0, 0));
        assertThat(idx.minLoad()).isEqualTo(1);
        assertThat(idx.minLoadWithRoom(1, -1)).isEqualTo(1);
        assertThat(idx.maxLoad()).isEqualTo(1);
    }

    @Test
    void emptyIndexHasNoChoice() {
        LoadIndex idx = LoadIndex.empty();
        assertThat(idx.minLoad()).isEqualTo(-1);
        assertThat(idx.maxLoad()).isEqualTo(-1);
        assertThat(idx.minQueue()).isEqualTo(-1);
        assertThat(idx.minLoadWithRoom(0, -1)).isEqualTo(-1);
        assertThat(idx.without(3)).isSameAs(idx);
        assertThat(idx.get(3)).isNull();
    }
}
