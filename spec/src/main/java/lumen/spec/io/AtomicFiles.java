package lumen.spec.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes files so that a reader, or a run that is interrupted, never sees half of one. */
public final class AtomicFiles {

    private AtomicFiles() {
    }

    /** Writes {@code text} to a sibling temporary file, then moves it over {@code file} atomically. */
    public static void writeString(Path file, String text) throws IOException {
        Path target = file.toAbsolutePath();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
