package lumen.spec.tlc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineTest {

    @Test
    void functionValuesSplitAtTopLevelOnly() {
        List<String[]> e = Timeline.functionEntries("(r1 :> [src |-> w1, toks |-> <<\"t1\", Wrong>>] @@ r2 :> None)");
        assertThat(e).hasSize(2);
        assertThat(e.get(0)[0]).isEqualTo("r1");
        assertThat(e.get(0)[1]).isEqualTo("[src |-> w1, toks |-> <<\"t1\", Wrong>>]");
        assertThat(e.get(1)[1]).isEqualTo("None");
        assertThat(Timeline.functionEntries("<<1, 2>>")).isNull();
        assertThat(Timeline.functionEntries("3")).isNull();
    }

    @Test
    void stringsWithSeparatorsAreNotSplit() {
        List<String[]> e = Timeline.functionEntries("(a :> \"x @@ y\" @@ b :> {1, 2})");
        assertThat(e.get(0)[1]).isEqualTo("\"x @@ y\"");
        assertThat(e.get(1)[1]).isEqualTo("{1, 2}");
    }

    @Test
    void aStepShowsOnlyWhatChanged() {
        Map<String, String> s1 = new LinkedHashMap<>();
        s1.put("phase", "(r1 :> \"NEW\" @@ r2 :> \"NEW\")");
        s1.put("failures", "0");
        Map<String, String> s2 = new LinkedHashMap<>(s1);
        s2.put("phase", "(r1 :> \"QUEUED\" @@ r2 :> \"NEW\")");
        String t = Timeline.render(List.of(new TraceState(1, "Init", "", s1), new TraceState(2, "Arrive", "", s2)), 2);
        assertThat(t).contains("  2  Arrive");
        assertThat(t).contains("phase[r1]: \"NEW\" -> \"QUEUED\"");
        assertThat(t).doesNotContain("phase[r2]: ");
        assertThat(t).contains("back to state 2");
    }
}
