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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;
import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.KitTokens;
import lumen.core.PropertyId;
import lumen.core.Readings;
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
 * shrink the first failure to a minimal schedule, and replay what it reports in a fresh process of
 * the system, so a failure that depends on the process's earlier runs is not reported as
 * reproducible.
 */
public final class Conformance {

    /**
     * How to test.
     *
     * @param restartDelayMs virtual time from a failure to the kit's restart of that worker
     * @param shrinkRuns     at most this many runs of the system to shrink a failure
     * @param freshProcess   start a new process of the system for every run, not only after a
     *                       misbehaviour and for the final replays (slower; for a system whose
     *                       outcome depends on its earlier runs)
     * @param readings       the paper's readings the system claims (docs/readings.md); every
     *                       schedule runs under them and the adapter is told them in init
     */
    public record Options(String sut, List<String> policies, long firstSeed, int schedules, Duration runTimeout,
                          SutProcess.Limits limits, int shrinkRuns, double restartDelayMs, boolean freshProcess,
                          Reference reference, boolean requireCoverage, int fairnessSteps, Readings readings, boolean kvEquivalence,
                          boolean grayFailures) {
        public Options(String sut, List<String> policies, long firstSeed, int schedules, Duration runTimeout,
                       SutProcess.Limits limits, int shrinkRuns, double restartDelayMs, boolean freshProcess,
                       Reference reference, boolean requireCoverage, int fairnessSteps, Readings readings) {
            this(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, false, false);
        }

        public static Options defaults(String sut) {
            return new Options(sut, List.of("lumen"), 1, 50, Duration.ofSeconds(60), SutProcess.Limits.defaults(), 300, 100, false,
                    Reference.TOKEN_MODEL, false, lumen.validate.Mirror.DEFAULT_FAIRNESS_STEPS, Readings.DEFAULT);
        }

        /**
         * Under {@link Reference#EQUIVALENCE}: every page digest is also held to the digest the same
         * system reported for the same positions in its failure-free run (a deterministic model writes
         * the same KV whatever the failures; docs/conformance.md says what it cannot show).
         */
        public Options withKvEquivalence(boolean on) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, on, grayFailures);
        }

        public Options withSchedules(long first, int n) {
            return new Options(sut, policies, first, n, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withPolicies(List<String> p) {
            return new Options(sut, p, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withTimeouts(Duration step, Duration run) {
            SutProcess.Limits l = new SutProcess.Limits(step, limits.maxEvents(), limits.maxBytes(), limits.maxLine());
            return new Options(sut, policies, firstSeed, schedules, run, l, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withShrinkRuns(int n) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, n, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withFreshProcess(boolean fresh) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, fresh, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withReference(Reference r) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, r,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        public Options withRequireCoverage(boolean c) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    c, fairnessSteps, readings, kvEquivalence, grayFailures);
        }

        /** The readings the system claims (docs/readings.md): every schedule runs under them. */
        public Options withReadings(Readings rd) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, rd, kvEquivalence, grayFailures);
        }

        /**
         * Whether schedules have gray failures: one failure in two a pause (the {@code pause}
         * command), the worker declared failed and woken later with its old state, a zombie whose
         * every write the system must refuse (S18, S19).
         */
        public Options withGrayFailures(boolean on) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, fairnessSteps, readings, kvEquivalence, on);
        }

        public Options withFairnessSteps(int n) {
            return new Options(sut, policies, firstSeed, schedules, runTimeout, limits, shrinkRuns, restartDelayMs, freshProcess, reference,
                    requireCoverage, n, readings, kvEquivalence, grayFailures);
        }
    }

    /**
     * Whose output every request's output is judged against: never the system's own claim.
     * {@code TOKEN_MODEL}: the kit's deterministic token model ({@link KitTokens}), for a system
     * with a synthetic model. {@code EQUIVALENCE}: the same system's failure-free run of the same
     * schedule (no failures, so no assist), for a system with a real model: every request's output
     * under failures must equal its failure-free output token for token.
     */
    public enum Reference {
        TOKEN_MODEL("the kit's token model (" + KitTokens.NAME + ", vocabulary " + KitTokens.VOCAB + ")"),
        EQUIVALENCE("the same system's failure-free run of the schedule");

        public final String description;

        Reference(String description) {
            this.description = description;
        }
    }

    /** How one run of one schedule ended. */
    public enum Kind { PASS, VIOLATION, INCOMPLETE, MALFORMED_TRACE, TIMEOUT, CRASHED, FLOOD, GARBAGE, PROTOCOL }

    /**
     * One run: its outcome, the property broken (for a violation), where, and what it exercised.
     *
     * @param line         the trace line of the violation, -1 when none or at the end of the run
     * @param step         the step of the run whose reply held that line, or the step that misbehaved,
     *                     or for a violation at the end of the run its last step; null when none
     * @param session      the run's commands and acks by step, and the step of each trace line
     * @param runOfProcess which run of its system process this was: 1 for a fresh process
     * @param baseline     this is the failure-free run an output-equivalence check judges against
     */
    public record Run(Kind kind, PropertyId property, String message, long line, Session.Step step, String event, byte[] trace,
                      long events, Set<PropertyCheck.Feature> features, Session session, int runOfProcess, boolean baseline) {
        public Run(Kind kind, PropertyId property, String message, long line, Session.Step step, String event, byte[] trace,
                   long events, Set<PropertyCheck.Feature> features, Session session, int runOfProcess) {
            this(kind, property, message, line, step, event, trace, events, features, session, runOfProcess, false);
        }

        public boolean passed() {
            return kind == Kind.PASS;
        }

        /** A violation found only once the run was over (an invariant of the end state, L1, L2). */
        public boolean atEndOfRun() {
            return (kind == Kind.VIOLATION || kind == Kind.INCOMPLETE) && line < 0;
        }

        /** What must stay the same while shrinking. */
        public String signature() {
            return kind + "/" + property + (baseline ? "/baseline" : "");
        }

        public String verdictText() {
            String v = switch (kind) {
                case PASS -> "pass";
                case VIOLATION -> property == null ? "not a step of the spec" : property.label();
                default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
            };
            return baseline ? v + " (in the failure-free run)" : v;
        }

        /**
         * What caught this run, as the kill table names it: a property ID ("S13"), "step" for a
         * step that is not one of the spec's, "INCOMPLETE" for an unfinished run, else the kind.
         */
        public String caughtAs() {
            return switch (kind) {
                case VIOLATION -> property == null ? "step" : property.name();
                case PASS -> "pass";
                default -> kind.name();
            };
        }

        /** This run, as the failure-free baseline of an output-equivalence check. */
        Run failureFree() {
            return new Run(kind, property, message, line, step, event, trace, events, features, session, runOfProcess, true);
        }
    }

    /** Which schedule, replayed once in a fresh process, failed again the same way. */
    public enum Reproducer { MINIMAL, UNSHRUNK, NONE }

    /**
     * A failure found: its seed, the run, the shrunk schedule with its run in the long-running
     * process, and both schedules replayed once each in a fresh process.
     *
     * @param freshMinimal the minimal schedule's run in a fresh process
     * @param freshFirst   the first failing schedule's run in a fresh process (the same run as
     *                     {@code freshMinimal} when the schedule did not shrink)
     */
    public record Failure(long seed, Schedule schedule, Run run, Schedule minimal, Run minimalRun, int shrinkRuns,
                          Run freshMinimal, Run freshFirst) {
        public boolean shrunk() {
            return minimal != schedule;
        }

        /** The schedule the report can offer as a reproducer: the minimal one if it failed again fresh, else the unshrunk one if it did. */
        public Reproducer reproducer() {
            String sig = run.signature();
            if (freshMinimal.signature().equals(sig)) {
                return Reproducer.MINIMAL;
            }
            return freshFirst.signature().equals(sig) ? Reproducer.UNSHRUNK : Reproducer.NONE;
        }

        public boolean reproducible() {
            return reproducer() != Reproducer.NONE;
        }

        /** The run the report describes: the fresh replay that failed again, else the failure as first seen. */
        public Run reported() {
            return switch (reproducer()) {
                case MINIMAL -> freshMinimal;
                case UNSHRUNK -> freshFirst;
                case NONE -> run;
            };
        }

        /** The schedule of {@link #reported()}. */
        public Schedule reportedSchedule() {
            return reproducer() == Reproducer.MINIMAL ? minimal : schedule;
        }
    }

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

        /** Whether some policy of this run can exercise {@code f} at all (else its row is not applicable). */
        public boolean possible(PropertyCheck.Feature f) {
            if (f == PropertyCheck.Feature.ZOMBIE_TOKEN || f == PropertyCheck.Feature.ZOMBIE_PAGE) {
                // a zombie exists only where failures are gray; its page needs a holder to go to
                return options.grayFailures() && (f == PropertyCheck.Feature.ZOMBIE_TOKEN || options.policies().stream()
                        .map(lumen.core.Policies::find).anyMatch(p -> p != null && p.placesCheckpoints()));
            }
            return options.policies().stream().map(lumen.core.Policies::find).anyMatch(p -> p != null && f.possibleUnder(p, options.readings()));
        }

        /**
         * The features no schedule exercised, among those the run's policies can exercise: with
         * {@link Options#requireCoverage}, each fails the run.
         */
        public List<PropertyCheck.Feature> uncovered() {
            List<PropertyCheck.Feature> out = new ArrayList<>();
            for (PropertyCheck.Feature f : PropertyCheck.Feature.values()) {
                if (possible(f) && coverage.getOrDefault(f, 0L) == 0) {
                    out.add(f);
                }
            }
            return out;
        }

        /** Passed, and, when coverage is required, every feature was exercised. */
        public boolean passedWithCoverage() {
            return passed() && (!options.requireCoverage() || uncovered().isEmpty());
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The adapter protocol version: 2 asks for trace contract v2 events (with KV content). */
    public static final int PROTOCOL_VERSION = 2;

    private final Options opt;
    private SutProcess sut;
    private int runsInProcess;

    public Conformance(Options opt) {
        this.opt = opt;
    }

    /** Runs the schedules, stops at the first failure and shrinks it; {@code progress} sees each run. */
    public Report run(Consumer<Run> progress) {
        Report rep = new Report(opt);
        long t0 = System.nanoTime();
        ScheduleGenerator gen = new ScheduleGenerator(opt.policies(), opt.readings()).withGrayFailures(opt.grayFailures());
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
                    rep.failure = confirmFresh(seed, sc, r, shrink(sc, r));
                    break;
                }
            }
        } finally {
            stop();
        }
        rep.seconds = (System.nanoTime() - t0) / 1e9;
        return rep;
    }

    /** What the shrinker found: the minimal schedule, its run, and the runs it took. */
    private record Shrunk(Schedule minimal, Run run, int runs) {}

    /**
     * Shrinks a failure, reusing the running process for speed (unless {@link Options#freshProcess});
     * what it finds is confirmed by {@link #confirmFresh}.
     */
    private Shrunk shrink(Schedule sc, Run first) {
        String sig = first.signature();
        int[] runs = {0};
        Run[] last = {first};
        Schedule min = Shrinker.shrink(sc, c -> {
            if (runs[0] >= opt.shrinkRuns()) {
                return false;
            }
            runs[0]++;
            Run x = runOne(c);
            if (x.signature().equals(sig)) {
                last[0] = x;   // the shrinker keeps every candidate that fails: the last one is the minimal schedule
                return true;
            }
            return false;
        });
        return new Shrunk(min, last[0], runs[0]);
    }

    /** Replays the minimal schedule, and the first failing one, each once in a fresh process. */
    private Failure confirmFresh(long seed, Schedule sc, Run first, Shrunk s) {
        Run freshMin = replayFresh(s.minimal());
        Run freshFirst = s.minimal() == sc ? freshMin : replayFresh(sc);
        return new Failure(seed, sc, first, s.minimal(), s.run(), s.runs(), freshMin, freshFirst);
    }

    /** Runs {@code sc} once in a new process of the system, stopped afterwards: no earlier run can reach it. */
    public Run replayFresh(Schedule sc) {
        stop();
        try {
            return runOne(sc);
        } finally {
            stop();
        }
    }

    private void stop() {
        if (sut != null) {
            sut.close();
            sut = null;
        }
    }

    /** Drives one schedule through the system and judges its trace against the kit's reference. */
    public Run runOne(Schedule sc) {
        if (opt.reference() == Reference.TOKEN_MODEL) {
            Map<Integer, int[]> ref = new HashMap<>();
            for (Arrival a : sc.arrivals()) {
                ref.put(a.id(), KitTokens.reference(a.seed(), a.outLen(), KitTokens.VOCAB));
            }
            return runOne(sc, ref, null);
        }
        // output equivalence: the same system's failure-free run is the reference
        Schedule quiet = sc.withFaults(List.of());
        Run base = runOne(quiet, null, null);
        if (!base.passed()) {
            return base.failureFree();
        }
        Map<Integer, int[]> outputs = outputs(base.trace());
        for (Arrival a : sc.arrivals()) {
            int[] o = outputs.get(a.id());
            if (o == null || o.length != a.outLen()) {
                return new Run(Kind.VIOLATION, PropertyId.S1, "in the failure-free run request " + a.id() + " produced "
                        + (o == null ? "no output" : o.length + " tokens") + ", but " + a.outLen() + " were asked for (outLen)",
                        -1, null, null, base.trace(), base.events(), Set.of(), base.session(), base.runOfProcess()).failureFree();
            }
        }
        lumen.validate.PageOracle pages = null;
        if (opt.kvEquivalence()) {
            try {
                pages = lumen.validate.PageOracle.failureFree(base.trace(), "the failure-free run");
            } catch (IOException | TraceFormatException ex) {
                throw new IllegalStateException("an accepted failure-free trace could not be read again", ex);
            }
        }
        return runOne(sc, outputs, pages);
    }

    /** Each request's output in a trace: its Prefill's and Decodes' tokens, in order. */
    static Map<Integer, int[]> outputs(byte[] trace) {
        try {
            return lumen.validate.References.fromTrace(new ByteArrayInputStream(trace), "trace");
        } catch (IOException | TraceFormatException ex) {
            throw new IllegalStateException("an accepted failure-free trace could not be read again", ex);
        }
    }

    /** Drives one schedule and judges its trace against {@code reference} (null: the system's own, for a failure-free baseline). */
    private Run runOne(Schedule sc, Map<Integer, int[]> reference, lumen.validate.PageOracle pages) {
        if (opt.freshProcess()) {
            stop();
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, sc.config())) {
            w.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        Session session = new Session();
        int runOf = (sut == null ? 0 : runsInProcess) + 1;
        try {
            if (sut == null) {
                sut = SutProcess.start(opt.sut(), opt.limits());
            }
            runsInProcess = runOf;
            drive(sc, buf, session);
        } catch (SutProcess.Misbehaviour m) {
            stop();
            Kind k = Kind.valueOf(m.problem.name());
            return new Run(k, null, m.getMessage(), -1, session.current(), null, buf.toByteArray(), session.lines() - 1, Set.of(),
                    session, runOf);
        } catch (IOException ex) {
            stop();
            return new Run(Kind.CRASHED, null, "the system could not be started: " + ex.getMessage(), -1, null, null, buf.toByteArray(), 0,
                    Set.of(), session, runOf);
        }
        return judge(sc, buf.toByteArray(), session, runOf, reference, pages);
    }

    private record Cmd(double t, String json) {}

    private void drive(Schedule sc, ByteArrayOutputStream buf, Session s) throws SutProcess.Misbehaviour {
        ObjectNode init = JSON.createObjectNode();
        init.put("cmd", "init");
        init.put("version", PROTOCOL_VERSION);
        init.set("config", header(sc).get("config"));
        init.put("draftAgreement", sc.draftAgreement());
        ObjectNode model = init.putObject("tokenModel");
        model.put("name", KitTokens.NAME);
        model.put("vocab", KitTokens.VOCAB);
        ObjectNode kv = init.putObject("kvModel");
        kv.put("name", lumen.core.KitKv.NAME);
        kv.put("layers", lumen.core.KitKv.LAYERS);
        kv.put("bytesPerTokenLayer", lumen.core.KitKv.BYTES_PER_TOKEN_LAYER);
        absorb(send(s, init.toString()), buf, s, 0, null);
        List<Cmd> cmds = new ArrayList<>();
        for (Arrival a : sc.arrivals()) {
            cmds.add(new Cmd(a.atMs(), String.format(java.util.Locale.ROOT,
                    "{\"cmd\":\"arrive\",\"t\":%s,\"req\":%d,\"promptLen\":%d,\"outLen\":%d,\"seed\":%d}", a.atMs(), a.id(), a.promptLen(), a.outLen(), a.seed())));
        }
        for (Fault f : sc.faults()) {
            cmds.add(new Cmd(f.afterMs(), f.partitioned()
                    ? String.format(java.util.Locale.ROOT, "{\"cmd\":\"partition\",\"t\":%s,\"worker\":%d,\"point\":\"%s\",\"forMs\":%s,\"lossy\":%s}",
                            f.afterMs(), f.worker(), f.point().name(), f.pauseMs(), f.partition() == Fault.Partition.LOST)
                    : f.paused()
                    ? String.format(java.util.Locale.ROOT, "{\"cmd\":\"pause\",\"t\":%s,\"worker\":%d,\"point\":\"%s\",\"forMs\":%s}",
                            f.afterMs(), f.worker(), f.point().name(), f.pauseMs())
                    : String.format(java.util.Locale.ROOT, "{\"cmd\":\"fail\",\"t\":%s,\"worker\":%d,\"point\":\"%s\"}",
                            f.afterMs(), f.worker(), f.point().name())));
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
            SutProcess.Reply r = send(s, adv);
            absorb(r, buf, s, now, restarts);
            while (i < cmds.size() && cmds.get(i).t() <= now) {
                r = send(s, cmds.get(i).json());
                absorb(r, buf, s, now, restarts);
                i++;
            }
            while (!restarts.isEmpty() && restarts.peek()[0] <= now) {
                String rs = String.format(java.util.Locale.ROOT, "{\"cmd\":\"restart\",\"t\":%s,\"worker\":%d}", now, (int) restarts.poll()[1]);
                r = send(s, rs);
                absorb(r, buf, s, now, restarts);
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

    /** Sends the run's next command: its next step. */
    private SutProcess.Reply send(Session s, String cmd) throws SutProcess.Misbehaviour {
        s.send(cmd);
        SutProcess.Reply r = sut.exchange(cmd);
        s.ack(r.ack());
        return r;
    }

    /** Appends the reply's events to the trace; a Fail schedules the kit's restart of that worker. */
    private void absorb(SutProcess.Reply r, ByteArrayOutputStream buf, Session s, double now,
                        PriorityQueue<double[]> restarts) throws SutProcess.Misbehaviour {
        if (buf.size() > 4 * opt.limits().maxBytes()) {
            throw new SutProcess.Misbehaviour(SutProcess.Problem.FLOOD, "the run's trace passed " + (4 * opt.limits().maxBytes() >> 20)
                    + " MiB");
        }
        for (String line : r.events()) {
            buf.writeBytes(line.getBytes(StandardCharsets.UTF_8));
            buf.write('\n');
            s.event();
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

    private Run judge(Schedule sc, byte[] trace, Session s, int runOf, Map<Integer, int[]> reference, lumen.validate.PageOracle pages) {
        ValidationResult v;
        Validator.Options vo = Validator.Options.defaults().withComplete(true).withFairnessSteps(opt.fairnessSteps());
        if (reference != null) {
            vo = vo.withReference(reference, opt.reference().description);
        }
        if (opt.reference() == Reference.TOKEN_MODEL) {
            // a system on the kit's token model keeps the kit's KV content: every digest it reports is predicted
            Map<Integer, Long> seeds = new HashMap<>();
            for (Arrival a : sc.arrivals()) {
                seeds.put(a.id(), a.seed());
            }
            vo = vo.withKvModel(seeds);
        } else if (pages != null) {
            vo = vo.withPages(pages);
        }
        try {
            v = Validator.validate(new ByteArrayInputStream(trace), "the system's trace", vo);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        if (v.verdict() == Verdict.MALFORMED) {
            return new Run(Kind.MALFORMED_TRACE, null, v.error().getMessage(), v.error().line(), s.stepOfLine(v.error().line()), null,
                    trace, v.events(), Set.of(), s, runOf);
        }
        if (v.verdict() == Verdict.REJECTED) {
            Finding f = v.divergence().finding();
            long line = v.divergence().event().startsWith("(") ? -1 : v.divergence().line();
            return new Run(Kind.VIOLATION, f.property(), f.toString(), line, line < 0 ? s.current() : s.stepOfLine(line),
                    line < 0 ? null : v.divergence().event(), trace, v.events(), Set.of(), s, runOf);
        }
        Set<PropertyCheck.Feature> features = EnumSet.noneOf(PropertyCheck.Feature.class);
        ClusterState end = replay(trace, features);
        List<String> unfinished = new ArrayList<>(v.unfinished());
        for (Arrival a : sc.arrivals()) {
            if (end.request(a.id()) == null) {
                unfinished.add(0, "request " + a.id() + " was sent (arrive) but never arrived in the trace");
            }
        }
        if (!unfinished.isEmpty()) {
            return new Run(Kind.INCOMPLETE, null, "the run ended unfinished: " + String.join("; ", unfinished.subList(0, Math.min(5, unfinished.size())))
                    + (unfinished.size() > 5 ? "; and " + (unfinished.size() - 5) + " more" : ""), -1, s.current(), null, trace, v.events(),
                    features, s, runOf);
        }
        return new Run(Kind.PASS, null, null, -1, null, null, trace, v.events(), features, s, runOf);
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
