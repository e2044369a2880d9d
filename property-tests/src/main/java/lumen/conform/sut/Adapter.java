package lumen.conform.sut;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.KitTokens;
import lumen.core.Event;
import lumen.runtime.Arrival;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.Fault;
import lumen.runtime.SimpleCostModel;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;
import lumen.trace.TraceWriter;

/**
 * The conformance adapter around the reference runtime: it speaks the kit's adapter protocol
 * (docs/conformance.md) on standard input and output. Commands drive the runtime (init, arrive,
 * fail, restart, advance, quit); the runtime's trace events are written back as they happen,
 * then an ack. With a {@link Bug} it is a mutant implementation.
 */
public final class Adapter {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Bug bug;
    private final PrintStream out;
    private ClusterRuntime rt;
    private Config cfg;
    private ClusterState seen;

    Adapter(Bug bug, OutputStream out) {
        this.bug = bug;
        this.out = new PrintStream(out, false, StandardCharsets.UTF_8);
    }

    /** Serves the protocol until quit or end of input. */
    public static void serve(InputStream in, OutputStream out, Bug bug) throws IOException {
        new Adapter(bug, out).loop(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
    }

    private void loop(BufferedReader in) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            String error = null;
            try {
                JsonNode m = JSON.readTree(line);
                if (!handle(m)) {
                    out.flush();
                    return;
                }
            } catch (IOException | TraceFormatException | RuntimeException ex) {
                error = ex.getMessage() == null ? ex.toString() : ex.getMessage();
            }
            ack(error);
        }
        out.flush();
    }

    private void ack(String error) {
        ObjectNode a = JSON.createObjectNode();
        a.put("type", "ack");
        if (rt != null) {
            a.put("t", rt.now());
            a.put("idle", rt.idle());
        }
        if (error != null) {
            a.put("error", error);
        }
        out.println(a);
        out.flush();
    }

    private static int integer(JsonNode m, String f) {
        JsonNode v = m.get(f);
        if (v == null || !v.canConvertToInt()) {
            throw new IllegalArgumentException("command " + m.path("cmd").asText() + " needs an integer '" + f + "'");
        }
        return v.asInt();
    }

    private boolean handle(JsonNode m) throws IOException, TraceFormatException {
        String cmd = m.path("cmd").asText();
        if (!cmd.equals("init") && !cmd.equals("quit") && rt == null) {
            throw new IllegalStateException("no run: send init first");
        }
        double t = m.path("t").asDouble(rt == null ? 0 : rt.now());
        switch (cmd) {
            case "init" -> init(m);
            case "arrive" -> {
                Arrival a = new Arrival(integer(m, "req"), t, integer(m, "promptLen"), integer(m, "outLen"), m.path("seed").asLong());
                if (bug != null) {
                    bug.arrived(a.id(), a.seed());
                }
                rt.submit(a);
            }
            case "fail" -> rt.inject(new Fault(integer(m, "worker"), t,
                    Fault.Point.valueOf(m.path("point").asText("AT_TIME").toUpperCase(Locale.ROOT).replace('-', '_'))));
            case "pause" -> {
                double forMs = m.path("forMs").asDouble(Double.NaN);
                if (!(forMs > 0) || Double.isInfinite(forMs)) {
                    throw new IllegalArgumentException("command pause needs a number 'forMs' above 0");
                }
                rt.inject(new Fault(integer(m, "worker"), t,
                        Fault.Point.valueOf(m.path("point").asText("AT_TIME").toUpperCase(Locale.ROOT).replace('-', '_')), forMs));
            }
            case "partition" -> {
                double forMs = m.path("forMs").asDouble(Double.NaN);
                if (!(forMs > 0) || Double.isInfinite(forMs)) {
                    throw new IllegalArgumentException("command partition needs a number 'forMs' above 0");
                }
                JsonNode lossy = m.path("lossy");
                if (!lossy.isMissingNode() && !lossy.isBoolean()) {
                    throw new IllegalArgumentException("command partition: 'lossy' is true or false");
                }
                rt.inject(new Fault(integer(m, "worker"), t,
                        Fault.Point.valueOf(m.path("point").asText("AT_TIME").toUpperCase(Locale.ROOT).replace('-', '_')), forMs,
                        lossy.asBoolean(false) ? Fault.Partition.LOST : Fault.Partition.DELAYED));
            }
            case "restart" -> rt.restartWorker(integer(m, "worker"));
            case "advance" -> rt.advanceTo(t);
            case "quit" -> {
                return false;
            }
            default -> throw new IllegalArgumentException("unknown command '" + cmd + "'");
        }
        return true;
    }

    private void init(JsonNode m) throws IOException, TraceFormatException {
        String header = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"config\":" + m.get("config") + "}\n";
        cfg = new TraceReader(new ByteArrayInputStream(header.getBytes(StandardCharsets.UTF_8)), "init").config();
        Config run = Bug.running(bug, cfg);
        ClusterRuntime.Options opt = ClusterRuntime.Options.defaults(cfg.pageTokens()).withDraftAgreement(m.path("draftAgreement").asDouble(0.7))
                .withVocab(m.path("tokenModel").path("vocab").asInt(KitTokens.VOCAB));
        if (bug != null) {
            bug.reset();
            opt = bug.options(opt);
        }
        seen = ClusterState.initial(cfg);
        rt = new ClusterRuntime(run, Bug.deciding(bug, run), SimpleCostModel.fastReload(), opt, this::emit).withExternalRestarts();
    }

    private void emit(Event e, double t) {
        ClusterState before = seen;
        seen = rt.state();
        for (Event shown : bug == null ? java.util.List.of(e) : bug.rewriteAll(before, e, cfg)) {
            out.println(line(shown, t, before, bug, cfg));
        }
    }

    /**
     * One reported event as its trace line, time rounded to microseconds; a placement cites the
     * reservations it decided on (Eq. 5), one per worker, which S15 checks; under citedLoads=stale a
     * decision on the monitor's loads cites them ({@code before} is the runtime's state, monitor included).
     */
    public static String line(Event shown, double t, ClusterState before, Bug bug, Config cfg) {
        return line(shown, t, before, before, bug, cfg);
    }

    /** As {@link #line(Event, double, ClusterState, Bug, Config)}, the loads cited from the runtime's state {@code monitor}. */
    public static String line(Event shown, double t, ClusterState before, ClusterState monitor, Bug bug, Config cfg) {
        String line = TraceWriter.toJson(shown, Math.round(t * 1000) / 1000.0);
        double[] loads = monitor.citedFor(shown);
        if (loads != null) {
            line = line.substring(0, line.length() - 1) + ",\"loads\":" + TraceWriter.numbers(loads) + "}";
        }
        if (shown instanceof Event.Place) {
            long[] reserved = bug == null ? reservations(before) : bug.citedReservations(before, cfg);
            line = line.substring(0, line.length() - 1) + ",\"reserved\":" + java.util.Arrays.toString(reserved).replace(" ", "") + "}";
        }
        return line;
    }

    /** Each worker's reserved positions, as the gateway's counters have them. */
    static long[] reservations(ClusterState s) {
        long[] out = new long[s.workerCount()];
        for (int w = 0; w < out.length; w++) {
            out[w] = s.worker(w).reserved();
        }
        return out;
    }

    /** The reference adapter: the reference runtime, no bug. */
    public static void main(String[] args) throws IOException {
        serve(System.in, System.out, null);
    }
}
