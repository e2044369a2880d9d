package lumen.spec.tlc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Folds TLC's messages, in order, into a {@link TlcResult}. */
public final class TlcResultBuilder {

    private static final Pattern STATS = Pattern.compile(
            "([\\d,]+) states generated.*?([\\d,]+) distinct states found");
    private static final Pattern DEPTH = Pattern.compile("depth of the complete state graph search is (\\d+)");
    private static final Pattern VIOLATED = Pattern.compile("(?:Invariant|Action property) (\\S+) is violated");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_!]*");
    private static final Pattern STATE_HEADER = Pattern.compile("^(\\d+): <(.*)>$");
    private static final Pattern ACTION = Pattern.compile("^(\\S+?)(?:\\((.*)\\))? (line \\d+, col \\d+ to line \\d+, col \\d+ of module \\S+)$");
    private static final Pattern STUTTER = Pattern.compile("^(\\d+): Stuttering$");
    private static final Pattern BACK = Pattern.compile("(\\d+): Back to state");

    private TlcResult.Status status;
    private String violated;
    private long generated = -1;
    private long distinct = -1;
    private int depth = -1;
    private final List<TraceState> trace = new ArrayList<>();
    private int loopBack = -1;
    private final StringBuilder errors = new StringBuilder();
    private boolean success;

    public void accept(TlcMessage m) {
        switch (m.code()) {
            case TlcMessage.SUCCESS -> success = true;
            case TlcMessage.STATS, TlcMessage.PROGRESS -> stats(m.text());
            case TlcMessage.SEARCH_DEPTH -> {
                Matcher d = DEPTH.matcher(m.text());
                if (d.find()) {
                    depth = Integer.parseInt(d.group(1));
                }
            }
            case TlcMessage.INVARIANT_VIOLATED_BEHAVIOR, TlcMessage.INVARIANT_VIOLATED_INITIAL,
                    TlcMessage.ACTION_PROPERTY_VIOLATED -> {
                status = TlcResult.Status.SAFETY_VIOLATION;
                Matcher v = VIOLATED.matcher(m.text());
                violated = v.find() ? v.group(1) : m.text();
            }
            case TlcMessage.TEMPORAL_PROPERTY_VIOLATED -> status = TlcResult.Status.LIVENESS_VIOLATION;
            case TlcMessage.DEADLOCK -> status = TlcResult.Status.DEADLOCK;
            case TlcMessage.STATE -> trace.add(state(m.text()));
            case TlcMessage.STUTTERING -> {
                Matcher s = STUTTER.matcher(m.text().strip());
                int index = s.find() ? Integer.parseInt(s.group(1)) : trace.size() + 1;
                trace.add(new TraceState(index, "Stuttering", "", Map.of()));
            }
            case TlcMessage.BACK_TO_STATE -> {
                Matcher b = BACK.matcher(m.text());
                if (b.find()) {
                    loopBack = Integer.parseInt(b.group(1));
                }
            }
            default -> {
                if (m.isError() && status == null) {
                    if (errors.length() > 0) {
                        errors.append('\n');
                    }
                    errors.append(m.text().strip());
                }
            }
        }
    }

    private void stats(String text) {
        Matcher s = STATS.matcher(text);
        if (s.find()) {
            generated = Long.parseLong(s.group(1).replace(",", ""));
            distinct = Long.parseLong(s.group(2).replace(",", ""));
        }
    }

    static TraceState state(String text) {
        String[] lines = text.split("\n");
        Matcher h = STATE_HEADER.matcher(lines[0].strip());
        int index = -1;
        String action = "?";
        String location = "";
        if (h.matches()) {
            index = Integer.parseInt(h.group(1));
            String what = h.group(2);
            if (what.equals("Initial predicate")) {
                action = "Init";
            } else {
                Matcher a = ACTION.matcher(what);
                if (a.matches()) {
                    action = a.group(1);
                    location = a.group(3);
                } else {
                    action = what;
                }
            }
        }
        Map<String, String> vars = new LinkedHashMap<>();
        String name = null;
        StringBuilder value = new StringBuilder();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith("/\\ ")) {
                if (name != null) {
                    vars.put(name, value.toString().strip());
                }
                int eq = line.indexOf(" = ");
                name = eq > 0 ? line.substring(3, eq) : line.substring(3);
                value = new StringBuilder(eq > 0 ? line.substring(eq + 3) : "");
            } else if (name != null) {
                value.append(' ').append(line.strip());
            }
        }
        if (name != null) {
            vars.put(name, value.toString().strip());
        }
        return new TraceState(index, action, location, vars);
    }

    /**
     * @param exitCode      the TLC process's exit code
     * @param elapsed       wall time of the process
     * @param freeText      output lines outside messages (parse errors live there)
     * @param singleTemporal the one temporal property checked, named as the violated one when TLC
     *                      reports only "temporal properties were violated"; null if not known
     */
    public TlcResult build(int exitCode, Duration elapsed, List<String> freeText, String singleTemporal) {
        TlcResult.Status s = status;
        String err = errors.toString();
        if (s == null) {
            s = success && exitCode == 0 ? TlcResult.Status.PASS : TlcResult.Status.ERROR;
        }
        if (s == TlcResult.Status.LIVENESS_VIOLATION && violated == null) {
            violated = singleTemporal;
        }
        if (s == TlcResult.Status.SAFETY_VIOLATION && violated != null && !NAME.matcher(violated).matches() && singleTemporal != null) {
            // an action property that TLC names by its location only ("Action property line 53, col 21 to
            // line 53, col 35 of module Service is violated"): a conjunct of an instantiated spec, such as
            // the box-action part of a refinement; the config's one temporal property is the one broken
            violated = singleTemporal;
        }
        if (s == TlcResult.Status.ERROR) {
            String detail = parseDetail(freeText);
            if (!detail.isEmpty()) {
                err = err.isEmpty() ? detail : detail + "\n" + err;
            }
            if (err.isEmpty()) {
                err = "TLC exited with code " + exitCode + " without a verdict";
            }
        } else {
            err = "";
        }
        return new TlcResult(s, violated, generated, distinct, depth, elapsed, List.copyOf(trace), loopBack, err);
    }

    /** The lines of SANY's report that say what is wrong with a spec that does not parse. */
    private static String parseDetail(List<String> freeText) {
        List<String> keep = new ArrayList<>();
        boolean inErrors = false;
        for (String line : freeText) {
            String t = line.strip();
            if (t.startsWith("***") || t.startsWith("Semantic errors") || t.startsWith("Fatal errors")
                    || t.startsWith("Lexical error") || t.startsWith("Parse Error")) {
                inErrors = true;
            }
            if (t.startsWith("File does not exist") || t.startsWith("Cannot find source file")) {
                keep.add(t);
            }
            if (inErrors && !t.isEmpty() && !t.startsWith("at ") && !t.startsWith("Parsing file")
                    && !t.startsWith("Semantic processing")) {
                keep.add(t);
            }
        }
        return String.join("\n", keep.stream().distinct().toList());
    }
}
