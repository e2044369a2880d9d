package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out().contains("no failure (same window)") && r.out().contains("stop-and-restart") && r.out().contains("lumen"))
                .as(r.out()).isTrue();
        String csv = Files.readString(tmp.resolve("requests-lumen.csv"));
        assertThat(csv).startsWith("policy,request,arrive_ms");
        assertThat(csv.lines().count()).as("one row per request").isGreaterThan(100);
        assertThat(Files.readString(tmp.resolve("summary.txt"))).contains("recovery");
        for (String f : new String[] {"timeline.png", "timeline.svg", "ttft-cdf.png", "ttft-cdf.svg"}) {
            assertThat(Files.size(tmp.resolve(f))).as(f).isGreaterThan(1000);
        }
    }

    @Test
    void aTwoKeySweepWritesItsTableAndHeatMaps() throws Exception {
        Path cfg = tmp.resolve("sweep.properties");
        Files.writeString(cfg, "# a small sweep\nworkload = poisson\nrate = 3\nduration_s = 40\nfail_at_s = 15\npolicies = lumen\n"
                + "theta = 0, 1000000\ntau = 16, 4096\n");
        CliRun r = CliRun.of("simulate", "--config", cfg.toString(), "--out", tmp.resolve("out").toString(), "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("4 experiments, 8 simulated runs");
        assertThat(r.out()).contains(": tau=4096 theta=0]");
        List<String> rows = Files.readAllLines(tmp.resolve("out/sweep.csv"));
        assertThat(rows.get(0)).isEqualTo("experiment,tau,theta,policy,recovery_s,ttft_mean_ms,ttft_p99_ms,replay_ttft_mean_ms,survivor_ttft_mean_ms,"
                + "tpot_mean_ms,interrupted,draft_acceptance");
        assertThat(rows).hasSize(9);
        assertThat(Files.size(tmp.resolve("out/heatmap-lumen.png"))).isGreaterThan(1000);
    }

    @Test
    void theDefaultConfigNamesEveryKeyWithItsUnit() {
        CliRun r = CliRun.of("simulate", "--print-config");
        assertThat(r.exit()).isEqualTo(ExitCodes.OK);
        for (String k : new String[] {"preset =", "workers =", "policies =", "workload =", "rate_scale =", "duration_s =", "fail_at_s =",
            "fail_fraction =", "alpha =", "beta =", "theta =", "tau =", "budget_gb =", "k =", "draft_acceptance =", "chunk_tokens =",
            "max_batch =", "hardware =", "tensor_parallel =", "kv_mem_fraction =", "trace_start_s =", "seed ="}) {
            assertThat(r.out()).contains(k);
        }
    }

    @Test
    void badInputIsAClearError() {
        CliRun p = CliRun.of("simulate", "--preset", "gpt-5");
        assertThat(p.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(p.err()).contains("unknown preset 'gpt-5'");
        CliRun w = CliRun.of("simulate", "--workload", "tweets");
        assertThat(w.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(w.err()).contains("unknown workload 'tweets'");
        CliRun f = CliRun.of("simulate", "--set", "fail_fraction=1.5");
        assertThat(f.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(f.err()).contains("fail_fraction");
        CliRun k = CliRun.of("simulate", "--set", "thetta=3");
        assertThat(k.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(k.err()).contains("unknown key 'thetta'");
        CliRun n = CliRun.of("simulate", "--set", "tau=lots");
        assertThat(n.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(n.err()).contains("'tau' must be a whole number, found 'lots'");
        CliRun h = CliRun.of("simulate", "--set", "hardware=v100", "--duration-s", "5", "--fail-at-s", "2");
        assertThat(h.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(h.err()).contains("--set hardware=v100").contains("no profile for 'v100'").contains("a100-80gb and h100-80gb");
        CliRun m = CliRun.of("simulate", "--set", "kv_mem_fraction=0.2", "--duration-s", "5", "--fail-at-s", "2");
        assertThat(m.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(m.err()).contains("--set kv_mem_fraction=0.2").contains("leave no KV memory on 4 x h100-80gb");
    }

    @Test
    void simulatedTracesAreAcceptedByLumenValidate() throws Exception {
        Path traces = tmp.resolve("traces");
        CliRun r = CliRun.of("simulate", "--workload", "poisson", "--set", "rate=2", "--duration-s", "40", "--fail-at-s", "15",
                "--policy", "stop-and-restart,lumen,lumen-dual", "--set", "fail_holder=true", "--traces", traces.toString(),
                "--out", tmp.resolve("out").toString(), "-q");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.OK);
        for (String p : List.of("stop-and-restart", "lumen", "lumen-dual")) {
            Path t = traces.resolve(p + ".jsonl");
            assertThat(Files.size(t)).as(p).isGreaterThan(10_000);
            CliRun v = CliRun.of("validate", t.toString());
            assertThat(v.exit()).as(p + ": " + v.out() + v.err()).isEqualTo(ExitCodes.OK);
            assertThat(v.out()).contains("ACCEPTED");
        }
        String drafts = Files.readString(tmp.resolve("out").resolve("drafts-lumen.csv"));
        assertThat(drafts.startsWith("at_ms,since_draft_ready_ms,proposed,accepted") && drafts.lines().count() > 10).as(drafts).isTrue();
    }

    @Test
    void shardsOfASweepConcatenateToTheWholeSweep() throws Exception {
        Path cfg = tmp.resolve("sweep.properties");
        Files.writeString(cfg, "workload = poisson\nrate = 3\nduration_s = 30\nfail_at_s = 10\npolicies = lumen\ntheta = 0, 1000000\ntau = 16, 4096\n");
        CliRun whole = CliRun.of("simulate", "--config", cfg.toString(), "--out", tmp.resolve("whole").toString(), "-q");
        assertThat(whole.exit()).as(whole.err()).isEqualTo(ExitCodes.OK);
        java.util.Set<String> merged = new java.util.TreeSet<>();
        for (String k : new String[] {"1/3", "2/3", "3/3"}) {
            Path o = tmp.resolve("shard" + k.charAt(0));
            CliRun r = CliRun.of("simulate", "--config", cfg.toString(), "--shard", k, "--out", o.toString(), "-q");
            assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
            Files.readString(o.resolve("sweep.csv")).lines().skip(1).forEach(merged::add);
        }
        java.util.Set<String> all = new java.util.TreeSet<>(Files.readString(tmp.resolve("whole").resolve("sweep.csv")).lines().skip(1).toList());
        assertThat(merged).as("the shards' rows are the whole sweep's rows, experiment numbers included").isEqualTo(all);
        CliRun bad = CliRun.of("simulate", "--config", cfg.toString(), "--shard", "5/3", "-q");
        assertThat(bad.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(bad.err()).contains("--shard 5/3: expected K/N with 1 <= K <= N <= 4");
    }
}
