package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void aMutantIsRejectedWithItsPropertyAndTheJsonSaysSo() throws Exception {
        CliRun r = run("check", "-q", "--json", "--workers", "1", "MutHolderIsServer");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode report = new ObjectMapper().readTree(r.out());
        assertEquals(1, report.get("agree").asInt());
        JsonNode m = report.get("models").get(0);
        assertEquals("S4_HolderIsNotServerInv", m.get("violatedProperty").asText());
        assertEquals("S4", m.get("propertyId").asText());
        assertEquals("SAFETY_VIOLATION", m.get("status").asText());
        assertTrue(m.get("counterexample").size() >= 2);
        assertEquals("Init", m.get("counterexample").get(0).get("action").asText());
    }

    @Test
    void theTableNamesModelResultAndVerdict() {
        CliRun r = run("check", "-q", "--workers", "1", "spec/mutants/MutTauInverted.cfg", "WitRestore");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().contains("MutTauInverted"), r.out());
        assertTrue(r.out().contains("violates A2_RoutingFollowsRuleProp"), r.out());
        assertTrue(r.out().contains("2 of 2 models agree"), r.out());
    }

    @Test
    void tracesShowsTheCounterexampleOfAnExpectedViolation() throws Exception {
        Path report = tmp.resolve("report.json");
        CliRun r = run("check", "-q", "--traces", "--workers", "1", "--report", report.toString(), "MutLeakedCheckpoint");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("S8", new ObjectMapper().readTree(report.toFile()).get("models").get(0).get("propertyId").asText());
        assertTrue(r.out().contains("violates S8_NoCheckpointLeakInv, as expected"), r.out());
        assertTrue(r.out().contains("  1  Init"), r.out());
        assertTrue(r.out().contains("Complete") || r.out().contains("Route"), r.out());
    }

    @Test
    void aDisagreementExitsOneAndPrintsTheTimeline() throws Exception {
        Path spec = tmp.resolve("spec");
        Files.createDirectories(spec.resolve("mutants"));
        Path real = Path.of(System.getProperty("lumen.home"), "spec");
        for (String f : new String[] {"Cluster.tla", "CheckpointPlacement.tla", "FailureRouting.tla",
                "DraftHandover.tla", "Lumen.tla", "MCLumen.tla", "mutants/MutHolderIsServer.tla",
                "mutants/MutHolderIsServer.cfg"}) {
            Files.copy(real.resolve(f), spec.resolve(f));
        }
        // The manifest claims the mutant is caught by S5: TLC says S4, so the kit must disagree.
        Files.writeString(spec.resolve("manifest.json"), "{\"tool\":\"t\",\"properties\":[],\"models\":[{\"name\":"
                + "\"MutHolderIsServer\",\"module\":\"mutants/MutHolderIsServer.tla\",\"config\":"
                + "\"mutants/MutHolderIsServer.cfg\",\"tier\":\"ci\",\"expect\":\"violation\","
                + "\"property\":\"S5_BudgetRespectedInv\"}]}");
        CliRun r = run("check", "-q", "--workers", "1", "--spec-dir", spec.toString());
        assertEquals(ExitCodes.DISAGREEMENT, r.exit(), r.err());
        assertTrue(r.out().contains("rejected with S4_HolderIsNotServerInv, expected S5_BudgetRespectedInv"), r.out());
        assertTrue(r.out().contains("  1  Init"), r.out());
        assertTrue(r.out().contains("Place"), r.out());
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        CliRun unknown = run("check", "NoSuchModel");
        assertEquals(ExitCodes.BAD_INPUT, unknown.exit());
        assertTrue(unknown.err().startsWith("lumen: unknown model 'NoSuchModel'"), unknown.err());
        assertFalse(unknown.err().contains("Exception"), unknown.err());

        CliRun noSpec = run("check", "--spec-dir", tmp.toString());
        assertEquals(ExitCodes.BAD_INPUT, noSpec.exit());
        assertTrue(noSpec.err().contains("no spec/manifest.json"), noSpec.err());

        CliRun workers = run("check", "--workers", "0", "MCPlacement");
        assertEquals(ExitCodes.BAD_INPUT, workers.exit());
        assertTrue(workers.err().contains("--workers must be at least 1"), workers.err());

        CliRun typo = run("check", "--workers", "many");
        assertEquals(ExitCodes.BAD_INPUT, typo.exit());
        assertTrue(typo.err().contains("Invalid value"), typo.err());
    }

    @Test
    void malformedManifestIsLocated() throws Exception {
        Files.writeString(tmp.resolve("manifest.json"), "{ \"tool\": ");
        CliRun r = run("check", "--spec-dir", tmp.toString());
        assertEquals(ExitCodes.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("manifest.json:1:"), r.err());
    }
}
