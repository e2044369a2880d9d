package lumen.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen simulate} from the command line. */
class SimulateCliTest {
    @TempDir
    Path tmp;

    @Test
    void aShortRunPrintsTheTableAndWritesTheCsv() throws Exception {
        CliRun r = CliRun.of("simulate", "--workload", "poisson", "--set", "rate=3", "--duration-s", "60", "--fail-at-s", "20",
                "--out", tmp.toString(), "-q");
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("no failure (same window)") && r.out().contains("stop-and-restart") && r.out().contains("lumen"), r.out());
        String csv = Files.readString(tmp.resolve("requests-lumen.csv"));
        assertTrue(csv.startsWith("policy,request,arrive_ms"), csv);
        assertTrue(csv.lines().count() > 100, "one row per request");
        assertTrue(Files.readString(tmp.resolve("summary.txt")).contains("recovery"));
        for (String f : new String[] {"timeline.png", "timeline.svg", "ttft-cdf.png", "ttft-cdf.svg"}) {
            assertTrue(Files.size(tmp.resolve(f)) > 1000, f);
        }
    }

    @Test
    void aTwoKeySweepWritesItsTableAndHeatMaps() throws Exception {
        Path cfg = tmp.resolve("sweep.properties");
        Files.writeString(cfg, "# a small sweep\nworkload = poisson\nrate = 3\nduration_s = 40\nfail_at_s = 15\npolicies = lumen\n"
                + "theta = 0, 1000000\ntau = 16, 4096\n");
        CliRun r = CliRun.of("simulate", "--config", cfg.toString(), "--out", tmp.resolve("out").toString(), "-q");
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("4 experiments, 8 simulated runs"), r.out());
        assertTrue(r.out().contains(": tau=4096 theta=0]"), r.out());
        List<String> rows = Files.readAllLines(tmp.resolve("out/sweep.csv"));
        assertEquals("experiment,tau,theta,policy,recovery_s,ttft_mean_ms,ttft_p99_ms,replay_ttft_mean_ms,survivor_ttft_mean_ms,tpot_mean_ms,"
                + "interrupted,draft_acceptance", rows.get(0));
        assertEquals(9, rows.size());
        assertTrue(Files.size(tmp.resolve("out/heatmap-lumen.png")) > 1000);
    }

    @Test
    void theDefaultConfigNamesEveryKeyWithItsUnit() {
        CliRun r = CliRun.of("simulate", "--print-config");
        assertEquals(ExitCodes.OK, r.exit());
        for (String k : new String[] {"preset =", "workers =", "policies =", "workload =", "rate_scale =", "duration_s =", "fail_at_s =",
            "fail_fraction =", "alpha =", "beta =", "theta =", "tau =", "budget_gb =", "k =", "draft_acceptance =", "chunk_tokens =",
            "max_batch =", "seed ="}) {
            assertTrue(r.out().contains(k), k);
        }
    }

    @Test
    void badInputIsAClearError() {
        CliRun p = CliRun.of("simulate", "--preset", "gpt-5");
        assertEquals(ExitCodes.BAD_INPUT, p.exit());
        assertTrue(p.err().contains("unknown preset 'gpt-5'"), p.err());
        CliRun w = CliRun.of("simulate", "--workload", "tweets");
        assertEquals(ExitCodes.BAD_INPUT, w.exit());
        assertTrue(w.err().contains("unknown workload 'tweets'"), w.err());
        CliRun f = CliRun.of("simulate", "--set", "fail_fraction=1.5");
        assertEquals(ExitCodes.BAD_INPUT, f.exit());
        assertTrue(f.err().contains("fail_fraction"), f.err());
        CliRun k = CliRun.of("simulate", "--set", "thetta=3");
        assertEquals(ExitCodes.BAD_INPUT, k.exit());
        assertTrue(k.err().contains("unknown key 'thetta'"), k.err());
        CliRun n = CliRun.of("simulate", "--set", "tau=lots");
        assertEquals(ExitCodes.BAD_INPUT, n.exit());
        assertTrue(n.err().contains("'tau' must be a whole number, found 'lots'"), n.err());
    }

    @Test
    void simulatedTracesAreAcceptedByLumenValidate() throws Exception {
        Path traces = tmp.resolve("traces");
        CliRun r = CliRun.of("simulate", "--workload", "poisson", "--set", "rate=2", "--duration-s", "40", "--fail-at-s", "15",
                "--policy", "stop-and-restart,lumen,lumen-dual", "--set", "fail_holder=true", "--traces", traces.toString(),
                "--out", tmp.resolve("out").toString(), "-q");
        assertEquals(ExitCodes.OK, r.exit(), r.out() + r.err());
        for (String p : List.of("stop-and-restart", "lumen", "lumen-dual")) {
            Path t = traces.resolve(p + ".jsonl");
            assertTrue(Files.size(t) > 10_000, p);
            CliRun v = CliRun.of("validate", t.toString());
            assertEquals(ExitCodes.OK, v.exit(), p + ": " + v.out() + v.err());
            assertTrue(v.out().contains("ACCEPTED"), v.out());
        }
        String drafts = Files.readString(tmp.resolve("out").resolve("drafts-lumen.csv"));
        assertTrue(drafts.startsWith("at_ms,since_draft_ready_ms,proposed,accepted") && drafts.lines().count() > 10, drafts);
    }

    @Test
    void shardsOfASweepConcatenateToTheWholeSweep() throws Exception {
        Path cfg = tmp.resolve("sweep.properties");
        Files.writeString(cfg, "workload = poisson\nrate = 3\nduration_s = 30\nfail_at_s = 10\npolicies = lumen\ntheta = 0, 1000000\ntau = 16, 4096\n");
        CliRun whole = CliRun.of("simulate", "--config", cfg.toString(), "--out", tmp.resolve("whole").toString(), "-q");
        assertEquals(ExitCodes.OK, whole.exit(), whole.err());
        java.util.Set<String> merged = new java.util.TreeSet<>();
        for (String k : new String[] {"1/3", "2/3", "3/3"}) {
            Path o = tmp.resolve("shard" + k.charAt(0));
            CliRun r = CliRun.of("simulate", "--config", cfg.toString(), "--shard", k, "--out", o.toString(), "-q");
            assertEquals(ExitCodes.OK, r.exit(), r.err());
            Files.readString(o.resolve("sweep.csv")).lines().skip(1).forEach(merged::add);
        }
        java.util.Set<String> all = new java.util.TreeSet<>(Files.readString(tmp.resolve("whole").resolve("sweep.csv")).lines().skip(1).toList());
        assertEquals(all, merged, "the shards' rows are the whole sweep's rows, experiment numbers included");
        CliRun bad = CliRun.of("simulate", "--config", cfg.toString(), "--shard", "5/3", "-q");
        assertEquals(ExitCodes.BAD_INPUT, bad.exit());
        assertTrue(bad.err().contains("--shard 5/3: expected K/N with 1 <= K <= N <= 4"), bad.err());
    }
}
