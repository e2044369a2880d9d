package lumen.spec.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import lumen.spec.io.AtomicFiles;

/**
 * {@code spec/manifest.json}: the expected outcome of every TLC model, written down as data. The build
 * fails when TLC disagrees with it.
 *
 * @param tool       the TLC build the counts were measured with
 * @param properties the properties the spec states, with their IDs
 * @param models     the models and mutants with their expected results
 */
public record Manifest(String tool, List<PropertyEntry> properties, List<ModelEntry> models) {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public static Manifest read(Path file) throws ManifestException {
        try {
            Manifest m = JSON.readValue(file.toFile(), Manifest.class);
            m.validate(file);
            return m;
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ManifestException(file + (loc == null ? "" : ":" + loc.getLineNr() + ":" + loc.getColumnNr())
                    + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot read: " + e.getMessage());
        }
    }

    private void validate(Path file) throws ManifestException {
        List<String> names = new ArrayList<>();
        for (ModelEntry e : models) {
            String where = file + ": model " + e.name();
            if (e.name() == null || e.module() == null || e.config() == null || e.expect() == null) {
                throw new ManifestException(where + ": name, module, config and expect are required");
            }
            if (names.contains(e.name())) {
                throw new ManifestException(where + ": the name is used twice");
            }
            names.add(e.name());
            if (!e.expectsPass() && !e.expectsViolation()) {
                throw new ManifestException(where + ": expect must be \"pass\", \"violation\" or \"witness\", not \""
                        + e.expect() + "\"");
            }
            if (e.expectsViolation() && e.property() == null) {
                throw new ManifestException(where + ": a mutant or witness must name the property TLC must report violated");
            }
        }
    }

    /** Writes the manifest atomically: a reader never sees half of it. */
    public void write(Path file) throws IOException {
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter()
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"))
                .withSeparators(Separators.createDefaultInstance()
                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER));
        AtomicFiles.writeString(file, JSON.writer(pretty).writeValueAsString(this) + "\n");
    }

    public Optional<ModelEntry> model(String name) {
        return models.stream().filter(m -> m.name().equals(name)).findFirst();
    }

    public Manifest withModel(ModelEntry updated) {
        List<ModelEntry> next = new ArrayList<>();
        for (ModelEntry m : models) {
            next.add(m.name().equals(updated.name()) ? updated : m);
        }
        return new Manifest(tool, properties, next);
    }
}
