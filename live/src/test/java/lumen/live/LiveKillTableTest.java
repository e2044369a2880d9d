package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lumen conform --live} against {@code lumen serve} and its seeded distributed bugs, one
 * {@code kill -9} each, with lost page acknowledgements: the reference passes, every mutant is
 * caught, and each by the check that can see its bug.
 */
class LiveKillTableTest {
    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void theReferencePassesAndEveryLiveMutantIsCaught(@TempDir Path dir) throws Exception {
        LiveConform.Options work = new LiveConform.Options(null, "conv", 4.0, 6_000, 128, 200, 7,
                List.of(new LiveConform.Fault(3_000, 1)), null, null, 0, 60_000, null, null);
        PrintWriter out = new PrintWriter(System.out, true);
        List<LiveKillTable.Row> rows = LiveKillTable.run(LiveServeTest.settings(3), work, 3, List.of(), dir, out);
        for (LiveKillTable.Row r : rows) {
            out.println(r.mutant().key + ": " + LiveKillTable.why(r.result()) + " | " + r.result().faults());
        }
        // the reference and every mutant
        assertThat(rows).hasSize(LiveMutant.values().length);
        assertThat(rows).allSatisfy(r -> assertThat(r.ok()).as(r.mutant().key + " " + LiveKillTable.why(r.result())).isTrue());
        LiveKillTable.Row ref = rows.get(0);
        assertThat(ref.result().history().verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(ref.result().logs().byType()).containsKeys("Fail", "Route", "Restart", "FullReady");
        // each bug is seen where it shows: the clients' answers, the gateway's decisions, or both
        assertThat(row(rows, LiveMutant.REISSUE_INTERRUPTED).result().caughtBy()).contains("history");
        assertThat(row(rows, LiveMutant.DROP_INTERRUPTED).result().caughtBy()).contains("history");
        assertThat(row(rows, LiveMutant.APPEND_UNACKED).result().caughtBy()).isEqualTo("history and logs");
        assertThat(row(rows, LiveMutant.LATE_DRAFT).result().caughtBy()).contains("logs");
        // the stalls' late writes: the reference's logs show them refused; a mutant without the fence lets one through
        assertThat(ref.result().logs().byType()).containsKeys("ZombiePage", "ZombieToken");
        assertThat(row(rows, LiveMutant.HOLDER_NO_FENCE).result().logs().divergence().finding().property()).isEqualTo(lumen.core.PropertyId.S19);
        assertThat(row(rows, LiveMutant.GATEWAY_NO_FENCE).result().logs().divergence().finding().property()).isEqualTo(lumen.core.PropertyId.S18);
        // an engine stuck past the restart answers under the epoch the restart gave the worker again: the clients see its tokens
        assertThat(row(rows, LiveMutant.RESTART_REUSES_EPOCH).result().caughtBy()).contains("history");
        assertThat(row(rows, LiveMutant.RESTART_REUSES_EPOCH).result().history().finding().property()).isEqualTo(lumen.core.PropertyId.S16);
        // a detector that takes a failure for a flap readmits the worker as it was: the same late tokens, served twice.
        // A run in which no stuck iteration answered through the fence served nothing twice (its logs may still show the
        // worker left failed): the clients' view is asked of a run that reached the double serving, up to three runs
        LiveKillTable.Row flap = row(rows, LiveMutant.FLAPPING_DETECTOR);
        for (int i = 0; i < 2 && !flap.result().caughtBy().contains("history"); i++) {
            out.println("flapping-detector: caught by " + flap.result().caughtBy() + " alone (" + LiveKillTable.why(flap.result())
                    + "); no late answer reached a client in this run; again");
            flap = row(LiveKillTable.run(LiveServeTest.settings(3), work, 3, List.of(LiveMutant.FLAPPING_DETECTOR), dir.resolve("flap-" + i),
                    out), LiveMutant.FLAPPING_DETECTOR);
        }
        assertThat(flap.result().caughtBy()).as(LiveKillTable.why(flap.result())).contains("history");
        assertThat(flap.result().history().finding().property()).isEqualTo(lumen.core.PropertyId.S16);
    }

    private static LiveKillTable.Row row(List<LiveKillTable.Row> rows, LiveMutant m) {
        return rows.stream().filter(r -> r.mutant() == m).findFirst().orElseThrow();
    }
}
