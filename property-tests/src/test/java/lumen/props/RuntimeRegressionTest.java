package lumen.props;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import lumen.core.Config;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;
import lumen.trace.TraceReader;
import org.junit.jupiter.api.Test;

/**
 * Schedules on which the reference once broke a property, kept as they were shrunk, so that the
 * fix stays fixed whatever the generator draws.
 */
class RuntimeRegressionTest {

    static Config config(String policy, int workers, double alpha, double beta, double theta, int budget, int k, String readings) throws Exception {
        String header = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"config\":{\"policy\":\"" + policy + "\",\"workers\":" + workers
                + ",\"alpha\":" + alpha + ",\"beta\":" + beta + ",\"theta\":" + theta + ",\"tau\":100000,\"budget\":" + budget
                + ",\"pageTokens\":4,\"k\":" + k + ",\"readings\":{" + readings + "}}}\n";
        return new TraceReader(new ByteArrayInputStream(header.getBytes(StandardCharsets.UTF_8)), "header").config();
    }

    /** Every property holds on the schedule, and it still exercises {@code feature}. */
    static void passesWith(Schedule sc, PropertyCheck.Feature feature) {
        PropertyCheck.Outcome o = PropertyCheck.run(sc);
        assertThat(o.violation()).as(() -> String.valueOf(o.violation())).isNull();
        assertThat(o.features()).contains(feature);
    }

    /** The readings the kept schedules were drawn with: all alike but the ring direction and the budget reading. */
    static String readings(String ringDirection, String budget) {
        return "\"queue\":\"run\",\"ringDirection\":\"" + ringDirection + "\",\"ringFallThrough\":false,\"rebackup\":false,"
                + "\"assistTarget\":\"proposal\",\"routeLoads\":\"increment\",\"budget\":\"" + budget + "\",\"citedLoads\":\"exact\","
                + "\"arrival\":\"any\"";
    }

    @Test
    void aDraftWorkerDraftsForTheTargetWhoseIterationStarts() throws Exception {
        // seed 50152: two targets tie; the drafting worker passed over the one whose iteration started
        // for the lower-numbered one, and drafted for a request in its last iteration, so request 7
        // went three decode steps with no draft before the handover (L4)
        Config cfg = config("lumen", 8, 2.0, 2.0, 312.8393566926881, 154, 1, readings("previous", "reserve"));
        Schedule sc = new Schedule(cfg, 0.6821957021403582,
                List.of(new Arrival(5, 92.29566203567781, 223, 18, 7035937260598173529L), new Arrival(6, 117.62928401619983, 1, 15, -8709564481103203030L),
                        new Arrival(7, 118.64985538802516, 177, 17, -296600353090855399L)),
                List.of(new Fault(1, 0.0, Fault.Point.AT_TIME)), "arxiv / 16");
        passesWith(sc, PropertyCheck.Feature.REJECTED_ASSIST);
    }

    @Test
    void aTargetMostLoadedOnlyForAMomentAsksForNoDraft() throws Exception {
        // seed 76409: a checkpoint holder with nothing to decode is the most loaded worker but for a
        // moment at each completion; the mirror counted those moments across the stint as if the
        // assist had stayed possible (L4), where weak fairness asks only for an action that stays so
        Config cfg = config("lumen-no-routing", 4, 2.0, 1.0, 432.2725516282115, 87, 5, readings("next", "stored"));
        Schedule sc = new Schedule(cfg, 1.0,
                List.of(new Arrival(1, 36.75286837882566, 112, 42, 6576539820347718605L), new Arrival(3, 77.76240425510053, 103, 23, -3610999675138016835L),
                        new Arrival(4, 110.82623223309976, 165, 52, -6281569228608403509L), new Arrival(5, 147.77501337227648, 1, 60, 2700246089850830574L)),
                List.of(new Fault(0, 151.4476461341267, Fault.Point.MID_DECODE), new Fault(1, 151.4476461341267, Fault.Point.AT_TIME)), "sharegpt / 16");
        passesWith(sc, PropertyCheck.Feature.RESTORE);
    }
}
