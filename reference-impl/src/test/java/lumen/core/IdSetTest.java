package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class IdSetTest {

    @Test
    void behavesLikeASetAndOldVersionsStayIntact() {
        Random r = new Random(7);
        TreeSet<Integer> ref = new TreeSet<>();
        IdSet s = IdSet.EMPTY;
        for (int i = 0; i < 20_000; i++) {
            // mostly near a moving front, as finishing requests are, sometimes anywhere
            int id = r.nextInt(10) == 0 ? r.nextInt(1 << 20) : Math.max(0, i + r.nextInt(200) - 100);
            IdSet before = s;
            boolean had = ref.contains(id);
            s = s.add(id);
            ref.add(id);
            assertThat(s.contains(id)).isTrue();
            assertThat(before.contains(id)).as("the old version is unchanged").isEqualTo(had);
        }
        for (int probe = 0; probe < 50_000; probe++) {
            int id = r.nextInt(1 << 20);
            assertThat(s.contains(id)).as("id %d", id).isEqualTo(ref.contains(id));
        }
        assertThat(s.contains(-1)).isFalse();
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> IdSet.EMPTY.add(-1));
    }

    @Test
    void theSameIdsGiveTheSameFingerprintWhateverTheOrderAndTheFloor() {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            ids.add(i);
        }
        ids.add(5_000);
        IdSet inOrder = IdSet.EMPTY;
        for (int id : ids) {
            inOrder = inOrder.add(id);
        }
        Collections.shuffle(ids, new Random(3));
        IdSet shuffled = IdSet.EMPTY;
        for (int id : ids) {
            shuffled = shuffled.add(id);
        }
        assertThat(shuffled.fingerprint()).isEqualTo(inOrder.fingerprint());
        assertThat(inOrder.add(5_001).fingerprint()).isNotEqualTo(inOrder.fingerprint());
        assertThat(inOrder.add(42)).as("an id already in is no change").isSameAs(inOrder);
    }
}
