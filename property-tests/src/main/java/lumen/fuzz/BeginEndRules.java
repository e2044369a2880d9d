package lumen.fuzz;

import static lumen.fuzz.TraceText.pick;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import lumen.fuzz.ReaderMutator.Base;
import lumen.fuzz.ReaderMutator.Change;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Rule;

/**
 * The rules of traces with begin and end forms (docs/trace-format.md, Begin and end), beside the
 * reading rules every line follows: what a begin, a chunk and an end must be and where they may
 * come, and the variations the docs allow (a begin with or without its holder, pages anywhere
 * between a step's begin and its end, a step written whole or in parts, a step begun and never
 * ended, a begin earlier than it need be).
 */
final class BeginEndRules {
    /** The types that have no begin and end forms (a Route has them, for a RESTORE). */
    private static final Set<String> ATOMIC_ONLY = Set.of("Arrive", "Place", "Complete", "Fail", "Restart", "DraftReady", "Assist");

    private BeginEndRules() {}

    static List<Rule> rules() {
        List<Rule> rs = new ArrayList<>();
        Expect m = Expect.MALFORMED;
        rs.add(new Rule("end-without-begin", m, "an end without its begin is an error (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, null);
            if (s == null) {
                return null;
            }
            List<String> ls = new ArrayList<>(b.lines());
            String begin = ls.remove(s.begin());
            // the first line of the step after its begin: a chunk (without its begin) or the end
            int first = (s.chunks().isEmpty() ? s.end() : s.chunks().get(0)) - 1;
            if (r.nextBoolean()) {
                ls.add(s.end(), begin);   // the begin after its end
                return Change.lines(ls, first + 1, s.key() + ": its begin moved after its end");
            }
            return Change.lines(ls, first + 1, s.key() + ": its begin removed");
        }));
        rs.add(new Rule("phase-on-atomic-type", m, "only Prefill, Decode, StreamPage, Route and FullReady have begin and end forms"
                + " (Begin and end)", (b, r) -> {
            ReaderMutator.At at = atomicLine(b, r, ATOMIC_ONLY);
            if (at == null) {
                return null;
            }
            String phase = pick(r, "begin", "end", "chunk");
            return ReaderMutator.changed(b, at, insertPhase(at.line(), phase), "a " + ReaderMutator.typeOf(at) + " with phase " + phase);
        }));
        rs.add(new Rule("bad-phase", m, "phase is \"begin\", \"chunk\" or \"end\" (Begin and end)", (b, r) -> {
            ReaderMutator.At at = phased(b, r, null);
            if (at == null) {
                return null;
            }
            String v = pick(r, "\"Begin\"", "\"END\"", "\"middle\"", "\"\"", "\"begin \"", "\"start\"", "\"done\"", "\"chunks\"");
            return ReaderMutator.changed(b, at, at.line().replaceFirst("\"phase\":\"[a-z]+\"", "\"phase\":" + v.replace("\\", "\\\\")),
                    "phase " + v + " on a " + ReaderMutator.typeOf(at) + " line");
        }));
        rs.add(new Rule("chunk-not-prefill", m, "only a Prefill has chunks (Begin and end)", (b, r) -> {
            ReaderMutator.At at = phased(b, r, "begin");
            if (at == null || "Prefill".equals(ReaderMutator.typeOf(at))) {
                return null;
            }
            return ReaderMutator.changed(b, at, at.line().replace("\"phase\":\"begin\"", "\"phase\":\"chunk\""),
                    "a " + ReaderMutator.typeOf(at) + " begin made a chunk");
        }));
        rs.add(new Rule("chunk-without-begin", m, "a chunk belongs to a begun step (Begin and end)", (b, r) -> {
            ReaderMutator.At at = atomicLine(b, r, Set.of("Prefill"));
            if (at == null) {
                return null;
            }
            // right after a Prefill (atomic or end) no step of its request on its worker is open
            ObjectNode p = ReaderMutator.tree(at.line());
            String chunk = chunk(p.get("req"), p.get("worker"));
            List<String> ls = new ArrayList<>(b.lines());
            ls.add(at.index() + 1, chunk);
            return Change.lines(ls, at.index() + 2, "a Prefill chunk after its step ended");
        }));
        rs.add(new Rule("chunk-after-stop", m, "a chunk after the Fail or Restart that stopped its step is an error on its line (Begin"
                + " and end)", (b, r) -> {
            ReaderMutator.At at = atomicLine(b, r, Set.of("Fail", "Restart"));
            if (at == null) {
                return null;
            }
            ObjectNode stop = ReaderMutator.tree(at.line());
            JsonNode w = stop.get("worker");
            JsonNode req = null;
            if (stop.path("type").asText().equals("Fail")) {
                // a Fail stops the steps of the requests it interrupts or orphans
                List<JsonNode> hit = new ArrayList<>();
                stop.path("interrupted").forEach(hit::add);
                stop.path("orphaned").forEach(hit::add);
                if (!hit.isEmpty()) {
                    req = pick(hit, r);
                }
            } else {
                // a Restart, every Prefill and Decode its worker began
                List<JsonNode> arrived = arrivedBefore(b, at.index());
                if (!arrived.isEmpty()) {
                    req = pick(arrived, r);
                }
            }
            if (req == null) {
                return null;
            }
            ObjectNode begin = ReaderMutator.MAPPER.createObjectNode().put("type", "Prefill").put("phase", "begin");
            begin.set("req", req);
            begin.set("worker", w);
            List<String> ls = new ArrayList<>(b.lines());
            ls.add(at.index(), begin.toString());
            ls.add(at.index() + 2, chunk(req, w));
            return Change.lines(ls, at.index() + 3, "a Prefill chunk of request " + req + " on worker " + w + " after the "
                    + stop.path("type").asText() + " that stopped it");
        }));
        rs.add(new Rule("end-holder-differs", m, "a StreamPage begin's holder must be its end's (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, "StreamPage");
            if (s == null) {
                return null;
            }
            ObjectNode begin = ReaderMutator.tree(b.lines().get(s.begin()));
            int h = ReaderMutator.tree(b.lines().get(s.end())).path("holder").asInt();
            int other = (h + 1 + r.nextInt(b.workers() - 1)) % b.workers();
            BeginEnd.put(begin, "holder", begin.numberNode(other), "req");
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(s.begin(), begin.toString());
            return Change.lines(ls, s.end() + 1, s.key() + ": begun naming holder " + other + ", ended naming " + h);
        }));
        rs.add(new Rule("begin-before-arrive", m, "a step may begin only for a request that has arrived (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, null);
            if (s == null || s.type().equals("FullReady")) {
                return null;
            }
            JsonNode req = ReaderMutator.tree(b.lines().get(s.begin())).get("req");
            int arrive = -1;
            for (int i = 1; i < s.begin(); i++) {
                ObjectNode o = ReaderMutator.tree(b.lines().get(i));
                if (o.path("type").asText().equals("Arrive") && req.equals(o.get("req"))) {
                    arrive = i;
                }
            }
            if (arrive < 0) {
                return null;
            }
            List<String> ls = new ArrayList<>(b.lines());
            String begin = ls.remove(s.begin());
            ls.add(arrive, withoutTime(begin));
            return Change.lines(ls, arrive + 1, s.key() + ": begun before its request's Arrive");
        }));
        rs.add(new Rule("undeclared-begin-end", m, "a trace with begin and end forms declares \"steps\":\"begin-end\" (Begin and end)", (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            if (r.nextBoolean()) {
                String v = pick(r, "\"atomic\"", "\"begin_end\"", "\"Begin-End\"", "\"\"", "\"begin-end \"", "true", "[\"begin-end\"]", "null");
                ls.set(0, ls.get(0).replace("\"steps\":\"begin-end\"", "\"steps\":" + v));
                return Change.lines(ls, 1, "steps " + v);
            }
            ls.set(0, ls.get(0).replace("\"steps\":\"begin-end\",", ""));
            for (int i = 1; i < ls.size(); i++) {
                if (ls.get(i).contains("\"phase\"")) {
                    return Change.lines(ls, i + 1, "no steps declared, phases from line " + (i + 1));
                }
            }
            return null;
        }));

        Expect ok = Expect.ACCEPTED;
        rs.add(new Rule("begin-holder", ok, "a StreamPage begin may carry its end's holder (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, "StreamPage");
            if (s == null) {
                return null;
            }
            ObjectNode begin = ReaderMutator.tree(b.lines().get(s.begin()));
            if (begin.has("holder")) {
                begin.remove("holder");
            } else {
                BeginEnd.put(begin, "holder", ReaderMutator.tree(b.lines().get(s.end())).get("holder"), "req");
            }
            List<String> ls = new ArrayList<>(b.lines());
            ls.set(s.begin(), begin.toString());
            return Change.lines(ls, 0, s.key() + ": its begin " + (begin.has("holder") ? "names" : "no longer names") + " the holder");
        }));
        rs.add(new Rule("pages-moved", ok, "a Prefill or Decode's pages may be on its begin, its chunks or its end (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, null);
            if (s == null || !BeginEnd.WORKER_STEPS.contains(s.type())) {
                return null;
            }
            // the step whole again, then split anew
            List<String> ls = b.lines();
            ObjectNode whole = joined(ls, s);
            List<String> out = new ArrayList<>(ls.subList(0, s.begin()));
            for (int i = s.begin() + 1; i < s.end(); i++) {
                if (!s.chunks().contains(i)) {
                    out.add(ls.get(i));
                }
            }
            BeginEnd.splitInto(out, whole, r, r.nextInt(3));
            out.addAll(ls.subList(s.end() + 1, ls.size()));
            return Change.lines(out, 0, s.key() + ": its pages spread anew over its begin" + (s.type().equals("Prefill") ? ", chunks" : "")
                    + " and end");
        }));
        rs.add(new Rule("step-forms", ok, "a trace with begin and end forms may write any step whole, and split any of the five"
                + " (Begin and end)", (b, r) -> {
            if (r.nextBoolean()) {
                BeginEnd.Step s = step(b, r, null);
                if (s == null) {
                    return null;
                }
                List<String> ls = new ArrayList<>(b.lines());
                ObjectNode whole = joined(ls, s);
                ls.set(s.end(), whole.toString());
                List<Integer> drop = new ArrayList<>(s.chunks());
                drop.add(s.begin());
                drop.sort(java.util.Comparator.reverseOrder());
                for (int i : drop) {
                    ls.remove(i);
                }
                return Change.lines(ls, 0, s.key() + " written whole");
            }
            List<Integer> is = new ArrayList<>();
            for (int i = 1; i < b.lines().size(); i++) {
                if (BeginEnd.splittable(ReaderMutator.tree(b.lines().get(i)))) {
                    is.add(i);
                }
            }
            if (is.isEmpty()) {
                return null;
            }
            int i = pick(is, r);
            List<String> out = new ArrayList<>(b.lines().subList(0, i));
            BeginEnd.splitInto(out, ReaderMutator.tree(b.lines().get(i)), r, r.nextInt(3));
            out.addAll(b.lines().subList(i + 1, b.lines().size()));
            return Change.lines(out, 0, "the " + ReaderMutator.tree(b.lines().get(i)).path("type").asText() + " at line " + (i + 1) + " split");
        }));
        rs.add(new Rule("unfinished-begin", ok, "a step begun and never ended, or stopped by a failure, changes nothing (Begin and end)",
                (b, r) -> {
            List<String> ls = new ArrayList<>(b.lines());
            if (r.nextBoolean()) {
                // before a Fail that stops it: a step of a request it interrupts or orphans, or the failed worker's handover
                ReaderMutator.At at = atomicLine(b, r, Set.of("Fail"));
                if (at == null) {
                    return null;
                }
                ObjectNode f = ReaderMutator.tree(at.line());
                List<JsonNode> hit = new ArrayList<>();
                f.path("interrupted").forEach(hit::add);
                f.path("orphaned").forEach(hit::add);
                ObjectNode begin;
                if (hit.isEmpty() || r.nextInt(4) == 0) {
                    begin = ReaderMutator.MAPPER.createObjectNode().put("type", "FullReady").put("phase", "begin");
                    begin.set("worker", f.get("worker"));
                } else {
                    String type = pick(r, "StreamPage", "Route", "Decode", "Prefill");
                    begin = ReaderMutator.MAPPER.createObjectNode().put("type", type).put("phase", "begin");
                    begin.set("req", pick(hit, r));
                    if (BeginEnd.WORKER_STEPS.contains(type)) {
                        begin.set("worker", f.get("worker"));
                    }
                }
                ls.add(at.index(), begin.toString());
                return Change.lines(ls, 0, "a " + begin.path("type").asText() + " begun before the Fail at line " + (at.index() + 1) + " stops it");
            }
            // at the end of the run: nothing after it of its step
            List<JsonNode> arrived = arrivedBefore(b, ls.size());
            if (arrived.isEmpty()) {
                return null;
            }
            String type = pick(r, "StreamPage", "Route", "Decode", "Prefill", "FullReady");
            ObjectNode begin = ReaderMutator.MAPPER.createObjectNode().put("type", type).put("phase", "begin");
            if (type.equals("FullReady")) {
                begin.put("worker", r.nextInt(b.workers()));
            } else {
                begin.set("req", pick(arrived, r));
                if (BeginEnd.WORKER_STEPS.contains(type)) {
                    begin.put("worker", r.nextInt(b.workers()));
                }
            }
            ls.add(begin.toString());
            return Change.lines(ls, 0, "a " + type + " begun after the run's last line, never ended");
        }));
        rs.add(new Rule("begin-earlier", ok, "a step takes effect at its end: its begin may come any time after its request's Arrive,"
                + " before what would stop it (Begin and end)", (b, r) -> {
            BeginEnd.Step s = step(b, r, null);
            if (s == null) {
                return null;
            }
            List<String> ls = new ArrayList<>(b.lines());
            ObjectNode end = ReaderMutator.tree(ls.get(s.end()));
            int at = s.begin();
            int k = 1 + r.nextInt(6);
            while (k-- > 0 && at > 1 && !BeginEnd.blocks(ls.get(at - 1), end)) {
                at--;
            }
            if (at == s.begin()) {
                return null;
            }
            String begin = withoutTime(ls.remove(s.begin()));
            ls.add(at, begin);
            return Change.lines(ls, 0, s.key() + ": begun " + (s.begin() - at) + " line(s) earlier");
        }));
        return rs;
    }

    /** A step of the trace (of {@code type}, or any), drawn at random; null when it has none. */
    static BeginEnd.Step step(Base b, SplittableRandom r, String type) {
        List<BeginEnd.Step> ss = new ArrayList<>();
        for (BeginEnd.Step s : BeginEnd.steps(b.lines())) {
            if (type == null || s.type().equals(type)) {
                ss.add(s);
            }
        }
        return ss.isEmpty() ? null : pick(ss, r);
    }

    /** A line without a phase of one of these types; null when there is none. */
    static ReaderMutator.At atomicLine(Base b, SplittableRandom r, Set<String> types) {
        List<Integer> is = new ArrayList<>();
        for (int i = 1; i < b.lines().size(); i++) {
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            if (types.contains(o.path("type").asText()) && (!o.has("phase") || o.path("phase").asText().equals("end"))) {
                is.add(i);
            }
        }
        if (is.isEmpty()) {
            return null;
        }
        int i = pick(is, r);
        return new ReaderMutator.At(i, b.lines().get(i), TraceText.tokens(b.lines().get(i)));
    }

    /** A line with a phase (this one, or any); null when there is none. */
    static ReaderMutator.At phased(Base b, SplittableRandom r, String phase) {
        List<Integer> is = new ArrayList<>();
        for (int i = 1; i < b.lines().size(); i++) {
            String l = b.lines().get(i);
            if (phase == null ? l.contains("\"phase\":") : l.contains("\"phase\":\"" + phase + "\"")) {
                is.add(i);
            }
        }
        if (is.isEmpty()) {
            return null;
        }
        int i = pick(is, r);
        return new ReaderMutator.At(i, b.lines().get(i), TraceText.tokens(b.lines().get(i)));
    }

    /** The requests whose Arrive comes before line index {@code before}. */
    static List<JsonNode> arrivedBefore(Base b, int before) {
        List<JsonNode> out = new ArrayList<>();
        for (int i = 1; i < before && i < b.lines().size(); i++) {
            ObjectNode o = ReaderMutator.tree(b.lines().get(i));
            if (o.path("type").asText().equals("Arrive")) {
                out.add(o.get("req"));
            }
        }
        return out;
    }

    /** The line with {@code "phase":phase} right after its type. */
    static String insertPhase(String line, String phase) {
        return BeginEnd.withPhase(ReaderMutator.tree(line), phase).toString();
    }

    static String withoutTime(String line) {
        ObjectNode o = ReaderMutator.tree(line);
        o.remove("t");
        return o.toString();
    }

    /** A Prefill chunk of one page. */
    static String chunk(JsonNode req, JsonNode worker) {
        ObjectNode c = ReaderMutator.MAPPER.createObjectNode().put("type", "Prefill").put("phase", "chunk");
        c.set("req", req);
        c.set("worker", worker);
        c.putArray("pages").addArray().add(1).add(1).add("00000000000000aa");
        return c.toString();
    }

    /** The step's end as the atomic event it stands for: every page its begin and chunks carried, then its own, and no phase. */
    static ObjectNode joined(List<String> ls, BeginEnd.Step s) {
        ObjectNode end = BeginEnd.withPhase(ReaderMutator.tree(ls.get(s.end())), null);
        if (BeginEnd.WORKER_STEPS.contains(s.type())) {
            ArrayNode all = ReaderMutator.MAPPER.createArrayNode();
            List<Integer> parts = new ArrayList<>();
            parts.add(s.begin());
            parts.addAll(s.chunks());
            for (int i : parts) {
                ReaderMutator.tree(ls.get(i)).path("pages").forEach(all::add);
            }
            end.path("pages").forEach(all::add);
            BeginEnd.put(end, "pages", all, "tokens");
        }
        return end;
    }
}
