package lumen.spec.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The manifest is well-formed, complete, and consistent with the spec files. */
class ManifestTest {

    static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "."));

    @TempDir
    Path tmp;

    private static Manifest manifest() throws ManifestException {
        return Manifest.read(SPEC.resolve("manifest.json"));
    }

    @Test
    void everyPropertyIsDefinedWhereTheManifestSays() throws Exception {
        for (PropertyEntry p : manifest().properties()) {
            String text = Files.readString(SPEC.resolve(p.module() + ".tla"));
            assertThat(Pattern.compile("(?m)^" + Pattern.quote(p.operator()) + "\\s*==").matcher(text).find())
                    .as(p.operator() + " not defined in " + p.module()).isTrue();
            assertThat(p.operator()).startsWith(p.id() + "_" + p.name());
        }
    }

    @Test
    void everySafetyAndActionPropertyHasACiMutantThatMustViolateIt() throws Exception {
        Manifest m = manifest();
        Set<String> killed = m.models().stream()
                .filter(e -> e.isMutant() && e.isCi())
                .map(ModelEntry::property).collect(Collectors.toSet());
        for (PropertyEntry p : m.properties()) {
            if (!p.kind().equals("liveness")) {
                assertThat(killed).as("no CI mutant is expected to violate " + p.operator()).contains(p.operator());
            }
        }
    }

    @Test
    void everyMutantAndWitnessConfigChecksOnlyItsProperty() throws Exception {
        for (ModelEntry e : manifest().models()) {
            if (!e.expectsViolation()) {
                continue;
            }
            List<String> cfg = Files.readAllLines(SPEC.resolve(e.config()));
            List<String> checks = cfg.stream().map(String::strip)
                    .filter(l -> l.startsWith("INVARIANT") || l.startsWith("PROPERTY")).toList();
            assertThat(checks).as(e.name() + " must check exactly one property: " + checks).hasSize(1);
            assertThat(checks.get(0)).as(e.name() + ": " + checks).endsWith(" " + e.property());
            if (e.isMutant()) {
                assertThat(cfg)
                        .as(e.name() + " must override " + e.overrides()).anyMatch(l -> l.strip().startsWith(e.overrides() + " <- "));
            }
        }
    }

    @Test
    void everyModelFileOnDiskIsInTheManifest() throws Exception {
        Set<String> configs = manifest().models().stream().map(ModelEntry::config).collect(Collectors.toSet());
        try (var files = Files.walk(SPEC, 2)) {
            List<String> orphans = files.map(p -> SPEC.relativize(p).toString())
                    .filter(p -> p.endsWith(".cfg") && !p.startsWith("target") && !p.startsWith("src"))
                    .filter(p -> !configs.contains(p)).toList();
            assertThat(orphans).as("configs with no manifest entry").isEqualTo(List.of());
        }
    }

    @Test
    void writingReproducesTheCheckedInFileByteForByte() throws Exception {
        Path copy = tmp.resolve("manifest.json");
        manifest().write(copy);
        assertThat(Files.readString(copy)).isEqualTo(Files.readString(SPEC.resolve("manifest.json")));
    }

    @Test
    void malformedManifestsGetALocatedMessage() throws IOException {
        Path bad = tmp.resolve("manifest.json");
        Files.writeString(bad, "{\n  \"tool\": \"x\",\n  \"models\": [ { \"name\": \"M\", }\n]}");
        ManifestException e = assertThatExceptionOfType(ManifestException.class).isThrownBy(() -> Manifest.read(bad)).actual();
        assertThat(e.getMessage()).contains("manifest.json:3:");

        Files.writeString(bad, "{\"tool\":\"x\",\"properties\":[],\"models\":[{\"name\":\"M\",\"module\":\"M.tla\","
                + "\"config\":\"M.cfg\",\"expect\":\"maybe\"}]}");
        e = assertThatExceptionOfType(ManifestException.class).isThrownBy(() -> Manifest.read(bad)).actual();
        assertThat(e.getMessage()).contains("model M: expect must be");

        e = assertThatExceptionOfType(ManifestException.class).isThrownBy(() -> Manifest.read(tmp.resolve("absent.json"))).actual();
        assertThat(e.getMessage()).contains("cannot read");
    }
}
