package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
            assertThat(m.size()).isEqualTo(ref.size());
            assertThat(m.get(k)).isEqualTo(ref.get(k));
            assertThat(before.get(k)).as("the old version is unchanged").isEqualTo(had);
            assertThat(before.size()).isEqualTo(sizeBefore);
        }
        assertThat(m.keys()).isEqualTo(ref.keySet().stream().mapToInt(Integer::intValue).toArray());
        java.util.List<Integer> values = new java.util.ArrayList<>();
        m.forEachValue(values::add);
        assertThat(values).as("the values in the order of their keys").containsExactlyElementsOf(ref.values());
        for (int k : ref.keySet()) {
            assertThat(m.containsKey(k)).isTrue();
            m = m.remove(k);
        }
        assertThat(m.isEmpty()).isTrue();
        assertThat(m.keys()).isEmpty();
    }

    @Test
    void smallMapsWithLargeKeysBehaveAlikeInEveryForm() {
        // a few entries at a time, keys small and large, so the map moves between its flat form and its trie
        Random r = new Random(11);
        for (int round = 0; round < 200; round++) {
            TreeMap<Integer, Integer> ref = new TreeMap<>();
            PIntMap<Integer> m = PIntMap.empty();
            int spread = round % 3 == 0 ? 16 : round % 3 == 1 ? 40 : 1 << 30;
            for (int i = 0; i < 400; i++) {
                int k = r.nextInt(spread);
                PIntMap<Integer> before = m;
                TreeMap<Integer, Integer> had = new TreeMap<>(ref);
                if (ref.size() > PIntMap.SMALL + 3 || r.nextInt(3) == 0) {
                    k = ref.isEmpty() ? k : ref.keySet().toArray(new Integer[0])[r.nextInt(ref.size())];
                    ref.remove(k);
                    m = m.remove(k);
                } else {
                    ref.put(k, i);
                    m = m.put(k, i);
                }
                assertThat(m.size()).isEqualTo(ref.size());
                assertThat(m.keys()).isEqualTo(ref.keySet().stream().mapToInt(Integer::intValue).toArray());
                java.util.List<Integer> values = new java.util.ArrayList<>();
                m.forEachValue(values::add);
                assertThat(values).containsExactlyElementsOf(ref.values());
                for (int key : ref.keySet()) {
                    assertThat(m.get(key)).isEqualTo(ref.get(key));
                }
                assertThat(m.get(k)).isEqualTo(ref.get(k));
                assertThat(before.keys()).as("the old version is unchanged")
                        .isEqualTo(had.keySet().stream().mapToInt(Integer::intValue).toArray());
                for (int key : had.keySet()) {
                    assertThat(before.get(key)).isEqualTo(had.get(key));
                }
            }
        }
    }

    @Test
    void edgeCases() {
        PIntMap<String> m = PIntMap.<String>empty().put(0, "a").put(Integer.MAX_VALUE, "z");
        assertThat(m.get(0)).isEqualTo("a");
        assertThat(m.get(Integer.MAX_VALUE)).isEqualTo("z");
        assertThat(m.get(-1)).isNull();
        assertThat(m.get(5)).isNull();
        assertThat(m.remove(5)).isSameAs(m);
        assertThat(m.put(0, null).size()).as("putting null removes").isEqualTo(1);
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> m.put(-3, "x"));
        assertThat(m.keys()).containsExactly(0, Integer.MAX_VALUE);
        assertThat(PIntMap.<String>empty().put(16, "x").get(0)).isNull();
        assertThat(PIntMap.<String>empty().put(3, "x").get(1 << 12)).isNull();
        assertThat(PIntMap.<String>empty().put(1 << 20, "x").get(0)).isNull();
        assertThat(PIntMap.<String>empty().put(1 << 20, "x").get(-1)).isNull();
        assertThat(PIntMap.<String>empty().put(1 << 20, "x").remove(1 << 20).isEmpty()).isTrue();
    }
}
