package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcResult;
import lumen.spec.tlc.TlcRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad models get a typed error and a located message, and a wrong expectation is a disagreement. */
class ModelCheckerErrorsTest {

    @TempDir
    Path dir;

    private ModelChecker checker() {
        return new ModelChecker(TlcRunner.fromCurrentJvm(), dir, dir.resolve("work"), 1, Duration.ofMinutes(2));
    }

    private static ModelEntry entry(String name, String expect, String property, Long distinct, Integer depth) {
        return new ModelEntry(name, name + ".tla", name + ".cfg", "ci", "exhaustive", expect, property, null,
                distinct, depth, "test");
    }

    private void write(String name, String body, String cfg) throws Exception {
        Files.writeString(dir.resolve(name + ".tla"), "---- MODULE " + name + " ----\nEXTENDS Naturals\n" + body + "\n====\n");
        Files.writeString(dir.resolve(name + ".cfg"), cfg);
    }

    @Test
    void aSpecThatDoesNotParseIsALocatedError() throws Exception {
        write("Broken", "VARIABLE x\nInit == x = 0\nNext == x' = x + nothingHere", "INIT Init\nNEXT Next\n");
        ModelOutcome o = checker().check(entry("Broken", "pass", null, 1L, 1), m -> { });
        assertThat(o.result().status()).isEqualTo(TlcResult.Status.ERROR);
        assertThat(o.agrees()).isFalse();
        assertThat(o.disagreement()).contains("line 5, col 18 to line 5, col 28 of module Broken");
        assertThat(o.disagreement()).contains("nothingHere");
    }

    @Test
    void aMissingModelFileIsReportedNotThrown() {
        ModelOutcome o = checker().check(entry("Absent", "pass", null, 1L, 1), m -> { });
        assertThat(o.agrees()).isFalse();
        assertThat(o.disagreement()).contains("model file not found");
    }

    @Test
    void countsAndPropertiesMustMatchExactly() throws Exception {
        write("Counter", "VARIABLE x\nInit == x = 0\nNext == x < 3 /\\ x' = x + 1\nSmall == x < 3",
                "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n");
        assertThat(checker().check(entry("Counter", "pass", null, 4L, 4), m -> { }).agrees()).isTrue();
        ModelOutcome drift = checker().check(entry("Counter", "pass", null, 5L, 4), m -> { });
        assertThat(drift.agrees()).isFalse();
        assertThat(drift.disagreement()).contains("TLC found 4 distinct states");

        Files.writeString(dir.resolve("Counter.cfg"), "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\nINVARIANT Small\n");
        assertThat(checker().check(entry("Counter", "violation", "Small", null, null), m -> { }).agrees()).isTrue();
        ModelOutcome wrongProperty = checker().check(entry("Counter", "violation", "Other", null, null), m -> { });
        assertThat(wrongProperty.agrees()).isFalse();
        assertThat(wrongProperty.disagreement()).contains("rejected with Small, expected Other");
    }
}
