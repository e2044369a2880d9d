package lumen.spec.tlc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Renders a TLC counterexample as a timeline in the spec's vocabulary: one line per step with the
 * action, then only what that step changed ({@code phase[r1]: "QUEUED" -> "DECODE"}).
 */
public final class Timeline {

    private Timeline() {
    }

    public static String render(List<TraceState> states, int loopBackTo) {
        StringBuilder sb = new StringBuilder();
        Map<String, String> previous = Map.of();
        for (TraceState s : states) {
            Map<String, String> flat = flatten(s.variables());
            sb.append(String.format("%3d  %s%n", s.index(), s.action()));
            if (s.action().equals("Init")) {
                flat.forEach((k, v) -> sb.append(String.format("       %s = %s%n", k, v)));
            } else {
                for (var e : flat.entrySet()) {
                    String before = previous.get(e.getKey());
                    if (!Objects.equals(before, e.getValue())) {
                        sb.append(String.format("       %s: %s -> %s%n", e.getKey(),
                                before == null ? "(none)" : before, e.getValue()));
                    }
                }
            }
            if (!flat.isEmpty()) {
                previous = flat;
            }
        }
        if (loopBackTo > 0) {
            sb.append(String.format("  ... and back to state %d, forever%n", loopBackTo));
        }
        return sb.toString();
    }

    /** Splits function values such as {@code (r1 :> "NEW" @@ r2 :> "DONE")} into one entry per key. */
    static Map<String, String> flatten(Map<String, String> vars) {
        Map<String, String> out = new LinkedHashMap<>();
        vars.forEach((name, value) -> {
            List<String[]> entries = functionEntries(value);
            if (entries == null) {
                out.put(name, value);
            } else {
                entries.forEach(kv -> out.put(name + "[" + kv[0] + "]", kv[1]));
            }
        });
        return out;
    }

    /** The key/value pairs of a TLC function value, or null if the value is not one. */
    static List<String[]> functionEntries(String value) {
        String v = value.strip();
        if (!v.startsWith("(") || !v.endsWith(")") || !v.contains(" :> ")) {
            return null;
        }
        List<String> parts = splitTopLevel(v.substring(1, v.length() - 1), " @@ ");
        List<String[]> entries = new ArrayList<>();
        for (String part : parts) {
            List<String> kv = splitTopLevel(part, " :> ");
            if (kv.size() != 2) {
                return null;
            }
            entries.add(new String[] {kv.get(0).strip(), kv.get(1).strip()});
        }
        return entries;
    }

    static List<String> splitTopLevel(String s, String separator) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            } else if (!quoted) {
                if (c == '(' || c == '[' || c == '{' || (c == '<' && s.startsWith("<<", i))) {
                    depth++;
                    if (c == '<') {
                        i++;
                    }
                } else if (c == ')' || c == ']' || c == '}' || (c == '>' && s.startsWith(">>", i))) {
                    depth--;
                    if (c == '>') {
                        i++;
                    }
                } else if (depth == 0 && s.startsWith(separator, i)) {
                    parts.add(s.substring(start, i));
                    start = i + separator.length();
                    i = start - 1;
                }
            }
        }
        parts.add(s.substring(start));
        return parts;
    }
}
