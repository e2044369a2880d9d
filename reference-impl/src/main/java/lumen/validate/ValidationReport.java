package lumen.validate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import lumen.core.Finding;
import lumen.trace.Echo;

/**
 * Validation results as text (for people) and as a JSON-ready map (for machines). What quotes
 * the trace (the event, a finding's message, expected and actual values) is cut to
 * {@link Echo#MAX_BYTES} bytes each, so a report on a huge line stays short.
 */
public final class ValidationReport {
    private ValidationReport() {}

    /** The result as the lines {@code lumen validate} prints. */
    public static String text(ValidationResult r) {
        StringBuilder b = new StringBuilder();
        switch (r.verdict()) {
            case ACCEPTED -> b.append(String.format(Locale.ROOT, "%s: ACCEPTED (trace contract v%d, %d events; %d requests done, %d still running at the end) %s%n",
                    r.source(), r.version(), r.events(), r.done(), r.open(), r.byType()));
            case INCOMPLETE -> {
                b.append(String.format(Locale.ROOT, "%s: INCOMPLETE: every event is a step of the spec and no property breaks, but the run"
                        + " is not finished (%d events; %d unfinished):%n", r.source(), r.events(), r.unfinished().size()));
                for (String u : r.unfinished().subList(0, Math.min(20, r.unfinished().size()))) {
                    b.append("  ").append(u).append(System.lineSeparator());
                }
                if (r.unfinished().size() > 20) {
                    b.append("  ... and ").append(r.unfinished().size() - 20).append(" more").append(System.lineSeparator());
                }
            }
            case MALFORMED -> b.append("MALFORMED: ").append(r.error().getMessage()).append(System.lineSeparator());
            case UNDECIDED -> {
                b.append(String.format(Locale.ROOT, "%s: UNDECIDED: the kit could not decide this trace (%d events read)%n", r.source(), r.events()));
                if (r.divergence() != null) {
                    b.append(String.format(Locale.ROOT, "  on the candidates kept it is rejected at line %d by %s: %s%n", r.divergence().line(),
                            r.divergence().finding().label(), Echo.cut(r.divergence().finding().message())));
                }
            }
            case REJECTED -> {
                Divergence d = r.divergence();
                Finding f = d.finding();
                b.append(String.format(Locale.ROOT, "%s:%d: REJECTED by %s%n", r.source(), d.line(), f.label()));
                b.append("  event:    ").append(Echo.cut(d.event())).append(System.lineSeparator());
                b.append("  finding:  ").append(Echo.cut(f.message())).append(System.lineSeparator());
                if (f.expected() != null) {
                    b.append("  expected: ").append(Echo.cut(f.expected())).append(System.lineSeparator());
                    b.append("  actual:   ").append(Echo.cut(f.actual())).append(System.lineSeparator());
                }
                for (Finding o : d.others()) {
                    b.append("  also:     ").append(Echo.cut(o.toString())).append(System.lineSeparator());
                }
                if (d.matched() != null) {
                    b.append("  matched:  ").append(d.matched()).append(System.lineSeparator());
                }
                b.append("  spec state before this event: ");
                for (String line : d.state().split("\n")) {
                    b.append(line.startsWith("  ") ? "    " + line.substring(2) : line).append(System.lineSeparator());
                }
            }
        }
        if (r.verdict() != Verdict.MALFORMED) {
            for (String n : r.notes()) {
                // a note on why the trace was judged as it was, not on what it could not show
                b.append(n.startsWith(Validator.V1_BREAK) || n.startsWith(ProcessLogs.ORDERS) ? "  " : "  not shown: ").append(n)
                        .append(System.lineSeparator());
            }
        }
        return b.toString();
    }

    private static Map<String, Object> finding(Finding f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("property", f.property() == null ? null : f.property().name());
        m.put("label", f.label());
        m.put("message", Echo.cut(f.message()));
        m.put("expected", Echo.cut(f.expected()));
        m.put("actual", Echo.cut(f.actual()));
        return m;
    }

    /** The result as a map for a JSON report. */
    public static Map<String, Object> json(ValidationResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("trace", r.source());
        m.put("verdict", r.verdict().name());
        m.put("version", r.version());
        m.put("reference", r.reference());
        m.put("notShown", r.notes().stream().filter(n -> !n.startsWith(ProcessLogs.ORDERS)).toList());
        if (r.notes().stream().anyMatch(n -> n.startsWith(ProcessLogs.ORDERS))) {
            m.put("orders", r.notes().stream().filter(n -> n.startsWith(ProcessLogs.ORDERS)).toList());
        }
        if (r.verdict() == Verdict.INCOMPLETE) {
            m.put("unfinished", r.unfinished());
        }
        m.put("events", r.events());
        m.put("eventsByType", r.byType());
        m.put("requestsDone", r.done());
        m.put("requestsRunningAtEnd", r.open());
        if (r.config() != null) {
            m.put("policy", r.config().policy());
            m.put("workers", r.config().workers());
        }
        if (r.divergence() != null) {
            Divergence d = r.divergence();
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("line", d.line());
            dm.put("event", Echo.cut(d.event()));
            dm.putAll(finding(d.finding()));
            List<Object> others = new ArrayList<>();
            for (Finding o : d.others()) {
                others.add(finding(o));
            }
            dm.put("alsoBroken", others);
            dm.put("specState", d.state());
            dm.put("matched", d.matched());
            m.put("divergence", dm);
        }
        if (r.error() != null) {
            Map<String, Object> em = new LinkedHashMap<>();
            em.put("line", r.error().line());
            em.put("message", r.error().getMessage());
            m.put("error", em);
        }
        return m;
    }
}
