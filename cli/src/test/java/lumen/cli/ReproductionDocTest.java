package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reproduction.md as a reader checks it: in every table of changes, the direction and the
 * within-25% columns follow from the paper's figure and ours as the document prints them.
 */
class ReproductionDocTest {
    private static final Path DOC = Path.of("..", "docs", "reproduction.md");
    private static final Pattern OURS = Pattern.compile("([-+][0-9]+\\.[0-9]{2})%(?: ± ([0-9]+\\.[0-9]{2}))?");

    /** One row of a change table, as printed. */
    record Row(int line, String paper, String ours, String direction, String within) {}

    static List<Row> rows(List<String> lines) {
        List<Row> out = new ArrayList<>();
        boolean in = false;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("| change | metric | paper | ours | direction | within 25% |")) {
                in = true;
                continue;
            }
            if (!l.startsWith("|")) {
                in = false;
                continue;
            }
            if (in && !l.startsWith("|---")) {
                String[] c = l.split("\\|", -1);
                out.add(new Row(i + 1, c[3].trim(), c[4].trim(), c[5].trim(), c[6].trim()));
            }
        }
        return out;
    }

    /** The verdicts that follow from a row's printed figures: {direction, within}. */
    static String[] verdicts(String paper, String ours) {
        Matcher m = OURS.matcher(ours);
        if (!m.matches()) {
            return new String[] {"n/a", "n/a"};
        }
        double v = Double.parseDouble(m.group(1));
        boolean noise = m.group(2) != null && v - Double.parseDouble(m.group(2)) <= 0 && v + Double.parseDouble(m.group(2)) >= 0;
        double p = ReproductionDoc.paperPercent(paper);
        String direction = Double.isNaN(p) ? (noise ? "inside the noise" : "-") : noise ? "inside the noise"
                : Math.signum(v) == Math.signum(p) ? "same" : "opposite";
        String within = Double.isNaN(p) ? "-" : Math.abs(v - p) <= 0.25 * Math.abs(p) ? "yes" : "no";
        return new String[] {direction, within};
    }

    @Test
    void everyVerdictFollowsFromTheFiguresItIsPrintedWith() throws Exception {
        List<Row> rows = rows(Files.readAllLines(DOC));
        assertThat(rows).as("the document's change tables").hasSizeGreaterThan(20);
        for (Row r : rows) {
            assertThat(r.ours()).as("line %d prints ours to two decimals", r.line()).matches(OURS.pattern() + "|n/a");
            String[] v = verdicts(r.paper(), r.ours());
            assertThat(new String[] {r.direction(), r.within()}).as("line %d: paper %s, ours %s", r.line(), r.paper(), r.ours()).containsExactly(v);
        }
    }

    @Test
    void theCheckCatchesAVerdictThatDoesNotFollow() {
        // the 4-worker LUMEN vs FC TTFT row as the document once printed it: -9% against -7.1% marked within 25%
        assertThat(verdicts("-7.1%", "-9.00% ± 3.00")).containsExactly("same", "no");
        assertThat(verdicts("-7.1%", "-8.80% ± 3.00")).containsExactly("same", "yes");
        assertThat(verdicts("-44.4%", "+1.00% ± 2.00")).containsExactly("inside the noise", "no");
        assertThat(verdicts("not in the paper", "-23.00% ± 14.00")).containsExactly("-", "-");
        assertThat(verdicts("+62%", "-5.00% ± 1.00")).containsExactly("opposite", "no");
        List<Row> r = rows(List.of("| change | metric | paper | ours | direction | within 25% |", "|---|---|---|---|---|---|",
                "| LUMEN vs FC | TTFT | -7.1% | -9.00% ± 3.00 | same | yes |"));
        assertThat(r).hasSize(1);
        assertThat(verdicts(r.get(0).paper(), r.get(0).ours())).isNotEqualTo(new String[] {r.get(0).direction(), r.get(0).within()});
    }
}
