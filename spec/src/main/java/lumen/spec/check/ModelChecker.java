package lumen.spec.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcMessage;
import lumen.spec.tlc.TlcResult;
import lumen.spec.tlc.TlcRunner;

/**
 * Checks manifest models with TLC and says, for each, whether TLC agrees with the manifest: a
 * passing model must pass with exactly the recorded distinct states and depth; a mutant must be
 * rejected with exactly the recorded property.
 */
public final class ModelChecker {

    private final TlcRunner runner;
    private final Path specDir;
    private final Path workDir;
    private final int workers;
    private final Duration timeout;

    public ModelChecker(TlcRunner runner, Path specDir, Path workDir, int workers, Duration timeout) {
        this.runner = runner;
        this.specDir = specDir;
        this.workDir = workDir;
        this.workers = workers;
        this.timeout = timeout;
    }

    public ModelOutcome check(ModelEntry entry, Consumer<TlcMessage> progress) {
        return check(entry, progress, false);
    }

    /**
     * @param resume continue from the last checkpoint TLC wrote for this model (under the work
     *               folder) instead of starting afresh; starts afresh when there is none
     */
    public ModelOutcome check(ModelEntry entry, Consumer<TlcMessage> progress, boolean resume) {
        Path module = specDir.resolve(entry.module());
        Path config = specDir.resolve(entry.config());
        for (Path p : List.of(module, config)) {
            if (!Files.isRegularFile(p)) {
                return ModelOutcome.error(entry, "model file not found: " + p);
            }
        }
        Path runDir = workDir.resolve(entry.name());
        Path checkpoint = resume ? latestCheckpoint(runDir.resolve("states")) : null;
        if (checkpoint == null) {
            deleteTree(runDir);
        }
        TlcResult result = runner.run(new TlcRunner.Request(module, config, specDir, runDir, workers, timeout,
                singleTemporalProperty(config), checkpoint), progress);
        return ModelOutcome.of(entry, result, workers);
    }

    /** The one PROPERTY of a config, if it has exactly one: TLC does not name a violated temporal property. */
    static String singleTemporalProperty(Path config) {
        try {
            List<String> props = Files.readAllLines(config).stream()
                    .map(String::strip)
                    .filter(l -> l.startsWith("PROPERTY ") || l.startsWith("PROPERTIES "))
                    .map(l -> l.substring(l.indexOf(' ') + 1).strip())
                    .toList();
            return props.size() == 1 ? props.get(0) : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The newest folder of TLC's metadir that holds a checkpoint, or null. */
    static Path latestCheckpoint(Path statesDir) {
        if (!Files.isDirectory(statesDir)) {
            return null;
        }
        try (var dirs = Files.list(statesDir)) {
            return dirs.filter(Files::isDirectory)
                    .filter(d -> {
                        try (var files = Files.list(d)) {
                            return files.anyMatch(f -> f.getFileName().toString().endsWith(".chkpt"));
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .max(java.util.Comparator.comparing(Path::getFileName))
                    .orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
