package lumen.conform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;
import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.Invariants;
import lumen.core.PropertyId;
import lumen.core.Transition;
import lumen.props.PropertyCheck;
import lumen.props.Schedule;
import lumen.props.ScheduleGenerator;
import lumen.props.Shrinker;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;
import lumen.trace.TraceFormatException;
import lumen.trace.TraceReader;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;

/**
 * Conformance testing of another LUMEN implementation through the adapter protocol
 * (docs/conformance.md): generate failure schedules, drive the system with them, collect its
 * trace, validate it on the Java mirror of the spec, check the end-of-run liveness properties,
 * and shrink the first failure to a minimal schedule.
 */
public final class Conformance {

    /**
     * How to test.
     *
     * @param restartDelayMs virtual time from a failure to the kit's restart of that worker
     * @param shrinkRuns     at most this many runs of the system to shrink a failure
     */
    public record Options(String sut, List<String> policies, long firstSeed, int schedules, Duration runTimeout,
                          SutProcess.Limits limits, int shrinkRuns, double restartDelayMs) {
        public static Options defaults(String sut) {
            return new Options(sut, List.of("lumen"), 1, 50, Duration.ofSeconds(60), SutProcess.Limits.defaults(), 300, 100);
        }

        public Options withSchedules(long first, int n) {
            return new Options(sut, policies, first, n, runTimeout, limits, shrinkRuns, restartDelayMs);
        }

        public Options withPolicies(List<String> p) {
            return new Options(sut, p, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs);
        }

        public Options withTimeouts(Duration step, Duration run) {
            SutProcess.Limits l = new SutProcess.Limits(step, limits.maxEvents(), limits.maxBytes(), limits.maxLine());
            return new Options(sut, policies, firstSeed, schedules, run, l, shrinkRuns, restartDelayMs);
        }

        public Options withShrinkRuns(int n) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, n, restartDelayMs);
        }
    }

    /** How one run of one schedule ended. */
    public enum Kind { PASS, VIOLATION, MALFORMED_TRACE, TIMEOUT, CRASHED, FLOOD, GARBAGE, PROTOCOL }

    /**
     * One run: its outcome, the property broken (for a violation), where, and what it exercised.
     *
     * @param line  the trace line of the violation, -1 when none or at the end of the run
     * @param step  the protocol step whose reply held that line, or the step that misbehaved
     */
    public record Run(Kind kind, PropertyId property, String message, long line, String step, String event, byte[] trace,
                      long events, Set<PropertyCheck.Feature> features) {
        public boolean passed() {
            return kind == Kind.PASS;
        }

        /** What must stay the same while shrinking. */
        public String signature() {
            return kind + "/" + property;
        }

        public String verdictText() {
            return switch (kind) {
                case PASS -> "pass";
                case VIOLATION -> property == null ? "not a step of the spec" : property.label();
                default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
            };
        }
    }

    /** A failure found: its seed, the run, and the shrunk schedule with its run. */
    public record Failure(long seed, Schedule schedule, Run run, Schedule minimal, Run minimalRun, int shrinkRuns) {}

    /** What a conformance run found. */
    public static final class Report {
        public final Options options;
        public int schedules;
        public long events;
        public double seconds;
        public final java.util.Map<PropertyCheck.Feature, Long> coverage = new java.util.EnumMap<>(PropertyCheck.Feature.class);
        public Failure failure;

        Report(Options o) {
            this.options = o;
        }

        public boolean passed() {
            return failure == null;
        }

        public double share(PropertyCheck.Feature f) {
            return schedules == 0 ? 0 : coverage.getOrDefault(f, 0L) / (double) schedules;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Options opt;
    private SutProcess sut;

    public Conformance(Options opt) {
        this.opt = opt;
    }

    /** Runs the schedules, stops at the first failure and shrinks it; {@code progress} sees each run. */
    public Report run(Consumer<Run> progress) {
        Report rep = new Report(opt);
        long t0 = System.nanoTime();
        ScheduleGenerator gen = new ScheduleGenerator(opt.policies());
        try {
            for (int i = 0; i < opt.schedules(); i++) {
                long seed = opt.firstSeed() + i;
                Schedule sc = gen.generate(seed);
                Run r = runOne(sc);
                rep.schedules++;
                rep.events += r.events();
                r.features().forEach(f -> rep.coverage.merge(f, 1L, Long::sum));
                progress.accept(r);
                if (!r.passed()) {
                    rep.failure = shrink(seed, sc, r);
                    break;
                }
            }
        } finally {
            stop();
        }
        rep.seconds = (System.nanoTime() - t0) / 1e9;
        return rep;
    }

    private Failure shrink(long seed, Schedule sc, Run first) {
        String sig = first.signature();
        int[] runs = {0};
        Schedule min = Shrinker.shrink(sc, c -> {
            if (runs[0] >= opt.shrinkRuns()) {
                return false;
            }
            runs[0]++;
            Run x = runOne(c);
            return x.signature().equals(sig);
        });
        Run minRun = min == sc ? first : runOne(min);
        return new Failure(seed, sc, first, min, minRun, runs[0]);
    }

    private void stop() {
        if (sut != null) {
            sut.close();
            sut = null;
        }
    }

    /** Drives one schedule through the system and judges its trace. */
    public Run runOne(Schedule sc) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, sc.config())) {
            w.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<String> stepOfLine = new ArrayList<>();
        stepOfLine.add("header");
        String step = "init";
        try {
            if (sut == null) {
                sut = SutProcess.start(opt.sut(), opt.limits());
            }
            drive(sc, buf, stepOfLine);
        } catch (SutProcess.Misbehaviour m) {
            stop();
            Kind k = Kind.valueOf(m.problem.name());
            return new Run(k, null, m.getMessage(), -1, null, null, buf.toByteArray(), stepOfLine.size() - 1, Set.of());
        } catch (IOException ex) {
            stop();
            return new Run(Kind.CRASHED, null, "the system could not be started: " + ex.getMessage(), -1, step, null, buf.toByteArray(), 0, Set.of());
        }
        return judge(sc, buf.toByteArray(), stepOfLine);
    }

    private record Cmd(double t, String json) {}

    private void drive(Schedule sc, ByteArrayOutputStream buf, List<String> stepOfLine) throws SutProcess.Misbehaviour {
        ObjectNode init = JSON.createObjectNode();
        init.put("cmd", "init");
        init.put("version", 1);
        init.set("config", header(sc).get("config"));
        init.put("draftAgreement", sc.draftAgreement());
        absorb(sut.exchange(init.toString()), init.toString(), buf, stepOfLine, 0, null);
        List<Cmd> cmds = new ArrayList<>();
        for (Arrival a : sc.arrivals()) {
            cmds.add(new Cmd(a.atMs(), String.format(java.util.Locale.ROOT,
                    "{\"cmd\":\"arrive\",\"t\":%s,\"req\":%d,\"promptLen\":%d,\"outLen\":%d,\"seed\":%d}", a.atMs(), a.id(), a.promptLen(), a.outLen(), a.seed())));
        }
        for (Fault f : sc.faults()) {
            cmds.add(new Cmd(f.afterMs(), String.format(java.util.Locale.ROOT,
                    "{\"cmd\":\"fail\",\"t\":%s,\"worker\":%d,\"point\":\"%s\"}", f.afterMs(), f.worker(), f.point().name())));
        }
        cmds.sort(Comparator.comparingDouble(Cmd::t));
        PriorityQueue<double[]> restarts = new PriorityQueue<>(Comparator.comparingDouble((double[] x) -> x[0]));
        long deadline = System.nanoTime() + opt.runTimeout().toNanos();
        double now = 0;
        boolean idle = false;
        int i = 0;
        while (true) {
            if (System.nanoTime() > deadline) {
                throw new SutProcess.Misbehaviour(SutProcess.Problem.TIMEOUT, "the run did not finish within " + opt.runTimeout().toSeconds() + " s");
            }
            double next = Math.min(i < cmds.size() ? cmds.get(i).t() : Double.POSITIVE_INFINITY,
                    restarts.isEmpty() ? Double.POSITIVE_INFINITY : restarts.peek()[0]);
            if (Double.isInfinite(next)) {
                if (idle) {
                    return;
                }
                next = now + 1000;
                if (next > 1e7) {
                    throw new SutProcess.Misbehaviour(SutProcess.Problem.TIMEOUT, "the system was still busy after 10,000 s of virtual time");
                }
            }
            now = Math.max(now, next);
            String adv = String.format(java.util.Locale.ROOT, "{\"cmd\":\"advance\",\"t\":%s}", now);
            SutProcess.Reply r = sut.exchange(adv);
            absorb(r, adv, buf, stepOfLine, now, restarts);
            while (i < cmds.size() && cmds.get(i).t() <= now) {
                r = sut.exchange(cmds.get(i).json());
                absorb(r, cmds.get(i).json(), buf, stepOfLine, now, restarts);
                i++;
            }
            while (!restarts.isEmpty() && restarts.peek()[0] <= now) {
                String rs = String.format(java.util.Locale.ROOT, "{\"cmd\":\"restart\",\"t\":%s,\"worker\":%d}", now, (int) restarts.poll()[1]);
                r = sut.exchange(rs);
                absorb(r, rs, buf, stepOfLine, now, restarts);
            }
            idle = r.idle();
        }
    }

    private static ObjectNode header(Schedule sc) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(b, sc.config())) {
            w.flush();
            return (ObjectNode) JSON.readTree(b.toByteArray());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Appends the reply's events to the trace; a Fail schedules the kit's restart of that worker. */
    private void absorb(SutProcess.Reply r, String cmd, ByteArrayOutputStream buf, List<String> stepOfLine, double now,
                        PriorityQueue<double[]> restarts) throws SutProcess.Misbehaviour {
        if (buf.size() > 4 * opt.limits().maxBytes()) {
            throw new SutProcess.Misbehaviour(SutProcess.Problem.FLOOD, "the run's trace passed " + (4 * opt.limits().maxBytes() >> 20)
                    + " MiB by the reply to " + cmd);
        }
        for (String line : r.events()) {
            buf.writeBytes(line.getBytes(StandardCharsets.UTF_8));
            buf.write('\n');
            stepOfLine.add(cmd);
            if (restarts != null && line.contains("\"Fail\"")) {
                try {
                    JsonNode n = JSON.readTree(line);
                    if (n.path("type").asText().equals("Fail") && n.path("worker").canConvertToInt()) {
                        restarts.add(new double[] {n.path("t").asDouble(now) + opt.restartDelayMs(), n.get("worker").asInt()});
                    }
                } catch (IOException ex) {
                    // not JSON: validation reports it, located
                }
            }
        }
    }

    private static String stepAt(List<String> stepOfLine, long line) {
        int i = (int) line - 1;
        return i >= 0 && i < stepOfLine.size() ? stepOfLine.get(i) : null;
    }

    private Run judge(Schedule sc, byte[] trace, List<String> stepOfLine) {
        ValidationResult v;
        try {
            v = Validator.validate(new ByteArrayInputStream(trace), "the system's trace");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        if (v.verdict() == Verdict.MALFORMED) {
            return new Run(Kind.MALFORMED_TRACE, null, v.error().getMessage(), v.error().line(), stepAt(stepOfLine, v.error().line()), null,
                    trace, v.events(), Set.of());
        }
        if (v.verdict() == Verdict.REJECTED) {
            Finding f = v.divergence().finding();
            return new Run(Kind.VIOLATION, f.property(), f.toString(), v.divergence().line(), stepAt(stepOfLine, v.divergence().line()),
                    v.divergence().event(), trace, v.events(), Set.of());
        }
        Set<PropertyCheck.Feature> features = EnumSet.noneOf(PropertyCheck.Feature.class);
        ClusterState end = replay(trace, features);
        List<Finding> inv = Invariants.all(end);
        if (!inv.isEmpty()) {
            return new Run(Kind.VIOLATION, inv.get(0).property(), inv.get(0).toString(), -1, "end of run", null, trace, v.events(), features);
        }
        if (v.done() < sc.arrivals().size()) {
            return new Run(Kind.VIOLATION, PropertyId.L1, v.done() + " of " + sc.arrivals().size() + " requests completed by the end of the run",
                    -1, "end of run", null, trace, v.events(), features);
        }
        for (int w = 0; w < sc.config().workers(); w++) {
            if (!end.isUp(w)) {
                return new Run(Kind.VIOLATION, PropertyId.L2, "worker " + w + " is " + end.worker(w).state() + " at the end of the run",
                        -1, "end of run", null, trace, v.events(), features);
            }
        }
        return new Run(Kind.PASS, null, null, -1, null, null, trace, v.events(), features);
    }

    /** The final spec state of an accepted trace, and what it exercised. */
    private static ClusterState replay(byte[] trace, Set<PropertyCheck.Feature> features) {
        try (TraceReader r = new TraceReader(new ByteArrayInputStream(trace), "trace")) {
            ClusterState s = ClusterState.initial(r.config());
            Set<Integer> assisting = new HashSet<>();
            Event e;
            while ((e = r.next()) != null) {
                PropertyCheck.observe(s, e, features, assisting);
                s = Transition.apply(s, e);
            }
            return s;
        } catch (IOException | TraceFormatException ex) {
            throw new IllegalStateException("an accepted trace could not be read again", ex);
        }
    }
}
