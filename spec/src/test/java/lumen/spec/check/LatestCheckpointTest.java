package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(ModelChecker.latestCheckpoint(states.resolve("absent"))).isNull();
        Path older = Files.createDirectories(states.resolve("26-11-29-08-00-00"));
        Files.writeString(older.resolve("queue.chkpt"), "");
        Path newer = Files.createDirectories(states.resolve("26-11-29-09-00-00"));
        Files.writeString(newer.resolve("queue.chkpt"), "");
        Files.createDirectories(states.resolve("26-11-29-10-00-00"));   // started, never checkpointed
        assertThat(ModelChecker.latestCheckpoint(states)).isEqualTo(newer);
    }

    @Test
    void noCheckpointMeansAFreshStart() throws Exception {
        Files.createDirectories(states.resolve("26-11-29-10-00-00"));
        assertThat(ModelChecker.latestCheckpoint(states)).isNull();
    }
}
