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

    /**
     * A slow worker: stopped (SIGSTOP) for longer than the heartbeat timeout, then resumed. The
     * gateway fails it while it lives; when it answers again with its old memories it is reset and
     * rejoins as new, and again no client sees anything.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aStalledWorkerIsFailedResetAndRejoins() throws Exception {
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        ByteArrayOutputStream hist = new ByteArrayOutputStream();
        List<String> detections;
        int requests = 9;
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        try (LiveServer s = LiveServer.start(settings(3), trace, 60_000)) {
            HistoryClient client = new HistoryClient(s.url(), hist, Duration.ofSeconds(60));
            List<Future<Integer>> got = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                int id = i;
                got.add(pool.submit(() -> client.send("s" + id, 32, 128, 2000 + id)));
                Thread.sleep(20);
            }
            Thread.sleep(300);
            String pid = Long.toString(s.workers().pid(2));
            client.fault("2 (stopped)");
            assertThat(new ProcessBuilder("kill", "-STOP", pid).start().waitFor()).isZero();
            Thread.sleep(1_500);
            assertThat(new ProcessBuilder("kill", "-CONT", pid).start().waitFor()).isZero();
            for (Future<Integer> f : got) {
                assertThat(f.get(90, TimeUnit.SECONDS)).isEqualTo(128);
            }
            for (int i = 0; i < 300 && s.cluster().detections().stream().noneMatch(d -> d.startsWith("worker 2 handed over")); i++) {
                Thread.sleep(100);
            }
            detections = s.cluster().detections();
            assertThat(s.workers().pid(2)).as("the same process, never restarted").isEqualTo(Long.parseLong(pid));
        } finally {
            pool.shutdownNow();
        }
        System.out.println("stalled: " + String.join("; ", detections));
        assertThat(detections).anyMatch(d -> d.startsWith("worker 2 failed"));
        assertThat(detections).anyMatch(d -> d.startsWith("worker 2 answered again"));
        assertThat(detections).anyMatch(d -> d.startsWith("worker 2 handed over"));
        History h = History.read(new ByteArrayInputStream(hist.toByteArray()), "stalled.history.jsonl");
        HistoryCheck.Result r = HistoryCheck.check(h, HistoryCheck.Reference.kit(LiveCluster.vocab()), null, true);
        assertThat(r.verdict()).as(r.toString()).isEqualTo(Verdict.ACCEPTED);
        ValidationResult v = Validator.validate(new ByteArrayInputStream(trace.toByteArray()), "stalled.jsonl");
        assertThat(v.verdict()).as("%s %s %s", v.divergence(), v.error(), v.unfinished()).isEqualTo(Verdict.ACCEPTED);
        assertThat(v.byType()).containsKeys("Fail", "Restart", "FullReady");
    }
}
