package lumen.spec.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            assertTrue(Pattern.compile("(?m)^" + Pattern.quote(p.operator()) + "\\s*==").matcher(text).find(),
                    p.operator() + " not defined in " + p.module());
            assertTrue(p.operator().startsWith(p.id() + "_" + p.name()), p.operator());
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
                assertTrue(killed.contains(p.operator()), "no CI mutant is expected to violate " + p.operator());
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
            assertEquals(1, checks.size(), e.name() + " must check exactly one property: " + checks);
            assertTrue(checks.get(0).endsWith(" " + e.property()), e.name() + ": " + checks);
            if (e.isMutant()) {
                assertTrue(cfg.stream().anyMatch(l -> l.strip().startsWith(e.overrides() + " <- ")),
                        e.name() + " must override " + e.overrides());
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
            assertEquals(List.of(), orphans, "configs with no manifest entry");
        }
    }

    @Test
    void writingReproducesTheCheckedInFileByteForByte() throws Exception {
        Path copy = tmp.resolve("manifest.json");
        manifest().write(copy);
        assertEquals(Files.readString(SPEC.resolve("manifest.json")), Files.readString(copy));
    }

    @Test
    void malformedManifestsGetALocatedMessage() throws IOException {
        Path bad = tmp.resolve("manifest.json");
        Files.writeString(bad, "{\n  \"tool\": \"x\",\n  \"models\": [ { \"name\": \"M\", }\n]}");
        ManifestException e = assertThrows(ManifestException.class, () -> Manifest.read(bad));
        assertTrue(e.getMessage().contains("manifest.json:3:"), e.getMessage());

        Files.writeString(bad, "{\"tool\":\"x\",\"properties\":[],\"models\":[{\"name\":\"M\",\"module\":\"M.tla\","
                + "\"config\":\"M.cfg\",\"expect\":\"maybe\"}]}");
        e = assertThrows(ManifestException.class, () -> Manifest.read(bad));
        assertTrue(e.getMessage().contains("model M: expect must be"), e.getMessage());

        e = assertThrows(ManifestException.class, () -> Manifest.read(tmp.resolve("absent.json")));
        assertTrue(e.getMessage().contains("cannot read"), e.getMessage());
    }
}
