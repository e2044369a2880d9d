package lumen.core;

import static org.junit.jupiter.api.Assertions.*;

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
            assertEquals(p[0], p[1]);
            assertEquals(p[0].hashCode(), p[1].hashCode());
            assertNotEquals(p[0], p[2]);
            assertNotEquals(p[0], "x");
        }
        assertEquals(-1, new Event.Restart(1).req());
        assertEquals(2, new Event.Place(0, 2).worker());
        assertEquals(2, new Event.StreamPage(0, 2, 5).worker());
    }

    @Test
    void pageSequences() {
        PageSeq a = PageSeq.intact(3);
        assertEquals(a, PageSeq.intact(3));
        assertEquals(a.hashCode(), PageSeq.intact(3).hashCode());
        assertNotEquals(a, PageSeq.intact(4));
        assertNotEquals(a, a.resize(5));
        assertNotEquals(a, "x");
        PageSeq holes = a.resize(5);
        assertFalse(holes.intact());
        assertTrue(holes.isHole(4) && holes.isHole(5) && !holes.isHole(3));
        assertEquals(PageSeq.intact(2), holes.resize(2));
        PageSeq cut = new PageSeq(6, new int[] {2, 5}).resize(4);
        assertArrayEquals(new int[] {2}, cut.holes());
        assertEquals(holes, holes.resize(5));
        assertSame(a, a.extendIntact(2));
        assertEquals(new PageSeq(7, new int[] {4, 5}), holes.extendIntact(7));
        // streaming copies holes as they are, and positions the source lacks become holes
        PageSeq src = new PageSeq(4, new int[] {2});
        assertEquals(new PageSeq(6, new int[] {2, 5, 6}), PageSeq.EMPTY.streamFrom(src, 6));
        assertEquals(PageSeq.intact(1), PageSeq.EMPTY.streamFrom(src, 1));
        assertSame(a, a.streamFrom(src, 2));
        assertEquals(PageSeq.intact(4), PageSeq.intact(3).streamFrom(PageSeq.intact(9), 4));
        assertEquals("no pages", PageSeq.EMPTY.toString());
        assertEquals("pages 1..3", a.toString());
        assertTrue(holes.toString().contains("at [4, 5]"), holes::toString);
        assertThrows(IllegalArgumentException.class, () -> new PageSeq(-1, new int[0]));
    }

    @Test
    void findingsPrintTheirProperty() {
        Finding f = new Finding(PropertyId.S4, "m", "e", "a");
        assertEquals("S4 HolderIsNotServer: m (expected e, actual a)", f.toString());
        assertEquals("not a step of the spec: m", Finding.of(null, "m").toString());
        assertEquals("S4 HolderIsNotServer", f.label());
    }

    @Test
    void configRefusesNonsense() {
        Config c = Config.defaults("lumen");
        assertEquals("stop-and-restart", c.withPolicy("stop-and-restart").policy());
        assertEquals(9, c.withWorkers(9).workers());
        assertThrows(IllegalArgumentException.class, () -> c.withPolicy("nope"));
        assertThrows(IllegalArgumentException.class, () -> c.withWorkers(1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, -1, 1, 1, 1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, Double.NaN, 1, 1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, 1, Double.NaN, 1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, 1, 1, -1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, 1, 1, 1, -1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, 1, 1, 1, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Config("lumen", 2, 1, 1, 1, 1, 1, 1, 0));
        assertTrue(Policies.keys().containsAll(java.util.List.of("lumen", "stop-and-restart", "fixed-checkpointing",
                "lumen-no-placement", "lumen-no-routing", "lumen-no-assist",
                "lumen-placement-only", "lumen-routing-only", "lumen-assist-only")));
        assertNull(Policies.find("nope"));
    }
}
