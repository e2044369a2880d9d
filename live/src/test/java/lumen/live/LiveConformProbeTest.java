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
            assertThat(c.probe().unfit()).isNull();
            HttpServer err = endpoint("{\"error\":{\"message\":\"model not loaded\"}}", calls);
            try {
                assertThat(new HistoryClient("http://127.0.0.1:" + err.getAddress().getPort(), OutputStream.nullOutputStream(),
                        java.time.Duration.ofSeconds(5)).probe().unfit()).contains("with an error").contains("model not loaded");
            } finally {
                err.stop(0);
            }
        } finally {
            s.stop(0);
        }
    }
    /**
     * A deterministic text-only model: each request streams {@code max_tokens} chunks of text (a
     * word from its seed and position) and a finish, with no token ids. Once {@code after} exists
     * (the drill's fault command creates it), a buggy one sends each stream's second chunk twice,
     * as a resume one position too early would; one that fails sends its first request an error.
     */
    static HttpServer textModel(boolean buggy, Path after, boolean failFirst) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        AtomicInteger n = new AtomicInteger();
        s.createContext("/v1/completions", ex -> {
            var body = json.readTree(ex.getRequestBody().readAllBytes());
            int max = body.path("max_tokens").asInt();
            long seed = body.path("seed").asLong();
            boolean repeat = buggy && java.nio.file.Files.exists(after);
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            try (OutputStream os = ex.getResponseBody()) {
                StringBuilder b = new StringBuilder();
                if (failFirst && n.getAndIncrement() == 1) {
                    b.append("data: {\"error\":{\"message\":\"out of memory\"}}\n\n");
                }
                for (int i = 0; i < max; i++) {
                    String chunk = "{\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w" + Long.remainderUnsigned(seed * 31 + i, 997)
                            + "\",\"finish_reason\":" + (i == max - 1 ? "\"length\"" : "null") + "}]}";
                    b.append("data: ").append(chunk).append("\n\n");
                    if (repeat && i == 1 && max > 2) {
                        b.append("data: ").append(chunk).append("\n\n");
                    }
                }
                b.append("data: [DONE]\n\n");
                os.write(b.toString().getBytes(StandardCharsets.UTF_8));
            }
        });
        s.start();
        return s;
    }

    static LiveConform.Options textOptions(HttpServer s, Path dir, Path marker) {
        return new LiveConform.Options("http://127.0.0.1:" + s.getAddress().getPort(), "conv", 4.0, 2_000, 32, 12, 3,
                List.of(new LiveConform.Fault(300, 1)), "touch '" + marker + "'", null, 0, 10_000, dir.resolve("h.jsonl"), null);
    }

    /**
     * Under --reference equivalence a text-only endpoint is judged: the workload runs first with no
     * fault, then with the faults, and each request's text must equal its failure-free text. (Such
     * an endpoint was refused outright before; a correct one passes, one that repeats a chunk after
     * the fault is caught as S16, judged by text.)
     */
    @Test
    void aTextOnlyEndpointIsJudgedByOutputEquivalence(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("faulted");
        HttpServer good = textModel(false, marker, false);
        try {
            LiveConform.Result r = LiveConform.run(textOptions(good, dir, marker).withEquivalence(true), new java.io.PrintWriter(System.out, true));
            assertThat(r.history().verdict()).as(String.valueOf(r.history().finding())).isEqualTo(lumen.validate.Verdict.ACCEPTED);
            assertThat(r.history().reference()).contains("h.failure-free.jsonl").contains(lumen.history.HistoryCheck.BY_TEXT);
            assertThat(dir.resolve("h.failure-free.jsonl")).exists();
            assertThat(r.faultsNotDone()).isEmpty();
            assertThat(r.passed()).isTrue();
            // without equivalence the same endpoint is still refused, and the message says what judges it
            assertThatExceptionOfType(LiveConform.EndpointUnfit.class).isThrownBy(() -> LiveConform.run(textOptions(good, dir, marker),
                    new java.io.PrintWriter(System.out, true))).withMessageContaining("--reference equivalence");
        } finally {
            good.stop(0);
        }
        java.nio.file.Files.deleteIfExists(marker);
        HttpServer bad = textModel(true, marker, false);
        try {
            LiveConform.Result r = LiveConform.run(textOptions(bad, dir, marker).withEquivalence(true), new java.io.PrintWriter(System.out, true));
            assertThat(r.history().verdict()).isEqualTo(lumen.validate.Verdict.REJECTED);
            assertThat(r.history().finding().property()).isEqualTo(lumen.core.PropertyId.S16);
            assertThat(r.history().finding().message()).contains("judged by text");
            assertThat(r.passed()).isFalse();
        } finally {
            bad.stop(0);
        }
    }

    /** A failure-free run that does not finish every request whole is no reference: the drill says so and injects nothing. */
    @Test
    void aFailureFreeRunThatFailsLeavesTheDrillNotJudged(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("faulted");
        HttpServer s = textModel(false, marker, true);
        try {
            assertThatExceptionOfType(LiveConform.BaselineUnfit.class).isThrownBy(() -> LiveConform.run(textOptions(s, dir, marker)
                    .withEquivalence(true), new java.io.PrintWriter(System.out, true))).withMessageContaining("did not finish every request")
                    .withMessageContaining("out of memory").withMessageContaining("no fault was injected");
            assertThat(marker).doesNotExist();
        } finally {
            s.stop(0);
        }
    }
}
