package lumen.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Python example (examples/python-adapter), an independent LUMEN written from the docs,
 * passes conformance under every policy it claims, and its seeded bug is caught with its property.
 * Skipped, with the reason, where there is no python3.
 */
class PythonExampleTest {
    static final Path ADAPTER = Path.of("..", "examples", "python-adapter", "lumen_adapter.py").toAbsolutePath().normalize();

    static String command(String... args) {
        assumeThat(python3()).as("python3 is not on the PATH: the Python example is not run").isTrue();
        return "python3 '" + ADAPTER + "'" + (args.length == 0 ? "" : " " + String.join(" ", args));
    }

    static boolean python3() {
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"lumen", "lumen-dual", "stop-and-restart", "fixed-checkpointing"})
    void theExamplePassesUnderEachPolicyItClaims(String policy) {
        assertThat(Files.isRegularFile(ADAPTER)).as(ADAPTER.toString()).isTrue();
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command()).withPolicies(List.of(policy)).withSchedules(1, 30));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.schedules).isEqualTo(30);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lumen", "lumen-dual"})
    void theExamplePassesUnderTheProposalReadingOfTheAssistTargetToo(String policy) {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command()).withPolicies(List.of(policy))
                .withReadings(lumen.core.Readings.DEFAULT.with("assistTarget", "proposal")).withSchedules(1, 30));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.schedules).isEqualTo(30);
    }

    @ParameterizedTest
    @ValueSource(strings = {"stale:2", "stale:40ms"})
    void theExamplePassesWithAStaleLoadMonitorToo(String bound) {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command()).withPolicies(List.of("lumen", "lumen-dual"))
                .withReadings(lumen.core.Readings.DEFAULT.with("citedLoads", bound)).withSchedules(1, 30));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.schedules).isEqualTo(30);
    }

    @Test
    void theExamplePassesWithARoundRobinGatewayToo() {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command()).withPolicies(List.of("lumen", "fixed-checkpointing"))
                .withReadings(lumen.core.Readings.DEFAULT.with("arrival", "any")).withSchedules(1, 30));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.schedules).isEqualTo(30);
    }

    /** Gray failures: the example fences its paused workers' late writes under every policy it claims. */
    @Test
    void theExampleFencesItsZombiesUnderEveryPolicy() {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command())
                .withPolicies(List.of("lumen", "lumen-dual", "stop-and-restart", "fixed-checkpointing")).withGrayFailures(true).withSchedules(1, 40));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.share(lumen.props.PropertyCheck.Feature.ZOMBIE_TOKEN)).as(() -> ConformReport.text(r)).isGreaterThan(0);
        assertThat(r.share(lumen.props.PropertyCheck.Feature.ZOMBIE_PAGE)).as(() -> ConformReport.text(r)).isGreaterThan(0);
    }

    /** Its fences, taken out one at a time, are caught through the process boundary: S18 at the gateway, S19 at a holder. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"gateway-no-fence,S18", "holder-no-fence,S19", "ack-no-fence,S19"})
    void itsFencesAreWhatPassesGrayFailures(String bug, String property) {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command("--bug", bug)).withGrayFailures(true).withSchedules(1, 250));
        assertThat(r.failure).as("the example with --bug %s survived %d schedules", bug, r.schedules).isNotNull();
        assertThat(r.failure.reported().caughtAs()).as(() -> ConformReport.text(r)).isEqualTo(property);
        assertThat(r.failure.reproducer()).isEqualTo(Conformance.Reproducer.MINIMAL);
    }

    /**
     * Its seeded bugs are caught with their properties: a restore past the checkpoint, page
     * digests taken over the pages' metadata, which the kit's KV content model catches at the first
     * write (every copy of such a run agrees with every other, so nothing else could), and a round
     * robin gateway in a run that declares the shortest queue.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"restore-past-checkpoint,S9", "digest-over-metadata,S9", "round-robin-gateway,A6"})
    void itsSeededBugsAreCaughtWithTheirProperties(String bug, String property) {
        Conformance.Report r = ConformanceTest.run(Conformance.Options.defaults(command("--bug", bug)).withSchedules(1, 50));
        assertThat(r.failure).as("the example with --bug %s survived %d schedules", bug, r.schedules).isNotNull();
        assertThat(r.failure.reported().caughtAs()).as(() -> ConformReport.text(r)).isEqualTo(property);
        assertThat(r.failure.reproducer()).isEqualTo(Conformance.Reproducer.MINIMAL);
        if (bug.equals("digest-over-metadata")) {
            assertThat(r.failure.reported().message()).contains("not the kit's KV content model's");
        }
    }
}
