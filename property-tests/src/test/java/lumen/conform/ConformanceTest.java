package lumen.conform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import lumen.conform.sut.Mutants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The conformance harness, through the process boundary: the reference adapter passes, every
 * mutant and misbehaving system is caught, a reported failure is confirmed in a fresh process
 * (and said not to be when it is not), and every report points at a step of the schedule.
 */
class ConformanceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String java(String mainClass, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return "'" + java + "' -Xss4m -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path") + "' " + mainClass + " " + String.join(" ", args);
    }

    static Conformance.Report run(Conformance.Options o) {
        Conformance.Report r = new Conformance(o).run(x -> { });
        System.out.println(ConformReport.text(r));
        return r;
    }

    @Test
    void theReferenceAdapterPasses() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.sut.Adapter"))
                .withPolicies(List.of("lumen", "lumen-dual")).withSchedules(1, 60));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.schedules).isEqualTo(60);
    }

    /**
     * Gray failures through the process boundary: the kit pauses workers (the pause command), the
     * reference declares each failed, and its zombie's writes, every one refused, are in the trace.
     */
    @Test
    void theReferenceAdapterPassesWithGrayFailures() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.sut.Adapter"))
                .withPolicies(List.of("lumen", "lumen-dual", "fixed-checkpointing", "stop-and-restart")).withGrayFailures(true)
                .withSchedules(1, 40));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(r.share(lumen.props.PropertyCheck.Feature.ZOMBIE_TOKEN)).as(() -> ConformReport.text(r)).isGreaterThan(0.1);
        assertThat(r.share(lumen.props.PropertyCheck.Feature.ZOMBIE_PAGE)).as(() -> ConformReport.text(r)).isGreaterThan(0.05);
        assertThat(ConformReport.text(r)).contains("zombie token").contains("zombie page");
    }

    /**
     * Output equivalence, for a system with a real model: the reference passes it, with and without
     * --kv-equivalence. A re-prefill that writes wrong KV and reports the digests of what it wrote,
     * consistently, keeps every output and every copy right, so output equivalence passes it: the
     * digests are the system's own. Held to the failure-free run's digests (--kv-equivalence) it is S9.
     */
    @Test
    void outputEquivalenceAndTheKvItCannotSeeWithoutKvEquivalence() {
        Conformance.Options ref = Conformance.Options.defaults(java("lumen.conform.sut.Adapter"))
                .withPolicies(List.of("lumen", "stop-and-restart", "fixed-checkpointing")).withReference(Conformance.Reference.EQUIVALENCE)
                .withSchedules(1, 20);
        Conformance.Report plainRef = run(ref);
        assertThat(plainRef.failure).as(() -> ConformReport.text(plainRef)).isNull();
        Conformance.Report kvRef = run(ref.withKvEquivalence(true));
        assertThat(kvRef.failure).as(() -> ConformReport.text(kvRef)).isNull();
        Conformance.Options wrong = Conformance.Options.defaults(java(Mutants.RECOMPUTES_WRONG_KV.mainClass()))
                .withPolicies(Mutants.RECOMPUTES_WRONG_KV.policies()).withReference(Conformance.Reference.EQUIVALENCE).withSchedules(1, 40);
        Conformance.Report plain = run(wrong);
        assertThat(plain.failure).as("outputs and copies are right: output equivalence alone cannot see it").isNull();
        Conformance.Report kv = run(wrong.withKvEquivalence(true));
        assertThat(kv.failure).as("held to the failure-free run's digests").isNotNull();
        assertThat(kv.failure.reported().caughtAs()).as(() -> ConformReport.text(kv)).isEqualTo("S9");
        assertThat(kv.failure.reported().message()).contains("failure-free run");
    }

    /** The reference adapter passes under every other reading of the paper, each claimed on its own. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"queue=waiting", "ringDirection=previous", "ringFallThrough=true", "rebackup=true", "citedLoads=stale:3", "arrival=any"})
    void theReferenceAdapterPassesUnderEachReading(String reading) {
        String[] nv = reading.split("=");
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.sut.Adapter"))
                .withPolicies(List.of("lumen", "lumen-dual", "fixed-checkpointing", "stop-and-restart"))
                .withReadings(lumen.core.Readings.DEFAULT.with(nv[0], nv[1])).withSchedules(1, 30));
        assertThat(r.failure).as(() -> ConformReport.text(r)).isNull();
        assertThat(ConformReport.text(r)).contains(reading);
    }

    /** A deterministic failure: each mutant is caught with its property, confirmed in a fresh process, and located by step. */
    @ParameterizedTest
    @EnumSource(Mutants.class)
    void everyMutantIsCaughtWithItsPropertyConfirmedFreshAtItsStep(Mutants m) throws Exception {
        Conformance.Report r = run(Conformance.Options.defaults(java(m.mainClass())).withPolicies(m.policies()).withReadings(m.claims()).withGrayFailures(m.gray()).withSchedules(1, 200));
        assertThat(r.failure).as(m + " survived " + r.schedules + " schedules").isNotNull();
        Conformance.Failure f = r.failure;
        assertThat(f.reproducer()).as(() -> ConformReport.text(r)).isEqualTo(Conformance.Reproducer.MINIMAL);
        assertThat(f.reported()).isSameAs(f.freshMinimal());
        assertThat(f.reported().runOfProcess()).isEqualTo(1);
        assertThat(f.reported().kind()).isIn(Conformance.Kind.VIOLATION, Conformance.Kind.INCOMPLETE);
        assertThat(f.reported().caughtAs()).isEqualTo(m.expected());
        assertThat(f.freshFirst().signature()).as("the first failing schedule, replayed fresh").isEqualTo(f.run().signature());
        assertThat(f.freshFirst().runOfProcess()).isEqualTo(1);
        assertConfirmedReport(r);
        assertStepIsTheCommandWhoseReplyHeldTheViolation(r);
    }

    private static void assertConfirmedReport(Conformance.Report r) {
        Conformance.Failure f = r.failure;
        String prop = f.run().verdictText();
        String text = ConformReport.text(r);
        assertThat(text)
                .contains("verdict: FAIL: " + prop + "\n")
                .contains("first seen as: " + prop + ", in run " + f.run().runOfProcess() + " of the system process")
                .doesNotContain("not reproducible");
        if (f.shrunk()) {
            assertThat(text).contains("replayed once each in a new process of the system:\n"
                    + "    the minimal schedule (" + size(f.minimal()) + "): " + prop + where(f.freshMinimal()) + " (the same failure)\n"
                    + "    the first failing schedule (seed " + f.seed() + ", unshrunk): " + prop + where(f.freshFirst())
                    + " (the same failure)\n");
        }
        assertThat(text).contains("minimal schedule, after " + f.shrinkRuns() + " shrink runs (" + size(f.minimal()) + "), confirmed in a fresh process:");
        @SuppressWarnings("unchecked")
        Map<String, Object> fail = (Map<String, Object>) ConformReport.json(r).get("failure");
        assertThat(fail).containsEntry("reproducible", true).containsEntry("reproducer", "minimal")
                .containsEntry("property", f.run().property() == null ? null : f.run().property().name()).containsEntry("step", f.reported().step().n())
                .containsEntry("command", f.reported().step().cmd());
        assertThat(fail.get("reproducerSchedule")).isEqualTo(ConformReport.schedule(f.minimal()));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> fresh = (Map<String, Map<String, Object>>) fail.get("freshReplay");
        assertThat(fresh.get("minimal")).containsEntry("sameFailure", true).containsEntry("runOfProcess", 1);
        assertThat(fresh.get("unshrunk")).containsEntry("sameFailure", true).containsEntry("runOfProcess", 1);
    }

    private static String where(Conformance.Run x) {
        return x.atEndOfRun() ? " at the end of the run (step " + x.step().n() + ")" : " at step " + x.step().n();
    }

    /** The reported step is the command whose reply held the violating trace line, in the report and in the session transcript. */
    private static void assertStepIsTheCommandWhoseReplyHeldTheViolation(Conformance.Report r) throws Exception {
        Conformance.Run x = r.failure.reported();
        if (x.atEndOfRun()) {
            // no trace line held it: the step is the run's last command
            assertThat(x.line()).isEqualTo(-1);
            assertThat(x.step().n()).isEqualTo(x.session().steps());
            assertThat(ConformReport.text(r)).contains("at the end of the run, after its last command, " + x.step().describe() + "\n");
            return;
        }
        assertThat(x.line()).isGreaterThan(1);
        Session.Step step = x.step();
        Session s = x.session();
        assertThat(step.n()).isBetween(2, s.steps());
        assertThat(s.step(step.n())).isEqualTo(step);
        assertThat(s.stepOfLine(x.line())).isEqualTo(step);
        assertThat(s.step(1).cmd()).startsWith("{\"cmd\":\"init\"");
        String[] trace = new String(x.trace(), StandardCharsets.UTF_8).split("\n");
        String atLine = trace[(int) x.line() - 1];
        ObjectNode held = (ObjectNode) JSON.readTree(atLine);
        held.remove("t");
        assertThat(held).as("trace line " + x.line()).isEqualTo(JSON.readTree(x.event()));
        assertThat(ConformReport.text(r)).contains("at trace line " + x.line() + ", in the reply to step " + step.n()
                + " of the schedule: " + step.cmd() + "\n");
        // the session transcript shows the event under that step's command
        List<String> t = ConformReport.transcript(x).lines().toList();
        int cmdAt = t.indexOf(String.format("step %-7d kit > %s", step.n(), step.cmd()));
        int evAt = t.indexOf(String.format("  line %-5d sut < %s", x.line(), atLine));
        assertThat(cmdAt).isPositive();
        assertThat(evAt).isGreaterThan(cmdAt);
        assertThat(t.subList(cmdAt + 1, evAt)).noneMatch(l -> l.startsWith("step "));
        assertThat(t.stream().filter(l -> l.startsWith("step ")).count()).isEqualTo(s.steps());
    }

    private static String size(lumen.props.Schedule s) {
        return ConformReport.count(s.arrivals().size(), "request") + ", " + ConformReport.count(s.faults().size(), "failure");
    }

    @ParameterizedTest
    @ValueSource(strings = {"hang", "crash", "garbage", "flood", "refuse"})
    void aMisbehavingSystemGetsAVerdictReplayedFreshAtItsStepAndTheKitDoesNotHang(String how) {
        Conformance.Options o = Conformance.Options.defaults(java("lumen.conform.sut.Misbehaving", how))
                .withSchedules(1, 3).withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(20)).withShrinkRuns(1);
        long t0 = System.nanoTime();
        Conformance.Report r = run(o);
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.failure).isNotNull();
        Conformance.Kind want = switch (how) {
            case "hang" -> Conformance.Kind.TIMEOUT;
            case "crash" -> Conformance.Kind.CRASHED;
            case "garbage" -> Conformance.Kind.GARBAGE;
            case "flood" -> Conformance.Kind.FLOOD;
            default -> Conformance.Kind.PROTOCOL;
        };
        Conformance.Failure f = r.failure;
        String text = ConformReport.text(r);
        assertThat(f.run().kind()).as(text).isEqualTo(want);
        assertThat(f.freshFirst().kind()).as("replayed in a fresh process").isEqualTo(want);
        assertThat(f.freshFirst().runOfProcess()).isEqualTo(1);
        assertThat(f.reproducer()).isEqualTo(Conformance.Reproducer.MINIMAL);
        assertThat(text).startsWith("system under test").contains("verdict: FAIL: " + want.name().toLowerCase().replace('_', ' '))
                .contains("confirmed in a fresh process");
        assertThat(secs).as("the kit's time").isLessThan(60);
        // Misbehaving acks the init and misbehaves on the next command, the first advance: step 2.
        Session.Step step = f.reported().step();
        assertThat(step.n()).isEqualTo(2);
        assertThat(step.cmd()).startsWith("{\"cmd\":\"advance\"").isEqualTo(f.reported().session().step(2).cmd());
        assertThat(text).contains("at step 2 of the schedule: " + step.cmd());
        if (how.equals("crash")) {
            assertThat(f.run().message()).contains("exit status 3").contains("panic");
        }
    }

    @Test
    void aFailureThatNeedsEarlierRunsIsReportedAsNotReproducibleFresh() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.HistoryDependent", "leaks-from-run", "2"))
                .withSchedules(1, 20).withShrinkRuns(40));
        Conformance.Failure f = r.failure;
        assertThat(f).isNotNull();
        assertThat(f.run().signature()).isEqualTo("VIOLATION/S8");
        assertThat(f.run().runOfProcess()).isGreaterThan(1);
        assertThat(f.shrunk()).as("the shrinker, in the same process, kept failing").isTrue();
        assertThat(f.freshMinimal().passed()).isTrue();
        assertThat(f.freshFirst().passed()).isTrue();
        assertThat(f.reproducer()).isEqualTo(Conformance.Reproducer.NONE);
        assertThat(f.reported()).isSameAs(f.run());
        assertThat(f.reportedSchedule()).isSameAs(f.schedule());
        String text = ConformReport.text(r);
        assertThat(text)
                .contains("verdict: FAIL (not reproducible in a fresh process): S8 NoCheckpointLeak\n")
                .contains("first seen as: S8 NoCheckpointLeak, in run " + f.run().runOfProcess() + " of the system process")
                .contains("    the minimal schedule (" + size(f.minimal()) + "): pass\n")
                .contains("    the first failing schedule (seed " + f.seed() + ", unshrunk): pass\n")
                .contains("not a reproducer")
                .doesNotContain("confirmed")
                .doesNotContain("minimal schedule, after");
        @SuppressWarnings("unchecked")
        Map<String, Object> fail = (Map<String, Object>) ConformReport.json(r).get("failure");
        assertThat(fail).containsEntry("reproducible", false).containsEntry("reproducer", null).containsEntry("reproducerSchedule", null);
        assertThat(ConformReport.json(r)).containsEntry("verdict", "FAIL");
    }

    @Test
    void aCrashOnlyOnTheThirdRunOfAProcessIsReportedAsNotReproducibleFresh() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.HistoryDependent", "crash-on-run", "3"))
                .withSchedules(1, 10).withShrinkRuns(6));
        Conformance.Failure f = r.failure;
        assertThat(f).isNotNull();
        assertThat(f.run().kind()).isEqualTo(Conformance.Kind.CRASHED);
        assertThat(f.run().runOfProcess()).isEqualTo(3);
        assertThat(f.run().message()).contains("exit status 3").contains("panic: stale run table");
        assertThat(f.freshFirst().passed()).as("run 1 of a fresh process does not crash").isTrue();
        assertThat(f.freshMinimal().passed()).isTrue();
        assertThat(f.reproducer()).isEqualTo(Conformance.Reproducer.NONE);
        // numbered within the crashed run, whose step 1 is its own init, not across the process's three runs
        Session s = f.run().session();
        assertThat(s.step(1).cmd()).startsWith("{\"cmd\":\"init\"");
        assertThat(f.run().step()).isEqualTo(s.current());
        assertThat(s.ack(f.run().step().n())).as("the crashed step got no ack").isNull();
        assertThat(ConformReport.text(r))
                .contains("verdict: FAIL (not reproducible in a fresh process): crashed\n")
                .contains("at " + f.run().step().describe())
                .contains("first seen as: crashed, in run 3 of the system process")
                .contains("not reproducible in a fresh process: the failure depends on what the process kept from its earlier runs");
        assertThat(ConformReport.transcript(f.run())).contains("step " + f.run().step().n()).contains("(no ack: crashed:");
    }

    @Test
    void aShrunkScheduleThatPassesFreshFallsBackToTheUnshrunkOne() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.HistoryDependent", "leaks-after-requests", "2"))
                .withSchedules(1, 20).withShrinkRuns(40));
        Conformance.Failure f = r.failure;
        assertThat(f).isNotNull();
        assertThat(f.run().signature()).isEqualTo("VIOLATION/S8");
        assertThat(f.freshMinimal().passed()).as(() -> ConformReport.text(r)).isTrue();
        assertThat(f.freshFirst().signature()).isEqualTo("VIOLATION/S8");
        assertThat(f.reproducer()).isEqualTo(Conformance.Reproducer.UNSHRUNK);
        assertThat(f.reported()).isSameAs(f.freshFirst());
        assertThat(f.reportedSchedule()).isSameAs(f.schedule());
        assertThat(ConformReport.text(r))
                .contains("verdict: FAIL: S8 NoCheckpointLeak\n")
                .contains("confirmed in a fresh process only unshrunk")
                .contains("the failing schedule, unshrunk (")
                .doesNotContain("minimal schedule, after");
        @SuppressWarnings("unchecked")
        Map<String, Object> fail = (Map<String, Object>) ConformReport.json(r).get("failure");
        assertThat(fail).containsEntry("reproducible", true).containsEntry("reproducer", "unshrunk");
        assertThat(fail.get("reproducerSchedule")).isEqualTo(ConformReport.schedule(f.schedule()));
    }

    @Test
    void freshProcessRunsEveryScheduleInANewProcess() {
        Conformance.Report r = run(Conformance.Options.defaults(java("lumen.conform.HistoryDependent", "leaks-from-run", "2"))
                .withSchedules(1, 4).withFreshProcess(true));
        assertThat(r.failure).as("every run is the first of its process, where this system has no bug").isNull();
        assertThat(r.schedules).isEqualTo(4);   // in one process, seed 4 fails (see above)
    }

    @Test
    void aLongCommandIsCutInTheReport() {
        Session.Step step = new Session.Step(7, "{\"cmd\":\"init\",\"pad\":\"" + "x".repeat(400) + "\"}");
        assertThat(step.shownCmd()).startsWith("{\"cmd\":\"init\"").endsWith("... (" + step.cmd().length() + " bytes)");
        assertThat(step.shownCmd().length()).isLessThan(230);
        assertThat(step.describe()).startsWith("step 7 of the schedule: {\"cmd\":\"init\"");
        Session.Step shortOne = new Session.Step(2, "{\"cmd\":\"advance\",\"t\":0.0}");
        assertThat(shortOne.shownCmd()).isEqualTo(shortOne.cmd());
    }
}
