package lumen.spec.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * proofs-notes/ has a note for every property of the manifest, names its TLA+ operator, and cites
 * exactly the manifest's state counts, so a note cannot drift from what TLC checked.
 */
class ProofsNotesTest {

    private static final Path NOTES = ManifestTest.SPEC.resolve("../proofs-notes");
    private static final Pattern ROW = Pattern.compile("(?m)^\\| (\\w+) \\| (ci|large) \\| [^|]+ \\| ([\\d,]+|not yet measured) \\| (\\d+|-) \\|$");

    @Test
    void everyPropertyHasANoteThatCitesTheManifestCounts() throws Exception {
        Manifest m = Manifest.read(ManifestTest.SPEC.resolve("manifest.json"));
        String index = Files.readString(NOTES.resolve("README.md"));
        for (PropertyEntry p : m.properties()) {
            Path note = NOTES.resolve(p.id() + "-" + p.name() + ".md");
            assertThat(Files.isRegularFile(note)).as("no note " + note).isTrue();
            String text = Files.readString(note);
            assertThat(text).as(note + " must open with its ID and name").startsWith("# " + p.id() + " " + p.name());
            assertThat(text).as(note + " must name " + p.operator()).contains("`" + p.operator() + "`");
            assertThat(index).as("the matrix must link " + note).contains("(" + p.id() + "-" + p.name() + ".md)");
            Matcher row = ROW.matcher(text);
            int rows = 0;
            while (row.find()) {
                rows++;
                ModelEntry e = m.model(row.group(1)).orElseThrow(() -> new AssertionError(note + " cites unknown model " + row.group(1)));
                String cited = row.group(3).replace(",", "");
                String recorded = e.distinctStates() == null ? "not yet measured" : Long.toString(e.distinctStates());
                assertThat(cited).as(note + ": " + e.name() + " distinct states").isEqualTo(recorded);
                assertThat(row.group(4)).as(note + ": " + e.name() + " depth").isEqualTo(e.depth() == null ? "-" : Integer.toString(e.depth()));
            }
            assertThat(rows).as(note + " cites no model").isGreaterThan(0);
        }
    }
}
