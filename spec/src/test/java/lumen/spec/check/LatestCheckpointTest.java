package lumen.spec.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Resuming picks TLC's newest metadir folder that holds a checkpoint, and only such a folder. */
class LatestCheckpointTest {

    @TempDir
    Path states;

    @Test
    void newestFolderWithACheckpointWins() throws Exception {
        assertNull(ModelChecker.latestCheckpoint(states.resolve("absent")));
        Path older = Files.createDirectories(states.resolve("26-11-29-08-00-00"));
        Files.writeString(older.resolve("queue.chkpt"), "");
        Path newer = Files.createDirectories(states.resolve("26-11-29-09-00-00"));
        Files.writeString(newer.resolve("queue.chkpt"), "");
        Files.createDirectories(states.resolve("26-11-29-10-00-00"));   // started, never checkpointed
        assertEquals(newer, ModelChecker.latestCheckpoint(states));
    }

    @Test
    void noCheckpointMeansAFreshStart() throws Exception {
        Files.createDirectories(states.resolve("26-11-29-10-00-00"));
        assertNull(ModelChecker.latestCheckpoint(states));
    }
}
