package lumen.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the kit's files are. The launcher sets {@code lumen.home} to the kit's root; without it the
 * current directory is taken as the root.
 */
final class KitPaths {

    private KitPaths() {
    }

    static Path home() {
        String home = System.getProperty("lumen.home");
        return Path.of(home == null ? "." : home).toAbsolutePath().normalize();
    }

    static Path specDir(Path override) {
        Path dir = override != null ? override : home().resolve("spec");
        if (!Files.isRegularFile(dir.resolve("manifest.json"))) {
            throw new UserError("no spec/manifest.json under " + dir
                    + " (run lumen from the kit's root, or pass --spec-dir)");
        }
        return dir;
    }

    static Path workDir() {
        String w = System.getProperty("lumen.workDir");
        return w != null ? Path.of(w) : home().resolve("target").resolve("tlc");
    }
}
