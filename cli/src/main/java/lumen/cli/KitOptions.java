package lumen.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every model-checking command shares. */
final class KitOptions {

    @Option(names = "--workers", paramLabel = "N", description = "TLC worker threads (default: ${DEFAULT-VALUE})")
    int workers = Math.max(1, Runtime.getRuntime().availableProcessors());

    @Option(names = "--spec-dir", paramLabel = "DIR", description = "the spec folder (default: spec/ under the kit)")
    Path specDir;

    @Option(names = {"-q", "--quiet"}, description = "no progress display")
    boolean quiet;

    int workers() {
        if (workers < 1) {
            throw new UserError("--workers must be at least 1, not " + workers);
        }
        return workers;
    }

    Path specDir() {
        return KitPaths.specDir(specDir);
    }
}
