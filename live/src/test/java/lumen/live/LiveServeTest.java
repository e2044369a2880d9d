package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import lumen.core.Config;
import lumen.history.History;
import lumen.history.HistoryCheck;
import lumen.runtime.SimpleCostModel;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reference LUMEN as real processes: a gateway and three worker JVMs on loopback, a client
 * that streams requests over HTTP, and a {@code kill -9} of a worker while they run. What the
 * clients saw must pass {@code lumen history} against the kit's token model, and the gateway's
 * trace must pass the validator.
 */
class LiveServeTest {
    static LiveServer.Settings settings(int workers) {
        return new LiveServer.Settings(Config.defaults("lumen").withWorkers(workers), SimpleCostModel.fastReload(), 0, 300,
                LiveCluster.Options.defaults(), 30_000, null);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledWorkerIsRecoveredAndNoClientSeesIt() throws Exception {
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        ByteArrayOutputStream hist = new ByteArrayOutputStream();
        List<String> detections;
        int requests = 12;
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        try (LiveServer s = LiveServer.start(settings(3), trace, 60_000)) {
            HistoryClient client = new HistoryClient(s.url(), hist, Duration.ofSeconds(60));
            List<Future<Integer>> got = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                int id = i;
                got.add(pool.submit(() -> client.send("r" + id, 32, 96, 1000 + id)));
                Thread.sleep(20);
            }
            Thread.sleep(400);
            client.fault("1");
            s.workers().kill(1);
            for (Future<Integer> f : got) {
                assertThat(f.get(90, TimeUnit.SECONDS)).isEqualTo(96);
            }
            // the requests may all finish before the killed worker is back: wait for its handover
            for (int i = 0; i < 300 && s.cluster().detections().stream().noneMatch(d -> d.startsWith("worker 1 handed over")); i++) {
                Thread.sleep(100);
            }
            detections = s.cluster().detections();
            org.HdrHistogram.Histogram late = s.cluster().lateness();
            System.out.printf("timers late: p50 %d us, p99 %d us, max %d us, %d timers%n", late.getValueAtPercentile(50),
                    late.getValueAtPercentile(99), late.getMaxValue(), late.getTotalCount());
            System.out.printf("calls: p50 %d us, p99 %d us, max %d us, %d calls%n", Remote.CALLS.getValueAtPercentile(50),
                    Remote.CALLS.getValueAtPercentile(99), Remote.CALLS.getMaxValue(), Remote.CALLS.getTotalCount());
        } finally {
            pool.shutdownNow();
        }
        assertThat(detections).as("the gateway detected the killed worker").anyMatch(d -> d.startsWith("worker 1 failed"));
        History h = History.read(new ByteArrayInputStream(hist.toByteArray()), "live.history.jsonl");
        HistoryCheck.Result r = HistoryCheck.check(h, HistoryCheck.Reference.kit(LiveCluster.vocab()), null, true);
        assertThat(r.verdict()).as(r.toString()).isEqualTo(Verdict.ACCEPTED);
        assertThat(r.requests()).isEqualTo(requests);
        ValidationResult v = Validator.validate(new ByteArrayInputStream(trace.toByteArray()), "live.jsonl");
        assertThat(v.verdict()).as("%s %s %s", v.divergence(), v.error(), v.unfinished()).isEqualTo(Verdict.ACCEPTED);
        assertThat(v.byType()).containsKeys("Fail", "Route", "Restart", "FullReady", "StreamPage");
        String text = trace.toString(StandardCharsets.UTF_8);
        assertThat(text).containsPattern("\"type\":\"Fail\",\"t\":[0-9.]+,\"worker\":1,");
        System.out.println("live: " + String.join("; ", detections) + "; " + v.events() + " events, " + v.byType());
    }
}
