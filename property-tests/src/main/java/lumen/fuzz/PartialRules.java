package lumen.fuzz;

import static lumen.fuzz.TraceText.pick;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import lumen.fuzz.ReaderMutator.Base;
import lumen.fuzz.ReaderMutator.Change;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Rule;

/**
 * The rules of partial traces (docs/trace-format.md, Partial traces), beside the reading rules
 * every line follows: what the header's {@code observes} may declare, what a batch iteration's and
 * a size report's entries carry, and that a composed line needs its level declared; and the
 * variations the docs allow (a level's default declared or not, a composed line written as its
 * single steps). Bounds on the search may be anything in range: any verdict, but a verdict.
 */
final class PartialRules {
    /** The four levels, each with its two values (the default first). */
    private static final String[][] LEVELS = {{"Place", "logged", "hidden"}, {"loads", "cited", "hidden"}, {"Decode", "step", "batch"},
        {"StreamPage", "logged", "sizes"}};

    private PartialRules() {}

    static List<Rule> rules() {
        List<Rule> rs = new ArrayList<>();
        Expect m = Expect.MALFORMED;
        rs.add(new Rule("bad-observes", m, "observes declares known levels with their values, and bounds in range (Partial traces)",
                (b, r) -> {
            String v = pick(r, "[]", "\"hidden\"", "null", "{\"Place\":\"maybe\"}", "{\"place\":\"hidden\"}", "{\"Decode\":\"batches\"}",
                    "{\"hiddenSteps\":0}", "{\"hiddenSteps\":65}", "{\"hiddenSteps\":4.0}", "{\"candidates\":0}", "{\"candidates\":1000001}",
                    "{\"StreamPage\":null}", "{\"loads\":true}", "{\"Place\":\"hidden\",\"Place\":\"hidden\"}", "{\"Decode\":\"BATCH\"}",
                    "{\"hiddenSteps\":\"4\"}", "{\"candidates\":-1}", "{\"ext\":{}}");
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(0, replaceObserves(ls.get(0), v));
            return Change.lines(ls, 1, "observes " + v);
        }));
        rs.add(new Rule("undeclared-level", m, "a batch line needs observes.Decode=batch, and a StreamPage without pages or a size"
                + " report observes.StreamPage=sizes (Partial traces; Events: pages is required in v2)", (b, r) -> {
            ObjectNode h = ReaderMutator.tree(b.lines().get(0));
            ObjectNode obs = (ObjectNode) h.get("observes");
            List<String> declared = new ArrayList<>();
            if ("batch".equals(obs.path("Decode").asText())) {
                declared.add("Decode");
            }
            if ("sizes".equals(obs.path("StreamPage").asText())) {
                declared.add("StreamPage");
            }
            if (declared.isEmpty()) {
                return null;
            }
            String level = pick(declared, r);
            int first = -1;
            for (int i = 1; i < b.lines().size() && first < 0; i++) {
                ObjectNode o = ReaderMutator.tree(b.lines().get(i));
                boolean needs = level.equals("Decode") ? o.has("batch")
                        : o.has("sizes") || o.path("type").asText().equals("StreamPage") && !o.has("pages");
                if (needs) {
                    first = i;
                }
            }
            if (first < 0) {
                return null;
            }
            if (r.nextBoolean()) {
                obs.remove(level);
            } else {
                obs.put(level, level.equals("Decode") ? "step" : "logged");
            }
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(0, h.toString());
            return Change.lines(ls, first + 1, "observes." + level + " " + (obs.has(level) ? "at its default" : "not declared")
                    + ", its first composed line at " + (first + 1));
        }));
        rs.add(new Rule("bad-entry", m, "a batch entry carries req, tokens and pages, a size report's req, holder and ckpt, and"
                + " the array is not empty (Partial traces)", (b, r) -> {
            List<Integer> is = composedLines(b);
            if (is.isEmpty()) {
                return null;
            }
            int i = pick(is, r);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            String field = o.has("batch") ? "batch" : "sizes";
            ArrayNode entries = (ArrayNode) o.get(field);
            String what;
            switch (r.nextInt(3)) {
                case 0 -> {
                    entries.removeAll();
                    what = "an empty " + field;
                }
                case 1 -> {
                    ObjectNode en = (ObjectNode) entries.get(r.nextInt(entries.size()));
                    List<String> fs = new ArrayList<>();
                    en.fieldNames().forEachRemaining(fs::add);
                    String f = pick(fs, r);
                    en.remove(f);
                    what = "a " + field + " entry without '" + f + "'";
                }
                default -> {
                    ObjectNode en = (ObjectNode) entries.get(r.nextInt(entries.size()));
                    String f = field.equals("batch") ? pick(r, "worker", "holder", "ckpt", "t", "type", "phase")
                            : pick(r, "worker", "tokens", "pages", "t", "type", "phase");
                    en.put(f, 1);
                    what = "a " + field + " entry with '" + f + "'";
                }
            }
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(i, o.toString());
            return Change.lines(ls, i + 1, what);
        }));

        Expect ok = Expect.ACCEPTED;
        rs.add(new Rule("observes-defaults", ok, "a level left out takes its default, which may also be declared; the bounds' defaults"
                + " likewise, and the fields in any order (Partial traces)", (b, r) -> {
            ObjectNode h = ReaderMutator.tree(b.lines().get(0));
            ObjectNode obs = (ObjectNode) h.get("observes");
            for (String[] l : LEVELS) {
                if (!obs.has(l[0]) && r.nextBoolean()) {
                    obs.put(l[0], l[1]);
                }
            }
            if (!obs.has("hiddenSteps") && r.nextBoolean()) {
                obs.put("hiddenSteps", lumen.trace.Observation.DEFAULT_HIDDEN_STEPS);
            }
            if (!obs.has("candidates") && r.nextBoolean()) {
                obs.put("candidates", lumen.trace.Observation.DEFAULT_CANDIDATES);
            }
            h.set("observes", ReaderMutator.shuffled(obs, r));
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(0, h.toString());
            return Change.lines(ls, 0, "observes " + h.get("observes"));
        }));
        rs.add(new Rule("composed-as-steps", ok, "a Decode line may be one batch iteration, and a StreamPage line a size report: each"
                + " may also be written as its steps, one line each (Partial traces)", (b, r) -> {
            List<Integer> is = composedLines(b);
            if (is.isEmpty()) {
                return null;
            }
            int i = pick(is, r);
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            String field = o.has("batch") ? "batch" : "sizes";
            List<String> steps = new ArrayList<>();
            for (JsonNode en : o.get(field)) {
                ObjectNode s = ReaderMutator.MAPPER.createObjectNode();
                for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (e.getKey().equals(field)) {
                        s.setAll((ObjectNode) en);
                    } else {
                        s.set(e.getKey(), e.getValue());
                    }
                }
                steps.add(s.toString());
            }
            List<String> ls = new ArrayList<>(b.lines());
            ls.remove(i);
            ls.addAll(i, steps);
            return Change.lines(ls, 0, "the " + field + " line " + (i + 1) + " written as its " + steps.size() + " steps");
        }));

        Expect any = Expect.ANY;
        rs.add(new Rule("search-bounds", any, "hiddenSteps 1..64 and candidates 1..1000000: a bound the search reaches makes a rejection"
                + " UNDECIDED (Partial traces)", (b, r) -> {
            ObjectNode h = ReaderMutator.tree(b.lines().get(0));
            ObjectNode obs = (ObjectNode) h.get("observes");
            if (r.nextBoolean()) {
                obs.put("hiddenSteps", pick(r, 1, 2, 64));
            }
            obs.put("candidates", pick(r, 1, 2, 3, 8, 1_000_000));
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(0, h.toString());
            return Change.lines(ls, 1, "observes " + obs);
        }));
        return rs;
    }

    /** The header line with its observes value replaced by {@code v} (the rest of the line as it was). */
    static String replaceObserves(String header, String v) {
        List<TraceText.Tok> ts = TraceText.tokens(header);
        for (int i = 0; i < ts.size(); i++) {
            TraceText.Tok t = ts.get(i);
            if (t.kind() == com.fasterxml.jackson.core.JsonToken.START_OBJECT && "observes".equals(t.field())) {
                return TraceText.replace(header, t.start(), TraceText.valueEnd(ts, i), v);
            }
        }
        throw new IllegalStateException("a partial trace's header declares observes");
    }

    /** The lines that carry a batch or a size report. */
    static List<Integer> composedLines(Base b) {
        List<Integer> is = new ArrayList<>();
        for (int i = 1; i < b.lines().size(); i++) {
            String l = b.lines().get(i);
            if (l.contains("\"batch\":[") || l.contains("\"sizes\":[")) {
                is.add(i);
            }
        }
        return is;
    }
}
