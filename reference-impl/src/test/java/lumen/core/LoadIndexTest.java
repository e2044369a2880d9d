package lumen.core;

import static org.junit.jupiter.api.Assertions.*;

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
            int w = 1 + r.nextInt(round < 10 ? 6 : 200);
            LoadIndex idx = LoadIndex.empty();
            Map<Integer, LoadIndex.Entry> ref = new HashMap<>();
            for (int step = 0; step < 2000; step++) {
                int id = r.nextInt(w);
                if (r.nextInt(5) == 0) {
                    idx = idx.without(id);
                    ref.remove(id);
                } else {
                    LoadIndex.Entry e = new LoadIndex.Entry(id, r.nextInt(20), r.nextInt(8), r.nextInt(5));
                    idx = idx.with(e);
                    ref.put(id, e);
                }
                assertEquals(ref.size(), idx.size());
                long need = r.nextInt(22);
                int exclude = r.nextInt(w + 1) - 1;
                assertEquals(scanMin(ref, need, exclude), idx.minLoadWithRoom(need, exclude), "minLoadWithRoom");
                int exclude2 = r.nextInt(w + 1) - 1;
                assertEquals(scanMin(ref, need, exclude, exclude2), idx.minLoadWithRoom(need, exclude, exclude2), "two exclusions");
                assertEquals(scanMin(ref, need, exclude2, exclude), idx.minLoadWithRoom(need, exclude2, exclude), "two exclusions, swapped");
                assertEquals(scanMin(ref, Long.MIN_VALUE, -1), idx.minLoad());
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
                assertEquals(max, idx.maxLoad());
                assertEquals(minQ, idx.minQueue());
                int got = idx.minLoadWithRoom(need, exclude);
                if (got >= 0) {
                    assertEquals(ref.get(got), idx.get(got));
                }
            }
        }
    }

    @Test
    void emptyIndexHasNoChoice() {
        LoadIndex idx = LoadIndex.empty();
        assertEquals(-1, idx.minLoad());
        assertEquals(-1, idx.maxLoad());
        assertEquals(-1, idx.minQueue());
        assertEquals(-1, idx.minLoadWithRoom(0, -1));
        assertSame(idx, idx.without(3));
        assertNull(idx.get(3));
    }
}
