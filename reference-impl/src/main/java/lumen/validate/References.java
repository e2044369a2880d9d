package lumen.validate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lumen.core.Event;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;

/**
 * The kit's own reference outputs, read from a file for {@code lumen validate --reference}: a
 * failure-free trace of the same workload (each request's output is its Prefill's and Decodes'
 * tokens, in order), or a token history (format {@code lumen-tokens}: a header line, then one
 * {@code {"req":R,"tokens":[...]}} line per request). Either way every request the trace
 * validated names must have one, and the trace is then judged against it, not against its own
 * {@code Arrive.ref}.
 */
public final class References {
    /** The token history's header {@code format}. */
    public static final String TOKENS_FORMAT = "lumen-tokens";

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

    private References() {}

    /** Each request's reference output in {@code in}; a located error when it is neither a failure-free trace nor a token history. */
    public static Map<Integer, int[]> read(InputStream in, String source) throws IOException, TraceFormatException {
        byte[] all = in.readAllBytes();
        String first = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(all), StandardCharsets.UTF_8)).readLine();
        JsonNode h;
        try {
            h = first == null ? null : JSON.readTree(first);
        } catch (IOException ex) {
            throw new TraceFormatException(source, 1, "a reference is a failure-free trace or a token history; line 1 is not JSON");
        }
        if (h != null && TOKENS_FORMAT.equals(h.path("format").asText())) {
            return tokens(all, source);
        }
        return fromTrace(new ByteArrayInputStream(all), source);
    }

    /** Each request's output in a failure-free trace: its Prefill's and Decodes' tokens, in order. */
    public static Map<Integer, int[]> fromTrace(InputStream in, String source) throws IOException, TraceFormatException {
        Map<Integer, List<Integer>> out = new HashMap<>();
        try (TraceReader r = new TraceReader(in, source)) {
            Event e;
            while ((e = r.next()) != null) {
                if (e instanceof Event.Fail) {
                    throw new TraceFormatException(source, r.line(), "the reference trace has a Fail: a reference is a failure-free run");
                }
                int[] toks = e instanceof Event.Prefill p ? p.tokens() : e instanceof Event.Decode d ? d.tokens() : null;
                if (toks != null) {
                    List<Integer> l = out.computeIfAbsent(e.req(), k -> new ArrayList<>());
                    for (int t : toks) {
                        l.add(t);
                    }
                }
            }
        }
        Map<Integer, int[]> m = new HashMap<>();
        out.forEach((k, v) -> m.put(k, v.stream().mapToInt(Integer::intValue).toArray()));
        return m;
    }

    private static Map<Integer, int[]> tokens(byte[] all, String source) throws IOException, TraceFormatException {
        Map<Integer, int[]> m = new HashMap<>();
        List<String> lines = new String(all, StandardCharsets.UTF_8).lines().toList();
        for (int i = 1; i < lines.size(); i++) {
            long line = i + 1;
            JsonNode n;
            try {
                n = JSON.readTree(lines.get(i));
            } catch (IOException ex) {
                throw new TraceFormatException(source, line, "not valid JSON");
            }
            if (n == null || !n.path("req").canConvertToInt() || !n.path("tokens").isArray() || n.size() != 2) {
                throw new TraceFormatException(source, line, "a token history line is {\"req\":R,\"tokens\":[...]}");
            }
            int[] toks = new int[n.get("tokens").size()];
            for (int j = 0; j < toks.length; j++) {
                JsonNode t = n.get("tokens").get(j);
                if (!t.isInt() || t.asInt() < 0) {
                    throw new TraceFormatException(source, line, "tokens are integers >= 0");
                }
                toks[j] = t.asInt();
            }
            if (toks.length == 0) {
                throw new TraceFormatException(source, line, "a request's reference output holds at least one token");
            }
            if (m.put(n.get("req").asInt(), toks) != null) {
                throw new TraceFormatException(source, line, "request " + n.get("req").asInt() + " has two reference outputs");
            }
        }
        return m;
    }
}
