package lumen.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An endpoint that streams text without token ids cannot be judged: the drill says so before its
 * workload starts, in words that say what to change. (It once ran the whole workload and then
 * ended in a stack trace that blamed the kit's own recorder.)
 */
class LiveConformProbeTest {

    /** A completions endpoint that streams what {@code chunk} gives, then [DONE]; counts its requests. */
    static HttpServer endpoint(String chunk, AtomicInteger calls) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/v1/completions", ex -> {
            calls.incrementAndGet();
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(("data: " + chunk + "\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        s.start();
        return s;
    }

    @Test
    void aTextOnlyEndpointIsRefusedBeforeTheWorkload(@TempDir Path dir) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpServer s = endpoint("{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" the\"}]}", calls);
        try {
            String url = "http://127.0.0.1:" + s.getAddress().getPort();
            LiveConform.Options o = new LiveConform.Options(url, "conv", 4.0, 2_000, 64, 16, 3, List.of(new LiveConform.Fault(500, 1)),
                    "exit 7", null, 0, 10_000, dir.resolve("h.jsonl"), null);
            assertThatExceptionOfType(LiveConform.EndpointUnfit.class).isThrownBy(() -> LiveConform.run(o, new java.io.PrintWriter(System.out, true)))
                    .withMessageContaining("cannot be judged").withMessageContaining("no choices[0].token_ids array")
                    .withMessageContaining("\"text\":\" the\"").withMessageContaining("return_token_ids")
                    .withMessageContaining("Nothing was sent to the workload");
            assertThat(calls).as("only the probe reached the endpoint").hasValue(1);
            assertThat(dir.resolve("h.jsonl")).doesNotExist();
        } finally {
            s.stop(0);
        }
    }

    @Test
    void anEndpointThatStreamsTokenIdsPassesTheProbe() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpServer s = endpoint("{\"choices\":[{\"index\":0,\"text\":\" the\",\"token_ids\":[279]}]}", calls);
        try {
            HistoryClient c = new HistoryClient("http://127.0.0.1:" + s.getAddress().getPort(), OutputStream.nullOutputStream(),
                    java.time.Duration.ofSeconds(5));
            assertThat(c.probe()).isNull();
            HttpServer err = endpoint("{\"error\":{\"message\":\"model not loaded\"}}", calls);
            try {
                assertThat(new HistoryClient("http://127.0.0.1:" + err.getAddress().getPort(), OutputStream.nullOutputStream(),
                        java.time.Duration.ofSeconds(5)).probe()).contains("with an error").contains("model not loaded");
            } finally {
                err.stop(0);
            }
        } finally {
            s.stop(0);
        }
    }
}
