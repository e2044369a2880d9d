package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.junit.jupiter.api.Test;

/** Value semantics of events, page sequences and findings (the validator compares them). */
class ValuesTest {
    @Test
    void eventsWithArraysCompareByContent() {
        Event[][] pairs = {
            {new Event.Arrive(1, 2, 3, new int[] {4}), new Event.Arrive(1, 2, 3, new int[] {4}), new Event.Arrive(1, 2, 3, new int[] {5})},
            {new Event.Prefill(1, 2, new int[] {4}), new Event.Prefill(1, 2, new int[] {4}), new Event.Prefill(1, 2, new int[0])},
            {new Event.Decode(1, 2, new int[] {4}), new Event.Decode(1, 2, new int[] {4}), new Event.Decode(1, 3, new int[] {4})},
            {new Event.Fail(1, new int[] {2}, new int[0]), new Event.Fail(1, new int[] {2}, new int[0]), new Event.Fail(1, new int[] {2}, new int[] {3})},
            {new Event.Assist(1, 2, new int[] {4}), new Event.Assist(1, 2, new int[] {4}), new Event.Assist(1, 2, new int[] {4, 4})},
            {new Event.FullReady(1, new int[] {2}), new Event.FullReady(1, new int[] {2}), new Event.FullReady(1, new int[0])},
        };
        for (Event[] p : pairs) {
            assertThat(p[0]).isEqualTo(p[1]);
            assertThat(p[0].hashCode()).isEqualTo(p[1].hashCode());
            assertThat(p[0]).isNotEqualTo(p[2]);
            assertThat(p[0]).isNotEqualTo("x");
        }
        assertThat(new Event.Restart(1).req()).isEqualTo(-1);
        assertThat(new Event.Place(0, 2).worker()).isEqualTo(2);
        assertThat(new Event.StreamPage(0, 2, 5).worker()).isEqualTo(2);
    }

    @Test
    void pageSequences() {
        PageSeq a = PageSeq.intact(3);
        assertThat(a).isEqualTo(PageSeq.intact(3));
        assertThat(a.hashCode()).isEqualTo(PageSeq.intact(3).hashCode());
        assertThat(a).isNotEqualTo(PageSeq.intact(4));
        assertThat(a).isNotEqualTo(a.resize(5));
        assertThat(a).isNotEqualTo("x");
        PageSeq holes = a.resize(5);
        assertThat(holes.intact()).isFalse();
        assertThat(holes.isHole(4) && holes.isHole(5) && !holes.isHole(3)).isTrue();
        assertThat(holes.resize(2)).isEqualTo(PageSeq.intact(2));
        PageSeq cut = new PageSeq(6, new int[] {2, 5}).resize(4);
        assertThat(cut.holes()).containsExactly(2);
        assertThat(holes.resize(5)).isEqualTo(holes);
        assertThat(a.extendIntact(2)).isSameAs(a);
        assertThat(holes.extendIntact(7)).isEqualTo(new PageSeq(7, new int[] {4, 5}));
        // streaming copies holes as they are, and positions the source lacks become holes
        PageSeq src = new PageSeq(4, new int[] {2});
        assertThat(PageSeq.EMPTY.streamFrom(src, 6)).isEqualTo(new PageSeq(6, new int[] {2, 5, 6}));
        assertThat(PageSeq.EMPTY.streamFrom(src, 1)).isEqualTo(PageSeq.intact(1));
        assertThat(a.streamFrom(src, 2)).isSameAs(a);
        assertThat(PageSeq.intact(3).streamFrom(PageSeq.intact(9), 4)).isEqualTo(PageSeq.intact(4));
        assertThat(PageSeq.EMPTY.toString()).isEqualTo("no pages");
        assertThat(a.toString()).isEqualTo("pages 1..3");
        assertThat(holes.toString()).contains("at [4, 5]");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new PageSeq(-1, new int[0]));
    }

    @Test
    void findingsPrintTheirProperty() {
        Finding f = new Finding(PropertyId.S4, "m", "e", "a");
        assertThat(f.toString()).isEqualTo("S4 HolderIsNotServer: m (expected e, actual a)");
        assertThat(Finding.of(null, "m").toString()).isEqualTo("not a step of the spec: m");
        assertThat(f.label()).isEqualTo("S4 HolderIsNotServer");
    }

    @Test
    void configRefusesNonsense() {
        Config c = Config.defaults("lumen");
        assertThat(c.withPolicy("stop-and-restart").policy()).isEqualTo("stop-and-restart");
        assertThat(c.withWorkers(9).workers()).isEqualTo(9);
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> c.withPolicy("nope"));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> c.withWorkers(1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, -1, 1, 1, 1, 1, 1, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, Double.NaN, 1, 1, 1, 1, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, 1, Double.NaN, 1, 1, 1, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, 1, 1, -1, 1, 1, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, 1, 1, 1, -1, 1, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, 1, 1, 1, 1, 0, 1));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Config("lumen", 2, 1, 1, 1, 1, 1, 1, 0));
        assertThat(Policies.keys()).containsAll(java.util.List.of("lumen", "stop-and-restart", "fixed-checkpointing",
                "lumen-no-placement", "lumen-no-routing", "lumen-no-assist",
                "lumen-placement-only", "lumen-routing-only", "lumen-assist-only"));
        assertThat(Policies.find("nope")).isNull();
    }
}
