package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LumenCliTest {

    @TempDir
    Path tmp;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    /** picocli formats descriptions as format strings: a bare '%' is a warning on System.err, not a usage text. */
    @Test
    void everyHelpPrintsWithoutAWarning() throws Exception {
        java.io.PrintStream saved = System.err;
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertThat(run("--help").exit()).isZero();
            for (String sub : Lumen.commandLine().getSubcommands().keySet()) {
                CliRun r = run(sub, "--help");
                assertThat(r.exit()).as(sub).isZero();
                assertThat(r.out()).as(sub).contains("Usage: ");
            }
        } finally {
            System.setErr(saved);
        }
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("WARN");
    }

    @Test
    void aMutantIsRejectedWithItsPropertyAndTheJsonSaysSo() throws Exception {
        CliRun r = run("check", "-q", "--json", "--workers", "1", "MutHolderIsServer");
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertThat(report.get("agree").asInt()).isEqualTo(1);
        JsonNode m = report.get("models").get(0);
        assertThat(m.get("violatedProperty").asText()).isEqualTo("S4_HolderIsNotServerInv");
        assertThat(m.get("propertyId").asText()).isEqualTo("S4");
        assertThat(m.get("status").asText()).isEqualTo("SAFETY_VIOLATION");
        assertThat(m.get("counterexample").size()).isGreaterThanOrEqualTo(2);
        assertThat(m.get("counterexample").get(0).get("action").asText()).isEqualTo("Init");
    }

    @Test
    void theTableNamesModelResultAndVerdict() {
        CliRun r = run("check", "-q", "--workers", "1", "spec/mutants/MutTauInverted.cfg", "WitRestore");
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("MutTauInverted");
        assertThat(r.out()).contains("violates A2_RoutingFollowsRuleProp");
        assertThat(r.out()).contains("2 of 2 models agree");
    }

    @Test
    void tracesShowsTheCounterexampleOfAnExpectedViolation() throws Exception {
        Path report = tmp.resolve("report.json");
        CliRun r = run("check", "-q", "--traces", "--workers", "1", "--report", report.toString(), "MutLeakedCheckpoint");
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(new ObjectMapper().readTree(report.toFile()).get("models").get(0).get("propertyId").asText()).isEqualTo("S8");
        assertThat(r.out()).contains("violates S8_NoCheckpointLeakInv, as expected");
        assertThat(r.out()).contains("  1  Init");
        assertThat(r.out().contains("Complete") || r.out().contains("Route")).as(r.out()).isTrue();
    }

    @Test
    void aDisagreementExitsOneAndPrintsTheTimeline() throws Exception {
        Path spec = tmp.resolve("spec");
        Files.createDirectories(spec.resolve("mutants"));
        Path real = Path.of(System.getProperty("lumen.home"), "spec");
        for (String f : new String[] {"Cluster.tla", "CheckpointPlacement.tla", "FailureRouting.tla",
                "DraftHandover.tla", "GrayFailure.tla", "Service.tla", "Lumen.tla", "MCLumen.tla", "mutants/MutHolderIsServer.tla",
                "mutants/MutHolderIsServer.cfg"}) {
            Files.copy(real.resolve(f), spec.resolve(f));
        }
        // The manifest claims the mutant is caught by S5: TLC says S4, so the kit must disagree.
        Files.writeString(spec.resolve("manifest.json"), "{\"tool\":\"t\",\"properties\":[],\"models\":[{\"name\":"
                + "\"MutHolderIsServer\",\"module\":\"mutants/MutHolderIsServer.tla\",\"config\":"
                + "\"mutants/MutHolderIsServer.cfg\",\"tier\":\"ci\",\"expect\":\"violation\","
                + "\"property\":\"S5_BudgetRespectedInv\"}]}");
        CliRun r = run("check", "-q", "--workers", "1", "--spec-dir", spec.toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.DISAGREEMENT);
        assertThat(r.out()).contains("rejected with S4_HolderIsNotServerInv, expected S5_BudgetRespectedInv");
        assertThat(r.out()).contains("  1  Init");
        assertThat(r.out()).contains("Place");
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        CliRun unknown = run("check", "NoSuchModel");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(unknown.err()).startsWith("lumen: unknown model 'NoSuchModel'");
        assertThat(unknown.err()).doesNotContain("Exception");

        CliRun noSpec = run("check", "--spec-dir", tmp.toString());
        assertThat(noSpec.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(noSpec.err()).contains("no spec/manifest.json");

        CliRun workers = run("check", "--workers", "0", "MCPlacement");
        assertThat(workers.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(workers.err()).contains("--workers must be at least 1");

        CliRun typo = run("check", "--workers", "many");
        assertThat(typo.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(typo.err()).contains("Invalid value");
    }

    @Test
    void malformedManifestIsLocated() throws Exception {
        Files.writeString(tmp.resolve("manifest.json"), "{ \"tool\": ");
        CliRun r = run("check", "--spec-dir", tmp.toString());
        assertThat(r.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.err()).contains("manifest.json:1:");
    }
}
