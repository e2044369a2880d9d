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
        // a detector that takes a failure for a flap readmits the worker as it was: the same late tokens, served twice
        assertThat(row(rows, LiveMutant.FLAPPING_DETECTOR).result().caughtBy()).contains("history");
        assertThat(row(rows, LiveMutant.FLAPPING_DETECTOR).result().history().finding().property()).isEqualTo(lumen.core.PropertyId.S16);
    }

    private static LiveKillTable.Row row(List<LiveKillTable.Row> rows, LiveMutant m) {
        return rows.stream().filter(r -> r.mutant() == m).findFirst().orElseThrow();
    }
}
