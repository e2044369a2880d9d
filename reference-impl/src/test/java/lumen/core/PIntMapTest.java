package lumen.core;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PIntMapTest {
    @Test
    void behavesLikeATreeMapAndOldVersionsStayIntact() {
        Random r = new Random(3);
        TreeMap<Integer, Integer> ref = new TreeMap<>();
        PIntMap<Integer> m = PIntMap.empty();
        for (int i = 0; i < 20_000; i++) {
            int k = r.nextInt(i < 10_000 ? 300 : 1 << 20);
            PIntMap<Integer> before = m;
            int sizeBefore = ref.size();
            Integer had = ref.get(k);
            if (r.nextInt(3) == 0) {
                ref.remove(k);
                m = m.remove(k);
            } else {
                ref.put(k, i);
                m = m.put(k, i);
            }
            assertEquals(ref.size(), m.size());
            assertEquals(ref.get(k), m.get(k));
            assertEquals(had, before.get(k), "the old version is unchanged");
            assertEquals(sizeBefore, before.size());
        }
        assertArrayEquals(ref.keySet().stream().mapToInt(Integer::intValue).toArray(), m.keys());
        for (int k : ref.keySet()) {
            assertTrue(m.containsKey(k));
            m = m.remove(k);
        }
        assertTrue(m.isEmpty());
        assertEquals(0, m.keys().length);
    }

    @Test
    void edgeCases() {
        PIntMap<String> m = PIntMap.<String>empty().put(0, "a").put(Integer.MAX_VALUE, "z");
        assertEquals("a", m.get(0));
        assertEquals("z", m.get(Integer.MAX_VALUE));
        assertNull(m.get(-1));
        assertNull(m.get(5));
        assertSame(m, m.remove(5));
        assertEquals(1, m.put(0, null).size(), "putting null removes");
        assertThrows(IllegalArgumentException.class, () -> m.put(-3, "x"));
        assertArrayEquals(new int[] {0, Integer.MAX_VALUE}, m.keys());
        assertNull(PIntMap.<String>empty().put(16, "x").get(0));
        assertNull(PIntMap.<String>empty().put(3, "x").get(1 << 12));
    }
}
