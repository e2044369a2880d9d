package lumen.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A client of any OpenAI-compatible endpoint that records what it sent and saw as a client history
 * (docs/history-format.md): a {@code request} record per request, each streamed chunk as it came
 * with the request's id and the client's time, an {@code error} record when the stream fails, and
 * {@code fault} records for faults injected meanwhile. Thread-safe: each request streams on the
 * caller's thread, and records are written whole.
 */
public final class HistoryClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI completions;
    private final OutputStream out;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1).build();
    private final long t0 = System.nanoTime();
    private final Duration timeout;

    /** A client of the endpoint at {@code baseUrl} (http://host:port), recording to {@code out}. */
    public HistoryClient(String baseUrl, OutputStream out, Duration timeout) {
        this.completions = URI.create(baseUrl + "/v1/completions");
        this.out = out;
        this.timeout = timeout;
    }

    /** The client's clock, ms since it was made. */
    public double nowMs() {
        return (System.nanoTime() - t0) / 1e6;
    }

    /**
     * What the probe saw: {@code unfit} null when the first chunk carries the generated token ids in
     * {@code choices[0].token_ids}, else what the endpoint returned instead, in words; {@code text}
     * true when it streamed {@code choices[0].text} without token ids (judged by text under
     * output equivalence).
     */
    public record Probe(String unfit, boolean text) {
        static Probe unfit(String why) {
            return new Probe(why, false);
        }
    }

    /**
     * Before a workload: one small streamed completion (not recorded), read to its end, to see that
     * the endpoint returns what the kit judges.
     */
    public Probe probe() throws InterruptedException {
        try {
            HttpResponse<InputStream> res = post(new int[] {1, 2, 3}, 2, 1);
            try (BufferedReader r = reader(res)) {
                if (res.statusCode() != 200) {
                    return Probe.unfit("it answered a streamed completion of 2 tokens with HTTP " + res.statusCode() + ": "
                            + lumen.trace.Echo.cut(r.lines().reduce("", String::concat)));
                }
                String first = data(r);
                if (first == null || first.equals("[DONE]")) {
                    return Probe.unfit("its stream ended with no data chunk");
                }
                JsonNode chunk;
                try {
                    chunk = JSON.readTree(first);
                } catch (IOException ex) {
                    return Probe.unfit("the first chunk of its stream is not JSON: " + lumen.trace.Echo.cut(first));
                }
                if (chunk.has("error")) {
                    return Probe.unfit("it answered a streamed completion of 2 tokens with an error: " + lumen.trace.Echo.cut(chunk.get("error").toString()));
                }
                // read to its end, so the system finishes the probe as it finishes any request
                for (String d = data(r); d != null && !d.equals("[DONE]"); d = data(r)) {
                    // the rest of the stream is not judged
                }
                JsonNode c = chunk.path("choices").path(0);
                return c.path("token_ids").isArray() ? new Probe(null, false)
                        : new Probe("the first chunk of its stream has no choices[0].token_ids array: " + lumen.trace.Echo.cut(first),
                                c.path("text").isTextual() && c.get("token_ids") == null);
            }
        } catch (IOException ex) {
            return Probe.unfit("a streamed completion of 2 tokens failed: " + ex);
        }
    }

    /**
     * Sends request {@code id}: a prompt of {@code promptTokens} token ids, {@code maxTokens}
     * tokens wanted, the kit's token model's {@code seed}; streams it to its end. Returns the
     * tokens received (also on error).
     */
    public int send(String id, int promptTokens, int maxTokens, long seed) {
        int[] prompt = new int[promptTokens];
        for (int i = 0; i < promptTokens; i++) {
            prompt[i] = (int) Long.remainderUnsigned(seed * 31 + i, 32_000);
        }
        ObjectNode rq = JSON.createObjectNode();
        rq.put("object", "request").put("request", id).put("t", round(nowMs())).put("prompt_tokens", promptTokens)
                .put("max_tokens", maxTokens).put("seed", seed);
        record(rq);
        int got = 0;
        boolean finished = false;
        try {
            HttpResponse<InputStream> res = post(prompt, maxTokens, seed);
            try (BufferedReader r = reader(res)) {
                if (res.statusCode() != 200) {
                    error(id, "HTTP " + res.statusCode() + ": " + r.lines().reduce("", String::concat));
                    return got;
                }
                String data;
                while ((data = data(r)) != null) {
                    if (data.equals("[DONE]")) {
                        return got;
                    }
                    JsonNode chunk = JSON.readTree(data);
                    if (chunk.has("error")) {
                        error(id, chunk.get("error").path("message").asText(chunk.get("error").toString()));
                        continue;
                    }
                    ObjectNode o = (ObjectNode) chunk;
                    o.put("request", id).put("t", round(nowMs()));
                    JsonNode c = o.path("choices").path(0);
                    got += c.has("token_ids") ? c.path("token_ids").size() : c.path("text").asText("").codePointCount(0, c.path("text").asText("").length());
                    finished |= !c.path("finish_reason").isMissingNode() && !c.path("finish_reason").isNull();
                    record(o);
                }
            }
            if (!finished) {
                // a stream that gave its finish and then closed without [DONE] has answered whole: the client has all of it
                error(id, "the stream ended without [DONE]");
            }
        } catch (java.net.http.HttpTimeoutException ex) {
            // the client gave up at its timeout: the system did not finish the request in time, which
            // is not an error the system returned; the request stays open in the history (L1)
        } catch (IOException | RuntimeException ex) {
            error(id, "the connection failed: " + ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            error(id, "interrupted");
        }
        return got;
    }

    /** Streams a completion of {@code maxTokens} tokens for the prompt's token ids, greedy, with the kit's token model's seed. */
    private HttpResponse<InputStream> post(int[] prompt, int maxTokens, long seed) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", Gateway.MODEL);
        var ids = body.putArray("prompt");
        for (int t : prompt) {
            ids.add(t);
        }
        body.put("max_tokens", maxTokens).put("seed", seed).put("stream", true).put("temperature", 0);
        HttpRequest req = HttpRequest.newBuilder(completions).timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        return http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    }

    private static BufferedReader reader(HttpResponse<InputStream> res) {
        return new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8));
    }

    /** The payload of the stream's next {@code data:} line (other lines skipped), or null at its end. */
    private static String data(BufferedReader r) throws IOException {
        String line;
        while ((line = r.readLine()) != null) {
            if (line.startsWith("data:")) {
                return line.substring(5).trim();
            }
        }
        return null;
    }

    /** Records a fault injected now on {@code target} (a worker, a process: free text); returns the time recorded. */
    public double fault(String target) {
        double t = round(nowMs());
        ObjectNode f = JSON.createObjectNode();
        f.put("object", "fault").put("t", t).put("worker", target);
        record(f);
        return t;
    }

    private void error(String id, String message) {
        ObjectNode e = JSON.createObjectNode();
        e.put("object", "error").put("request", id).put("t", round(nowMs())).put("error", message);
        record(e);
    }

    private synchronized void record(JsonNode n) {
        try {
            out.write((JSON.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }
}
