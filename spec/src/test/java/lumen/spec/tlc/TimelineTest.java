package lumen.spec.tlc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineTest {

    @Test
    void functionValuesSplitAtTopLevelOnly() {
        List<String[]> e = Timeline.functionEntries("(r1 :> [src |-> w1, toks |-> <<\"t1\", Wrong>>] @@ r2 :> None)");
        assertEquals(2, e.size());
        assertEquals("r1", e.get(0)[0]);
        assertEquals("[src |-> w1, toks |-> <<\"t1\", Wrong>>]", e.get(0)[1]);
        assertEquals("None", e.get(1)[1]);
        assertNull(Timeline.functionEntries("<<1, 2>>"));
        assertNull(Timeline.functionEntries("3"));
    }

    @Test
    void stringsWithSeparatorsAreNotSplit() {
        List<String[]> e = Timeline.functionEntries("(a :> \"x @@ y\" @@ b :> {1, 2})");
        assertEquals("\"x @@ y\"", e.get(0)[1]);
        assertEquals("{1, 2}", e.get(1)[1]);
    }

    @Test
    void aStepShowsOnlyWhatChanged() {
        Map<String, String> s1 = new LinkedHashMap<>();
        s1.put("phase", "(r1 :> \"NEW\" @@ r2 :> \"NEW\")");
        s1.put("failures", "0");
        Map<String, String> s2 = new LinkedHashMap<>(s1);
        s2.put("phase", "(r1 :> \"QUEUED\" @@ r2 :> \"NEW\")");
        String t = Timeline.render(List.of(new TraceState(1, "Init", "", s1), new TraceState(2, "Arrive", "", s2)), 2);
        assertTrue(t.contains("  2  Arrive"), t);
        assertTrue(t.contains("phase[r1]: \"NEW\" -> \"QUEUED\""), t);
        assertTrue(!t.contains("phase[r2]: "), t);
        assertTrue(t.contains("back to state 2"), t);
    }
}
