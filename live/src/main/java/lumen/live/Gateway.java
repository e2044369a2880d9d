package lumen.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The gateway's OpenAI-compatible endpoint (docs/serve.md) on Jetty: {@code POST /v1/completions},
 * streamed as server-sent events when {@code stream} is true, each chunk with the tokens' ids
 * ({@code token_ids}) besides their text; {@code GET /v1/models}; {@code GET /health}. A request
 * is served by the {@link LiveCluster}, on the kit's token model: its output is a function of its
 * {@code seed} and {@code max_tokens}, so a client can tell a right answer from a wrong one.
 */
public final class Gateway implements AutoCloseable {
    /** The most tokens a prompt or an answer may have. */
    static final int MAX_TOKENS = 1 << 16;
    static final String MODEL = "lumen-reference";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LiveCluster cluster;
    private final Server server;
    private final long requestTimeoutMs;
    private final OutputStream history;

    /** Appends one record to the history, if any. */
    private void record(ObjectNode n) throws IOException {
        if (history == null) {
            return;
        }
        n.put("t", Math.round(cluster.nowMs() * 1000) / 1000.0);
        byte[] line = (JSON.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (history) {
            history.write(line);
            history.flush();
        }
    }

    public Gateway(LiveCluster cluster, String host, int port, long requestTimeoutMs) throws Exception {
        this(cluster, host, port, requestTimeoutMs, null);
    }

    /**
     * The same, recording what it answers as a client history (docs/history-format.md) to
     * {@code history} (null: none): the server's side of every client's view, times on the
     * cluster's clock, requests by their id in the trace.
     */
    public Gateway(LiveCluster cluster, String host, int port, long requestTimeoutMs, OutputStream history) throws Exception {
        this.history = history;
        this.cluster = cluster;
        this.requestTimeoutMs = requestTimeoutMs;
        QueuedThreadPool pool = new QueuedThreadPool(256, 8);
        pool.setName("lumen-gateway-http");
        pool.setDaemon(true);
        this.server = new Server(pool);
        ServerConnector c = new ServerConnector(server);
        c.setHost(host);
        c.setPort(port);
        server.addConnector(c);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                try {
                    route(request, response);
                    callback.succeeded();
                } catch (Throwable ex) {
                    if (response.isCommitted()) {
                        callback.failed(ex);
                        return true;
                    }
                    // a bug of the endpoint, still answered as the API answers: JSON, never an HTML page
                    try {
                        error(response, 500, "the endpoint failed: " + ex);
                        callback.succeeded();
                    } catch (Throwable again) {
                        callback.failed(ex);
                    }
                }
                return true;
            }
        });
        server.start();
    }

    /** The port the endpoint listens on. */
    public int port() {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    private void route(Request req, Response res) throws IOException {
        String path = Request.getPathInContext(req);
        String method = req.getMethod();
        if (path.equals("/health") && method.equals("GET")) {
            // each worker's state and load: what a drill aiming a fault at a busy worker reads
            StringBuilder b = new StringBuilder("{\"status\":\"ok\",\"workers\":[");
            List<int[]> ws;
            try {
                ws = cluster.serving(2_000);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                ws = List.of();
            }
            for (int i = 0; i < ws.size(); i++) {
                int[] w = ws.get(i);
                b.append(i == 0 ? "" : ",").append("{\"worker\":").append(w[0]).append(",\"up\":").append(w[1] == 1)
                        .append(",\"serving\":").append(w[2]).append('}');
            }
            send(res, 200, "application/json", b.append("]}").toString());
        } else if (path.equals("/v1/models") && method.equals("GET")) {
            send(res, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"id\":\"" + MODEL + "\",\"object\":\"model\",\"owned_by\":\"lumen\"}]}");
        } else if (path.equals("/v1/completions") && method.equals("POST")) {
            completions(req, res);
        } else if ((path.equals("/admin/partition") || path.equals("/admin/degrade") || path.equals("/admin/heal")) && method.equals("POST")) {
            admin(path.substring("/admin/".length()), req.getHttpURI().getQuery(), res);
        } else {
            error(res, 404, "no route " + method + " " + path + " (POST /v1/completions, GET /v1/models, GET /health"
                    + (links != null ? ", POST /admin/partition, POST /admin/degrade, POST /admin/heal" : "") + ")");
        }
    }

    /** How a drill outside cuts a worker off from the gateway and joins it again (a server started with links). */
    public interface Links {
        /**
         * Cuts worker w's link to the gateway ({@code peer} -1) or to worker {@code peer} (the pages
         * each streams to the other) for {@code ms}, delaying or {@code lossy}; it heals on its own then.
         */
        void partition(int w, int peer, long ms, boolean lossy);

        /** Degrades that link for {@code ms}: each chunk delayed {@code delayMs}, and lost with probability {@code lossPercent}/100. */
        void degrade(int w, int peer, long delayMs, double lossPercent, long ms);

        /** Heals that link now. */
        void heal(int w, int peer);
    }

    private volatile Links links;

    /** Takes {@code POST /admin/partition} and {@code /admin/heal} through {@code l}. */
    void links(Links l) {
        links = l;
    }

    /** The longest partition the endpoint makes, ms: every fault is bounded in time. */
    static final long MAX_PARTITION_MS = 600_000;

    /**
     * {@code POST /admin/partition?worker=W&ms=MS[&lossy=true]} cuts worker W off from the gateway
     * for MS ms (1 to {@link #MAX_PARTITION_MS}), healing on its own then; with {@code &peer=P}, it
     * cuts workers W and P off from each other instead (the pages each streams to the other as its
     * holder). {@code POST /admin/degrade?worker=W[&peer=P]&ms=MS&delay=D&loss=L} degrades that link
     * instead for MS ms: each chunk delayed D ms, and lost (its connection reset) with L percent
     * chance. {@code POST /admin/heal?worker=W[&peer=P]} heals it now. 409 when the server dials
     * its workers directly.
     */
    private void admin(String what, String query, Response res) throws IOException {
        Links l = links;
        if (l == null) {
            error(res, 409, "this server's gateway dials its workers directly: start lumen serve with --links to cut a link");
            return;
        }
        java.util.Map<String, String> q = new java.util.HashMap<>();
        for (String kv : query == null ? new String[0] : query.split("&")) {
            int eq = kv.indexOf('=');
            q.put(java.net.URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8),
                    eq < 0 ? "" : java.net.URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
        int workers = cluster.config().workers();
        String w = q.getOrDefault("worker", "");
        if (!w.matches("[0-9]{1,4}") || Integer.parseInt(w) >= workers) {
            error(res, 400, "worker: a worker of this server, 0 to " + (workers - 1) + ", found '" + w + "'");
            return;
        }
        int worker = Integer.parseInt(w);
        String p = q.getOrDefault("peer", "-1");
        if (!p.matches("-1|[0-9]{1,4}") || Integer.parseInt(p) >= workers || Integer.parseInt(p) == worker) {
            error(res, 400, "peer: another worker of this server, 0 to " + (workers - 1) + " (the link between the two), or none (the"
                    + " worker's link to the gateway), found '" + p + "'");
            return;
        }
        int peer = Integer.parseInt(p);
        String link = peer < 0 ? "" : ",\"peer\":" + peer;
        if (what.equals("heal")) {
            l.heal(worker, peer);
            send(res, 200, "application/json", "{\"worker\":" + worker + link + ",\"healed\":true}");
            return;
        }
        String ms = q.getOrDefault("ms", "");
        String lossy = q.getOrDefault("lossy", "false");
        if (!ms.matches("[0-9]{1,9}") || Long.parseLong(ms) < 1 || Long.parseLong(ms) > MAX_PARTITION_MS) {
            error(res, 400, "ms: the " + (what.equals("degrade") ? "degradation" : "partition") + "'s length, 1 to " + MAX_PARTITION_MS
                    + ", found '" + ms + "'");
            return;
        }
        if (what.equals("degrade")) {
            String delay = q.getOrDefault("delay", "0");
            String loss = q.getOrDefault("loss", "0");
            if (!delay.matches("[0-9]{1,6}") || Long.parseLong(delay) > MAX_PARTITION_MS) {
                error(res, 400, "delay: each chunk's delay, ms, 0 to " + MAX_PARTITION_MS + ", found '" + delay + "'");
                return;
            }
            if (!loss.matches("[0-9]{1,3}(\\.[0-9]{1,3})?") || Double.parseDouble(loss) > 100) {
                error(res, 400, "loss: the percentage of chunks lost (each resets its connection), 0 to 100, found '" + loss + "'");
                return;
            }
            l.degrade(worker, peer, Long.parseLong(delay), Double.parseDouble(loss), Long.parseLong(ms));
            send(res, 200, "application/json", "{\"worker\":" + worker + link + ",\"ms\":" + ms + ",\"delay\":" + delay + ",\"loss\":" + loss + "}");
            return;
        }
        if (!lossy.equals("true") && !lossy.equals("false")) {
            error(res, 400, "lossy: true or false, found '" + lossy + "'");
            return;
        }
        l.partition(worker, peer, Long.parseLong(ms), lossy.equals("true"));
        send(res, 200, "application/json", "{\"worker\":" + worker + link + ",\"ms\":" + ms + ",\"lossy\":" + lossy + "}");
    }

    /** A request the endpoint accepts: its prompt's length in tokens, its output length, its seed, whether streamed. */
    record Ask(int promptTokens, int maxTokens, long seed, boolean stream) {}

    /** Reads a completion request; a message naming the field when it cannot be served. */
    static Ask parse(String body) throws BadRequest {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new BadRequest("the body is not JSON: " + ex.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new BadRequest("the body must be a JSON object");
        }
        JsonNode p = n.get("prompt");
        int promptTokens;
        long hash;
        if (p != null && p.isArray()) {
            promptTokens = p.size();
            hash = 17;
            for (JsonNode t : p) {
                if (!t.canConvertToInt() || t.asInt() < 0 || !t.isIntegralNumber()) {
                    throw new BadRequest("prompt: a token id must be a non-negative integer, not " + t);
                }
                hash = hash * 31 + t.asInt();
            }
        } else if (p != null && p.isTextual()) {
            String s = p.asText().trim();
            promptTokens = s.isEmpty() ? 0 : s.split("\\s+").length;
            hash = s.hashCode();
        } else {
            throw new BadRequest("prompt: required, a string or an array of token ids");
        }
        if (promptTokens < 1 || promptTokens > MAX_TOKENS) {
            throw new BadRequest("prompt: " + promptTokens + " tokens; 1 to " + MAX_TOKENS + " are served");
        }
        JsonNode m = n.get("max_tokens");
        int maxTokens = 16;
        if (m != null && !m.isNull()) {
            if (!m.isIntegralNumber() || m.asLong() < 1 || m.asLong() > MAX_TOKENS) {
                throw new BadRequest("max_tokens: an integer from 1 to " + MAX_TOKENS + ", not " + m);
            }
            maxTokens = m.asInt();
        }
        JsonNode sd = n.get("seed");
        long seed;
        if (sd != null && !sd.isNull()) {
            if (!sd.isIntegralNumber() || !sd.canConvertToLong()) {
                throw new BadRequest("seed: an integer, not " + sd);
            }
            seed = sd.asLong();
        } else {
            seed = hash & Long.MAX_VALUE;
        }
        JsonNode st = n.get("stream");
        if (st != null && !st.isNull() && !st.isBoolean()) {
            throw new BadRequest("stream: true or false, not " + st);
        }
        return new Ask(promptTokens, maxTokens, seed, st != null && st.asBoolean());
    }

    /** The body as UTF-8, strictly: a malformed byte is the client's error, named with its offset. */
    static String utf8(java.nio.ByteBuffer body) throws BadRequest {
        try {
            return lumen.trace.Utf8.strict(body);
        } catch (lumen.trace.Utf8.Malformed ex) {
            throw new BadRequest("the body is not UTF-8: " + ex.getMessage());
        }
    }

    static final class BadRequest extends Exception {
        BadRequest(String m) {
            super(m, null, false, false);
        }
    }

    private void completions(Request req, Response res) throws IOException {
        Ask ask;
        try {
            ask = parse(utf8(Content.Source.asByteBuffer(req)));
        } catch (BadRequest ex) {
            error(res, 400, ex.getMessage());
            return;
        }
        LiveCluster.Admitted a = cluster.submit(ask.promptTokens(), ask.maxTokens(), ask.seed());
        long created = System.currentTimeMillis() / 1000;
        String id = "cmpl-" + a.id();
        String rid = Integer.toString(a.id());
        ObjectNode sentReq = JSON.createObjectNode();
        sentReq.put("object", "request").put("request", rid).put("prompt_tokens", ask.promptTokens()).put("max_tokens", ask.maxTokens())
                .put("seed", ask.seed());
        record(sentReq);
        res.getHeaders().put("X-Lumen-Request", Integer.toString(a.id()));
        if (!ask.stream()) {
            ArrayNode all = JSON.createArrayNode();
            String err = drain(a, ask.maxTokens(), toks -> {
                for (int t : toks) {
                    all.add(t);
                }
            });
            if (err != null) {
                recordError(rid, err);
                error(res, 503, err);
                return;
            }
            ObjectNode out = chunk(id, created, all, "length");
            record(out.deepCopy().put("request", rid));
            out.putObject("usage").put("prompt_tokens", ask.promptTokens()).put("completion_tokens", all.size())
                    .put("total_tokens", ask.promptTokens() + all.size());
            send(res, 200, "application/json", JSON.writeValueAsString(out));
            return;
        }
        res.setStatus(200);
        res.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        res.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        OutputStream os = Content.Sink.asOutputStream(res);
        int[] sent = {0};
        String err = drain(a, ask.maxTokens(), toks -> {
            ArrayNode ids = JSON.createArrayNode();
            for (int t : toks) {
                ids.add(t);
            }
            sent[0] += toks.length;
            ObjectNode c = chunk(id, created, ids, sent[0] >= ask.maxTokens() ? "length" : null);
            event(os, JSON.writeValueAsString(c));
            record(c.deepCopy().put("request", rid));
        });
        if (err != null) {
            recordError(rid, err);
            ObjectNode e = JSON.createObjectNode();
            e.putObject("error").put("message", err).put("type", "server_error");
            event(os, JSON.writeValueAsString(e));
        }
        event(os, "[DONE]");
        os.close();
    }

    private void recordError(String rid, String err) throws IOException {
        ObjectNode e = JSON.createObjectNode();
        e.put("object", "error").put("request", rid).put("error", err);
        record(e);
    }

    private interface Tokens {
        void accept(int[] toks) throws IOException;
    }

    /** Hands each chunk of a's tokens to {@code out} until all {@code n} have come; an error message, or null. */
    private String drain(LiveCluster.Admitted a, int n, Tokens out) throws IOException {
        int got = 0;
        while (got < n) {
            int[] toks;
            try {
                toks = a.tokens().poll(requestTimeoutMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
            if (toks == null) {
                return "no token for " + requestTimeoutMs + " ms";
            }
            if (toks == LiveCluster.END) {
                return "the request ended after " + got + " of " + n + " tokens";
            }
            got += toks.length;
            out.accept(toks);
        }
        return null;
    }

    private static ObjectNode chunk(String id, long created, ArrayNode ids, String finish) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", id).put("object", "text_completion").put("created", created).put("model", MODEL);
        ObjectNode c = o.putArray("choices").addObject();
        StringBuilder text = new StringBuilder();
        for (JsonNode t : ids) {
            text.append(' ').append(t.asInt());
        }
        c.put("index", 0).put("text", text.toString());
        c.set("token_ids", ids);
        c.putNull("logprobs");
        if (finish == null) {
            c.putNull("finish_reason");
        } else {
            c.put("finish_reason", finish);
        }
        return o;
    }

    private static void event(OutputStream os, String data) throws IOException {
        os.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        os.flush();
    }

    private static void send(Response res, int status, String type, String body) throws IOException {
        res.setStatus(status);
        res.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        try (OutputStream os = Content.Sink.asOutputStream(res)) {
            os.write(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void error(Response res, int status, String message) throws IOException {
        ObjectNode e = JSON.createObjectNode();
        e.putObject("error").put("message", message).put("type", status < 500 ? "invalid_request_error" : "server_error");
        send(res, status, "application/json", JSON.writeValueAsString(e));
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
