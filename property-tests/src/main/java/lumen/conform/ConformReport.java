package lumen.conform;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import lumen.props.PropertyCheck;
import lumen.props.Schedule;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;

/** A conformance report, as text for people and as a JSON-ready map for tools. */
public final class ConformReport {
    private ConformReport() {}

    public static String text(Conformance.Report r) {
        StringBuilder b = new StringBuilder();
        b.append("system under test: ").append(r.options.sut()).append('\n');
        b.append(String.format(Locale.ROOT, "%d schedule%s (seeds %d..%d, policies %s, %s), %,d events, %.1f s%n", r.schedules,
                r.schedules == 1 ? "" : "s", r.options.firstSeed(),
                r.options.firstSeed() + Math.max(0, r.schedules - 1), String.join(", ", r.options.policies()), r.options.readings().describe(),
                r.events, r.seconds));
        for (String reading : r.options.readings().changed()) {
            if (r.options.policies().stream().map(lumen.core.Policies::find).noneMatch(p -> p != null && lumen.core.Readings.appliesTo(reading, p))) {
                b.append("note: the reading ").append(reading).append(" changes nothing under ").append(String.join(", ", r.options.policies()))
                        .append(": the run does not test it (docs/readings.md)\n");
            }
        }
        b.append("outputs judged against: ").append(r.options.reference().description).append('\n');
        if (r.passedWithCoverage()) {
            b.append("verdict: PASS: every trace is a behaviour of the spec in which every property holds, every output is the"
                    + " reference's, every request completed, every failed worker rejoined\n");
        } else if (r.passed()) {
            b.append("verdict: FAIL (coverage required): no schedule exercised ").append(String.join(", ",
                    r.uncovered().stream().map(x -> x.name().toLowerCase(Locale.ROOT).replace('_', ' ')).toList())).append('\n');
        } else {
            failure(b, r.failure);
        }
        // on a failure the run stopped early, and the failing schedule counts up to its failing event
        b.append(r.passed() ? "coverage (share of schedules" + (r.options.requireCoverage() ? "; required" : "") + "):\n"
                : "coverage (share of the schedules run, the failing one up to its failing event):\n");
        for (PropertyCheck.Feature x : PropertyCheck.Feature.values()) {
            if (!r.possible(x)) {
                b.append(String.format(Locale.ROOT, "  %-26s   n/a   (this run's policies and readings cannot exercise it)%n", x.name().toLowerCase(Locale.ROOT).replace('_', ' ')));
                continue;
            }
            b.append(String.format(Locale.ROOT, "  %-26s %5.1f%%%s%n", x.name().toLowerCase(Locale.ROOT).replace('_', ' '), 100 * r.share(x),
                    r.share(x) == 0 && r.passed() ? "   (never exercised: the verdict says nothing about it)" : ""));
        }
        return b.toString();
    }

    private static void failure(StringBuilder b, Conformance.Failure f) {
        Conformance.Run m = f.reported();
        Conformance.Reproducer rep = f.reproducer();
        b.append(rep == Conformance.Reproducer.NONE ? "verdict: FAIL (not reproducible in a fresh process): " : "verdict: FAIL: ")
                .append(m.verdictText()).append('\n');
        b.append(m.message().indent(2));
        String where = where(m);
        if (where != null) {
            b.append("  ").append(where).append('\n');
        }
        if (m.event() != null) {
            b.append("  event: ").append(m.event()).append('\n');
        }
        b.append(String.format(Locale.ROOT, "  seed %d (replay: --seed %d --schedules 1); first seen as: %s, in run %d of the system process%n",
                f.seed(), f.seed(), f.run().verdictText(), f.run().runOfProcess()));
        String sig = f.run().signature();
        b.append("  replayed once each in a new process of the system:\n");
        if (f.shrunk()) {
            b.append("    the minimal schedule (").append(size(f.minimal())).append("): ").append(replayed(f.freshMinimal(), sig)).append('\n');
            b.append("    the first failing schedule (seed ").append(f.seed()).append(", unshrunk): ").append(replayed(f.freshFirst(), sig)).append('\n');
        } else {
            b.append("    the failing schedule (seed ").append(f.seed()).append(", it did not shrink): ").append(replayed(f.freshFirst(), sig))
                    .append('\n');
        }
        switch (rep) {
            case MINIMAL -> {
                b.append(String.format(Locale.ROOT, "  minimal schedule, after %d shrink runs (%s), confirmed in a fresh process:%n",
                        f.shrinkRuns(), size(f.minimal())));
            }
            case UNSHRUNK -> {
                b.append("  confirmed in a fresh process only unshrunk: the shrinking, in the long-running process, was misled by state"
                        + " kept from earlier runs; the reproducer is the unshrunk schedule (--fresh-process shrinks with a new process"
                        + " for every run)\n");
                b.append(String.format(Locale.ROOT, "  the failing schedule, unshrunk (%s), confirmed in a fresh process:%n", size(f.schedule())));
            }
            case NONE -> {
                b.append("  not reproducible in a fresh process: the failure depends on what the process kept from its earlier runs (an init"
                        + " that does not start a clean run), or it is not deterministic; no schedule here reproduces it on its own\n");
                b.append(String.format(Locale.ROOT, "  the schedule that failed, in run %d of the system process (%s; not a reproducer):%n",
                        f.run().runOfProcess(), size(f.schedule())));
            }
            default -> throw new IllegalStateException();
        }
        b.append(f.reportedSchedule().describe().indent(4));
    }

    /** Where in its run a failure happened, by step of the schedule; null when nowhere in particular. */
    public static String where(Conformance.Run m) {
        if (m.line() > 0) {
            return "at trace line " + m.line() + (m.step() == null ? "" : ", in the reply to " + m.step().describe());
        }
        if (m.step() == null) {
            return null;
        }
        return m.atEndOfRun() ? "at the end of the run, after its last command, " + m.step().describe() : "at " + m.step().describe();
    }

    /** A fresh replay's outcome, and whether it is the failure first seen. */
    private static String replayed(Conformance.Run x, String sig) {
        return outcome(x) + (x.signature().equals(sig) ? " (the same failure)" : x.passed() ? "" : " (a different failure)");
    }

    /** A run's outcome in a few words: "pass", "S8 NoCheckpointLeak at step 9", "crashed at step 4". */
    public static String outcome(Conformance.Run x) {
        if (x.passed()) {
            return "pass";
        }
        if (x.step() == null) {
            return x.verdictText();
        }
        return x.verdictText() + (x.atEndOfRun() ? " at the end of the run (step " + x.step().n() + ")" : " at step " + x.step().n());
    }

    private static String size(Schedule s) {
        return count(s.arrivals().size(), "request") + ", " + count(s.faults().size(), "failure");
    }

    /**
     * A run's session, by step of its schedule: each command the kit sent ({@code >}), the
     * system's events with their trace line numbers, and its ack ({@code <}).
     */
    public static String transcript(Conformance.Run x) {
        Session s = x.session();
        String[] trace = new String(x.trace(), java.nio.charset.StandardCharsets.UTF_8).split("\n", -1);
        StringBuilder b = new StringBuilder();
        b.append("# lumen conform session: step N is the Nth command the kit sent in this run (1 = init);\n");
        b.append("# \"line L\" is line L of the run's trace (line 1, the header, is the kit's own).\n");
        String where = where(x);
        b.append("# outcome: ").append(x.verdictText()).append(where == null ? "" : ", " + where).append('\n');
        int line = 2;
        for (int n = 1; n <= s.steps(); n++) {
            b.append(String.format(Locale.ROOT, "step %-7d kit > %s%n", n, s.step(n).cmd()));
            for (; line <= s.lines() && s.stepOfLine(line).n() == n; line++) {
                b.append(String.format(Locale.ROOT, "  line %-5d sut < %s%n", line, line - 1 < trace.length ? trace[line - 1] : ""));
            }
            String ack = s.ack(n);
            b.append(ack != null ? "             sut < " + ack + "\n"
                    : "             (no ack: " + x.verdictText() + ": " + x.message().lines().findFirst().orElse("") + ")\n");
        }
        return b.toString();
    }

    /** "1 request", "2 requests". */
    public static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    public static Map<String, Object> json(Conformance.Report r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sut", r.options.sut());
        m.put("verdict", r.passedWithCoverage() ? "PASS" : "FAIL");
        m.put("reference", r.options.reference().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        m.put("coverageRequired", r.options.requireCoverage());
        if (r.passed() && !r.passedWithCoverage()) {
            m.put("uncovered", r.uncovered().stream().map(x -> x.name().toLowerCase(Locale.ROOT)).toList());
        }
        m.put("schedules", r.schedules);
        m.put("firstSeed", r.options.firstSeed());
        m.put("policies", r.options.policies());
        m.put("readings", r.options.readings().toMap());
        m.put("events", r.events);
        m.put("seconds", Math.round(r.seconds * 10) / 10.0);
        if (!r.passed()) {
            Conformance.Failure f = r.failure;
            Map<String, Object> fail = new LinkedHashMap<>(outcomeJson(f.reported(), f.run().signature()));
            fail.remove("sameFailure");
            fail.put("reproducible", f.reproducible());
            fail.put("reproducer", f.reproducer() == Conformance.Reproducer.NONE ? null : f.reproducer().name().toLowerCase(Locale.ROOT));
            fail.put("seed", f.seed());
            fail.put("firstSeenAs", f.run().verdictText());
            fail.put("firstSeenInRunOfProcess", f.run().runOfProcess());
            Map<String, Object> fresh = new LinkedHashMap<>();
            fresh.put("minimal", outcomeJson(f.freshMinimal(), f.run().signature()));
            fresh.put("unshrunk", outcomeJson(f.freshFirst(), f.run().signature()));
            fail.put("freshReplay", fresh);
            fail.put("shrinkRuns", f.shrinkRuns());
            fail.put("minimalSchedule", schedule(f.minimal()));
            fail.put("reproducerSchedule", f.reproducible() ? schedule(f.reportedSchedule()) : null);
            m.put("failure", fail);
        }
        Map<String, Object> cov = new LinkedHashMap<>();
        for (PropertyCheck.Feature x : PropertyCheck.Feature.values()) {
            cov.put(x.name().toLowerCase(Locale.ROOT), r.possible(x) ? Math.round(r.share(x) * 1000) / 1000.0 : null);
        }
        m.put("coverage", cov);
        return m;
    }

    /** One run's outcome, where it happened by step of the schedule, and whether it has the signature {@code sig}. */
    private static Map<String, Object> outcomeJson(Conformance.Run x, String sig) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("verdict", x.verdictText());
        o.put("kind", x.kind().name());
        o.put("property", x.property() == null ? null : x.property().name());
        o.put("propertyName", x.property() == null ? null : x.property().label());
        o.put("sameFailure", x.signature().equals(sig));
        o.put("message", x.message());
        o.put("line", x.line());
        o.put("step", x.step() == null ? null : x.step().n());
        o.put("command", x.step() == null ? null : x.step().shownCmd());
        o.put("atEndOfRun", x.atEndOfRun());
        o.put("event", x.event());
        o.put("runOfProcess", x.runOfProcess());
        return o;
    }

    /** A schedule as data: the config, the arrivals and the failures the kit sends. */
    public static Map<String, Object> schedule(Schedule s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("config", s.config());
        m.put("draftAgreement", s.draftAgreement());
        List<Object> as = new ArrayList<>();
        for (Arrival a : s.arrivals()) {
            as.add(Map.of("t", a.atMs(), "req", a.id(), "promptLen", a.promptLen(), "outLen", a.outLen(), "seed", a.seed()));
        }
        m.put("arrivals", as);
        List<Object> fs = new ArrayList<>();
        for (Fault f : s.faults()) {
            fs.add(Map.of("t", f.afterMs(), "worker", f.worker(), "point", f.point().name()));
        }
        m.put("failures", fs);
        return m;
    }
}
