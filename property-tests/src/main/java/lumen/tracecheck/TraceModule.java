package lumen.tracecheck;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Readings;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;
import lumen.validate.Validator;

/**
 * Generates the trace-checking module for one trace: a TLA+ module that EXTENDS
 * {@code spec/TraceLumen.tla} and defines the trace's events as records ({@code TraceLog}) and
 * the constants its header and Arrive events fix, plus the TLC config that binds them.
 *
 * <p>The trace is read with the same reader and the same "every named request has arrived"
 * rule as the Java mirror. A line that is not valid trace syntax ends the log there and is kept
 * as {@link Generated#malformed()}: the verdict is then REJECTED if TLC rejects an earlier event
 * and MALFORMED otherwise, the order in which the mirror finds them.
 */
public final class TraceModule {
    /** The module every generated one extends. */
    public static final String BASE = "TraceLumen";

    /** A trace the TLC path cannot check; the Java mirror still can. */
    public static final class Unsupported extends Exception {
        public Unsupported(String message) {
            super(message);
        }
    }

    /**
     * A generated module.
     *
     * @param lines     lines[i] is the trace line of TraceLog[i + 1]
     * @param malformed the first syntax error after the last event of the log, or null
     */
    public record Generated(String name, String tla, String cfg, Config config, long[] lines, TraceFormatException malformed) {
        public int events() {
            return lines.length;
        }
    }

    private TraceModule() {}

    /** The spec's Policy for a trace policy, or null when the spec does not name it. */
    static String specPolicy(String policy) {
        return switch (policy) {
            case "lumen" -> "LUMEN";
            case "lumen-dual" -> "DUAL";
            case "fixed-checkpointing" -> "FC";
            case "stop-and-restart" -> "SR";
            case "lumen-no-placement" -> "NO_PLACEMENT";
            case "lumen-no-routing" -> "NO_ROUTING";
            case "lumen-no-assist" -> "NO_ASSIST";
            case "lumen-placement-only" -> "PLACEMENT_ONLY";
            case "lumen-routing-only" -> "ROUTING_ONLY";
            case "lumen-assist-only" -> "ASSIST_ONLY";
            default -> null;
        };
    }

    public static Generated generate(InputStream in, String source, String name) throws IOException, Unsupported {
        return generate(in, source, name, BASE, List.of(), lumen.validate.Validator.Options.defaults());
    }

    public static Generated generate(InputStream in, String source, String name, String base, List<String> overrides)
            throws IOException, Unsupported {
        return generate(in, source, name, base, overrides, lumen.validate.Validator.Options.defaults());
    }

    /**
     * As {@link #generate(InputStream, String, String)}, extending {@code base} (a module that
     * EXTENDS TraceLumen) and adding {@code overrides} to the config; the differential tests seed
     * bugs in the TLC path this way.
     */
    public static Generated generate(InputStream in, String source, String name, String base, List<String> overrides,
                                     lumen.validate.Validator.Options opt) throws IOException, Unsupported {
        TraceReader reader;
        try {
            reader = new TraceReader(in, source);
        } catch (TraceFormatException ex) {
            return new Generated(name, null, null, null, new long[0], ex);
        }
        // a partial trace's declaration turns TraceLumen's hidden steps on; its composed lines come as their steps
        lumen.trace.Observation obs = reader.observation();
        Config c = reader.config();
        String policy = specPolicy(c.policy());
        if (policy == null) {
            throw new Unsupported("policy '" + c.policy() + "' is not one the spec's Policy names");
        }
        if (!integral(c.alpha()) || !integral(c.beta()) || c.alpha() < 0 || c.beta() < 0 || c.theta() < 0) {
            throw new Unsupported("TLC has no reals: alpha and beta must be whole numbers and theta non-negative (alpha "
                    + c.alpha() + ", beta " + c.beta() + ", theta " + c.theta() + ")");
        }
        if (c.alpha() > Integer.MAX_VALUE || c.beta() > Integer.MAX_VALUE || c.theta() >= Integer.MAX_VALUE + 1.0) {
            throw new Unsupported("TLC's integers are signed 32-bit: alpha, beta and theta must be at most " + Integer.MAX_VALUE
                    + " (alpha " + c.alpha() + ", beta " + c.beta() + ", theta " + c.theta() + ")");
        }
        StringBuilder log = new StringBuilder();
        List<Long> lines = new ArrayList<>();
        Map<Integer, Event.Arrive> arrivals = new LinkedHashMap<>();
        Set<Integer> arrived = new HashSet<>();
        TraceFormatException malformed = null;
        lumen.validate.LoadWindow window = c.readings().staleLoads() ? new lumen.validate.LoadWindow(c.readings().citedLoads(), c.workers()) : null;
        long loadWindow = 0;
        try (reader) {
            Event e;
            while ((e = reader.next()) != null) {
                for (int id : Validator.namedRequests(e)) {
                    if (!arrived.contains(id)) {
                        throw new TraceFormatException(source, reader.line(), e.action().specName() + ": unknown request " + id
                                + " (no Arrive for it before this line)");
                    }
                }
                if (e instanceof Event.Arrive a) {
                    if (opt.reference() != null) {
                        int[] ref = opt.reference().get(a.req());
                        if (ref == null) {
                            throw new TraceFormatException(source, reader.line(), "Arrive: the reference (" + opt.referenceSource()
                                    + ") has no output for request " + a.req());
                        }
                        a = a.withRef(ref);
                    }
                    arrived.add(a.req());
                    arrivals.putIfAbsent(a.req(), a);
                }
                // citedLoads=stale: how many states back the event's cited loads may come from, by the mirror's rule
                long win = window == null ? -1 : window.depth(lines.size() + 1, reader.time());
                loadWindow = Math.max(loadWindow, win);
                log.append(lines.isEmpty() ? "    " : ",\n    ").append(record(e, reader.citedLoads(), reader.citedReserved(), win));
                lines.add(reader.line());
            }
        } catch (TraceFormatException ex) {
            malformed = ex;
        }
        if (window != null && obs.hiddenPlace()) {
            // a hidden Place's window is the logged event's before it, reaching one state further (TraceLumen's WinStart)
            loadWindow++;
        }
        long[] ls = lines.stream().mapToLong(Long::longValue).toArray();
        return new Generated(name, module(name, base, c, policy, arrivals, log, opt.fairnessSteps(), loadWindow, obs), config(overrides), c, ls, malformed);
    }

    private static boolean integral(double d) {
        return d == Math.rint(d) && !Double.isInfinite(d);
    }

    private static String module(String name, String base, Config c, String policy, Map<Integer, Event.Arrive> arrivals, CharSequence log,
                                 int fairnessSteps, long loadWindow, lumen.trace.Observation obs) {
        StringBuilder b = new StringBuilder();
        b.append("---- MODULE ").append(name).append(" ----\n")
                .append("\\* Generated by lumen validate --tlc from a trace; see ").append(BASE).append(".tla.\n")
                .append("EXTENDS ").append(base).append("\n\n")
                .append("TWorkers == 0..").append(c.workers() - 1).append('\n')
                .append("TRequests == ").append(set(arrivals.keySet())).append('\n')
                .append("TPolicy == \"").append(policy).append("\"\n")
                .append("TAlpha == ").append((long) c.alpha()).append('\n')
                .append("TBeta == ").append((long) c.beta()).append('\n')
                .append("\\* theta ").append(c.theta()).append(": loads are integers, so L <= theta iff L <= floor(theta)\n")
                .append("TTheta == ").append((long) Math.floor(c.theta())).append('\n')
                .append("TTau == ").append(c.tau()).append('\n')
                .append("TBudget == ").append(c.budget()).append('\n')
                .append("TK == ").append(c.k()).append('\n')
                .append("TWrong == -1\n")
                .append("TPageTokens == ").append(c.pageTokens()).append('\n')
                .append("TFairnessSteps == ").append(fairnessSteps).append('\n')
                .append("\\* citedLoads=").append(c.readings().citedLoads()).append(": the most states an event's window reaches back\n")
                .append("TLoadWindow == ").append(loadWindow).append('\n')
                .append("\\* a partial trace (observes): Place not logged, loads never cited\n")
                .append("THiddenPlace == ").append(obs.hiddenPlace() ? "TRUE" : "FALSE").append('\n')
                .append("THiddenLoads == ").append(obs.hiddenLoads() ? "TRUE" : "FALSE").append('\n')
                .append("\\* observes.StreamPage=sizes: the copies' bytes are not observed\n")
                .append("TCopiesUnseen == ").append(obs.streamSizes() ? "TRUE" : "FALSE").append('\n')
                .append("\\* the ringDirection reading: ").append(c.readings().ringDirection()).append('\n')
                .append("NeighbourV == [w \\in TWorkers |-> (w + ")
                .append(c.readings().ringDirection() == Readings.RingDirection.NEXT ? "1" : Integer.toString(c.workers() - 1))
                .append(") % ").append(c.workers()).append("]\n")
                .append("TNeighbour == NeighbourV\n")
                .append("ReadingsV == [queue |-> \"").append(c.readings().queue())
                .append("\", ringFallThrough |-> ").append(c.readings().ringFallThrough() ? "TRUE" : "FALSE")
                .append(", rebackup |-> ").append(c.readings().rebackup() ? "TRUE" : "FALSE")
                .append(", assistTarget |-> \"").append(c.readings().assistTarget())
                .append("\", routeLoads |-> \"").append(c.readings().routeLoads())
                .append("\", budget |-> \"").append(c.readings().budget())
                .append("\", citedLoads |-> \"").append(c.readings().staleLoads() ? "stale" : "exact")
                .append("\", arrival |-> \"").append(c.readings().arrival()).append("\"]\n")
                .append("TReadings == ReadingsV\n")
                .append("\\* gray failures: a failure may leave a zombie, whose writes (ZombieToken, ZombiePage) the fences judge\n")
                .append("TGray == TRUE\n");
        StringBuilder prompt = new StringBuilder();
        StringBuilder ref = new StringBuilder();
        StringBuilder maxOut = new StringBuilder();
        for (Event.Arrive a : arrivals.values()) {
            String sep = prompt.length() == 0 ? "" : " @@ ";
            prompt.append(sep).append(a.req()).append(" :> ").append(a.promptLen());
            ref.append(sep).append(a.req()).append(" :> ").append(seq(a.ref()));
            // Size(r) reserves the declared maximum output, or the reference's length without one
            maxOut.append(sep).append(a.req()).append(" :> ").append(Math.max(a.maxOut(), a.ref().length));
        }
        // TLC evaluates a definition bound to a CONSTANT by "<-" at every use, but computes a
        // constant-level definition once: each bound definition only names a precomputed one.
        b.append("PromptLenV == ").append(arrivals.isEmpty() ? "[r \\in {} |-> 1]" : "(" + prompt + ")").append('\n')
                .append("RefV == ").append(arrivals.isEmpty() ? "[r \\in {} |-> <<1>>]" : "(" + ref + ")").append('\n')
                .append("MaxOutV == ").append(arrivals.isEmpty() ? "[r \\in {} |-> 1]" : "(" + maxOut + ")").append('\n')
                .append("TMaxOut == MaxOutV\n")
                .append("TPromptLen == PromptLenV\n")
                .append("TRef == RefV\n")
                .append("TraceLogV == <<\n").append(log).append("\n    >>\n")
                .append("TTraceLog == TraceLogV\n")
                .append("====\n");
        return b.toString();
    }

    private static String config(List<String> overrides) {
        return String.join("\n", overrides) + (overrides.isEmpty() ? "" : "\n") + String.join("\n",
                "CONSTANTS",
                "    None = None",
                "    Workers <- TWorkers",
                "    Requests <- TRequests",
                "    Policy <- TPolicy",
                "    Alpha <- TAlpha",
                "    Beta <- TBeta",
                "    Theta <- TTheta",
                "    Tau <- TTau",
                "    Budget <- TBudget",
                "    K <- TK",
                "    PromptLen <- TPromptLen",
                "    Ref <- TRef",
                "    MaxOut <- TMaxOut",
                "    Neighbour <- TNeighbour",
                "    Readings <- TReadings",
                "    Wrong <- TWrong",
                "    Elsewhere = Elsewhere",
                "    PageTokens <- TPageTokens",
                "    FairnessSteps <- TFairnessSteps",
                "    LoadWindow <- TLoadWindow",
                "    HiddenPlace <- THiddenPlace",
                "    HiddenLoads <- THiddenLoads",
                "    CopiesUnseen <- TCopiesUnseen",
                "    TraceLog <- TTraceLog",
                "    GrayFailures <- TGray",
                "INIT TraceInit",
                "NEXT TraceNext",
                "INVARIANT TraceInv",
                "CHECK_DEADLOCK FALSE",
                "");
    }

    /** One event as a TLA+ record whose fields are the JSON fields; null is None. */
    static String record(Event e, double[] loads, long[] reserved) {
        return record(e, loads, reserved, -1);
    }

    /** As {@link #record(Event, double[], long[])}, with the event's window ({@code win}, citedLoads=stale; -1: none). */
    static String record(Event e, double[] loads, long[] reserved, long win) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("type", "\"" + e.action().specName() + "\"");
        switch (e.action()) {
            case ARRIVE -> {
                Event.Arrive x = (Event.Arrive) e;
                f.put("req", Integer.toString(x.req()));
                f.put("worker", Integer.toString(x.worker()));
            }
            case PLACE -> {
                Event.Place x = (Event.Place) e;
                f.put("req", Integer.toString(x.req()));
                f.put("holder", worker(x.holder()));
                f.put("backup", worker(x.backup()));
            }
            case PREFILL -> {
                Event.Prefill x = (Event.Prefill) e;
                f.put("req", Integer.toString(x.req()));
                f.put("worker", Integer.toString(x.worker()));
                f.put("tokens", seq(x.tokens()));
                pages(f, x.pages());
            }
            case DECODE -> {
                Event.Decode x = (Event.Decode) e;
                f.put("req", Integer.toString(x.req()));
                f.put("worker", Integer.toString(x.worker()));
                f.put("tokens", seq(x.tokens()));
                pages(f, x.pages());
            }
            case STREAM_PAGE -> {
                Event.StreamPage x = (Event.StreamPage) e;
                f.put("req", Integer.toString(x.req()));
                f.put("holder", worker(x.holder()));
                f.put("ckpt", Integer.toString(x.ckpt()));
                pages(f, x.pages());
            }
            case COMPLETE -> {
                Event.Complete x = (Event.Complete) e;
                f.put("req", Integer.toString(x.req()));
                f.put("worker", Integer.toString(x.worker()));
                f.put("freed", Integer.toString(x.freed()));
            }
            case FAIL -> {
                Event.Fail x = (Event.Fail) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("interrupted", seq(x.interrupted()));
                f.put("orphaned", seq(x.orphaned()));
                f.put("promoted", seq(x.promoted()));
            }
            case ROUTE -> {
                Event.Route x = (Event.Route) e;
                f.put("req", Integer.toString(x.req()));
                f.put("mode", "\"" + x.mode().name() + "\"");
                f.put("worker", Integer.toString(x.worker()));
                f.put("resumed", Integer.toString(x.resumed()));
                f.put("freed", Integer.toString(x.freed()));
                pages(f, x.pages());
            }
            case RESTART -> f.put("worker", Integer.toString(e.worker()));
            case DRAFT_READY -> {
                f.put("worker", Integer.toString(e.worker()));
                if (((Event.DraftReady) e).target() >= 0) {
                    f.put("target", Integer.toString(((Event.DraftReady) e).target()));
                }
            }
            case ASSIST -> {
                Event.Assist x = (Event.Assist) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("req", Integer.toString(x.req()));
                f.put("draft", seq(x.draft()));
            }
            case FULL_READY -> {
                Event.FullReady x = (Event.FullReady) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("dropped", seq(x.dropped()));
            }
            case ZOMBIE_TOKEN -> {
                Event.ZombieToken x = (Event.ZombieToken) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("req", Integer.toString(x.req()));
                f.put("token", Integer.toString(x.token()));
                f.put("accepted", x.accepted() ? "TRUE" : "FALSE");
            }
            case ZOMBIE_PAGE -> {
                // the content of a zombie's page is not judged: a page the holder took is S19 whatever its bytes
                Event.ZombiePage x = (Event.ZombiePage) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("req", Integer.toString(x.req()));
                f.put("holder", worker(x.holder()));
                f.put("accepted", x.accepted() ? "TRUE" : "FALSE");
            }
            case ZOMBIE_STOPS -> f.put("worker", Integer.toString(e.worker()));
            case ZOMBIE_ACK -> {
                Event.ZombieAck x = (Event.ZombieAck) e;
                f.put("worker", Integer.toString(x.worker()));
                f.put("req", Integer.toString(x.req()));
                f.put("accepted", x.accepted() ? "TRUE" : "FALSE");
            }
            default -> throw new IllegalStateException("no trace record for " + e.action());
        }
        if (loads != null) {
            StringBuilder l = new StringBuilder("<<");
            for (int i = 0; i < loads.length; i++) {
                // a load TLC cannot hold (not a non-negative 32-bit integer) cannot equal a derived one: -1 says so
                boolean exact = integral(loads[i]) && loads[i] >= 0 && loads[i] <= Integer.MAX_VALUE;
                l.append(i == 0 ? "" : ", ").append(exact ? Long.toString((long) loads[i]) : "-1");
            }
            f.put("loads", l.append(">>").toString());
        }
        if (win >= 0) {
            f.put("win", Long.toString(win));
        }
        if (reserved != null) {
            StringBuilder l = new StringBuilder("<<");
            for (int i = 0; i < reserved.length; i++) {
                l.append(i == 0 ? "" : ", ").append(reserved[i]);
            }
            f.put("reserved", l.append(">>").toString());
        }
        StringBuilder b = new StringBuilder("[");
        f.forEach((k, v) -> b.append(b.length() == 1 ? "" : ", ").append(k).append(" |-> ").append(v));
        return b.append(']').toString();
    }

    /** A v2 event's content: <<<<first, count, "digest">>, ...>>; none in a v1 trace. */
    private static void pages(Map<String, String> f, lumen.core.PageDigest[] pages) {
        if (pages == null) {
            return;
        }
        StringBuilder b = new StringBuilder("<<");
        for (int i = 0; i < pages.length; i++) {
            b.append(i == 0 ? "" : ", ").append("<<").append(pages[i].first()).append(", ").append(pages[i].count())
                    .append(", \"").append(pages[i].hex()).append("\">>");
        }
        f.put("pages", b.append(">>").toString());
    }

    private static String worker(int w) {
        return w < 0 ? "None" : Integer.toString(w);
    }

    static String seq(int[] xs) {
        StringBuilder b = new StringBuilder("<<");
        for (int i = 0; i < xs.length; i++) {
            b.append(i == 0 ? "" : ", ").append(xs[i]);
        }
        return b.append(">>").toString();
    }

    private static String set(Set<Integer> xs) {
        StringBuilder b = new StringBuilder("{");
        for (int x : xs) {
            b.append(b.length() == 1 ? "" : ", ").append(x);
        }
        return b.append('}').toString();
    }
}
