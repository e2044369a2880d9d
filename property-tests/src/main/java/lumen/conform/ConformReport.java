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
        b.append(String.format(Locale.ROOT, "%d schedules (seeds %d..%d, policies %s), %,d events, %.1f s%n", r.schedules, r.options.firstSeed(),
                r.options.firstSeed() + Math.max(0, r.schedules - 1), String.join(", ", r.options.policies()), r.events, r.seconds));
        if (r.passed()) {
            b.append("verdict: PASS: every trace is a behaviour of the spec, every request completed, every failed worker rejoined\n");
        } else {
            Conformance.Failure f = r.failure;
            Conformance.Run m = f.minimalRun();
            b.append("verdict: FAIL: ").append(m.verdictText()).append('\n');
            b.append("  ").append(m.message()).append('\n');
            if (m.line() > 0) {
                b.append("  at trace line ").append(m.line()).append(m.step() == null ? "" : ", in the reply to " + m.step()).append('\n');
            }
            if (m.event() != null) {
                b.append("  event: ").append(m.event()).append('\n');
            }
            b.append(String.format(Locale.ROOT, "  seed %d (replay: --seed %d --schedules 1); first seen as: %s%n", f.seed(), f.seed(), f.run().verdictText()));
            b.append(String.format(Locale.ROOT, "  minimal schedule, after %d shrink runs (%s, %s):%n", f.shrinkRuns(),
                    count(f.minimal().arrivals().size(), "request"), count(f.minimal().faults().size(), "failure")));
            b.append(f.minimal().describe().indent(4));
        }
        b.append("coverage (share of schedules):\n");
        for (PropertyCheck.Feature x : PropertyCheck.Feature.values()) {
            b.append(String.format(Locale.ROOT, "  %-26s %5.1f%%%n", x.name().toLowerCase(Locale.ROOT).replace('_', ' '), 100 * r.share(x)));
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
        m.put("verdict", r.passed() ? "PASS" : "FAIL");
        m.put("schedules", r.schedules);
        m.put("firstSeed", r.options.firstSeed());
        m.put("policies", r.options.policies());
        m.put("events", r.events);
        m.put("seconds", Math.round(r.seconds * 10) / 10.0);
        if (!r.passed()) {
            Conformance.Failure f = r.failure;
            Conformance.Run x = f.minimalRun();
            Map<String, Object> fail = new LinkedHashMap<>();
            fail.put("kind", x.kind().name());
            fail.put("property", x.property() == null ? null : x.property().name());
            fail.put("propertyName", x.property() == null ? null : x.property().label());
            fail.put("message", x.message());
            fail.put("line", x.line());
            fail.put("step", x.step());
            fail.put("event", x.event());
            fail.put("seed", f.seed());
            fail.put("firstSeenAs", f.run().verdictText());
            fail.put("shrinkRuns", f.shrinkRuns());
            fail.put("minimalSchedule", schedule(f.minimal()));
            m.put("failure", fail);
        }
        Map<String, Object> cov = new LinkedHashMap<>();
        for (PropertyCheck.Feature x : PropertyCheck.Feature.values()) {
            cov.put(x.name().toLowerCase(Locale.ROOT), Math.round(r.share(x) * 1000) / 1000.0);
        }
        m.put("coverage", cov);
        return m;
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
