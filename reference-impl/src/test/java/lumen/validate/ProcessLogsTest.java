package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import lumen.core.PropertyId;
import lumen.runtime.Scenario;
import lumen.runtime.ScenarioRun;
import lumen.runtime.Scenarios;
import lumen.trace.TraceFormatException;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

class ProcessLogsTest {

    static ProcessLogs.Result merged(Map<String, String> logs, Random shuffle) throws Exception {
        List<byte[]> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        logs.forEach((p, text) -> {
            files.add(text.getBytes(StandardCharsets.UTF_8));
            names.add(p + ".jsonl");
        });
        return ProcessLogs.validate(files, names, Validator.Options.defaults(), shuffle);
    }

    static byte[] trace(String scenario) {
        return ScenarioRun.run(Scenarios.find(scenario)).trace();
    }

    @Test
    void everyScenarioSplitPerProcessIsJudgedAsTheWholeTraceIsInEveryOrderItsClocksAllow() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        int concurrent = 0;
        for (Scenario sc : Scenarios.all()) {
            byte[] whole = ScenarioRun.run(sc).trace();
            ValidationResult w = Validator.validate(new java.io.ByteArrayInputStream(whole), sc.name());
            Map<String, String> logs = ProcessLogs.split(whole);
            soft.assertThat(logs).as(sc.name()).containsKey(ProcessLogs.GATEWAY).hasSizeGreaterThan(2);
            for (int seed = -1; seed < 3; seed++) {
                ProcessLogs.Result r = merged(logs, seed < 0 ? null : new Random(seed));
                soft.assertThat(r.result().verdict()).as(sc.name() + " order " + seed + ": "
                        + (r.result().divergence() == null ? "" : r.origin(r.result().divergence().line()) + " " + r.result().divergence().finding()))
                        .isEqualTo(w.verdict());
                if (w.verdict() == Verdict.REJECTED && r.result().verdict() == Verdict.REJECTED) {
                    soft.assertThat(r.result().divergence().finding().property()).as(sc.name()).isEqualTo(w.divergence().finding().property());
                }
                if (seed >= 0 && !sameOrder(whole, r)) {
                    concurrent++;
                }
            }
        }
        soft.assertAll();
        // the clocks leave real concurrency: shuffled orders differ from the runtime's own
        assertThat(concurrent).isPositive();
    }

    /** Whether the merged order is the whole trace's own: each event's origin, "process.jsonl:line", in the trace's order. */
    static boolean sameOrder(byte[] whole, ProcessLogs.Result r) throws Exception {
        String[] lines = new String(whole, StandardCharsets.UTF_8).split("\n");
        List<String> own = new ArrayList<>();
        own.add(r.origins().get(0));
        Map<String, Integer> counts = new java.util.HashMap<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (int i = 1; i < lines.length; i++) {
            String p = ProcessLogs.processOf(json.readTree(lines[i]));
            own.add(p + ".jsonl:" + (counts.merge(p, 1, Integer::sum) + 1));
        }
        return own.subList(1, own.size()).equals(r.origins().subList(1, r.origins().size()));
    }

    @Test
    void aMutatedRunIsRejectedWithTheSamePropertyWhenSplit() throws Exception {
        String whole = new String(trace("single-failure-restore"), StandardCharsets.UTF_8);
        // a restore that claims one position more than its checkpoint saved
        String bad = whole.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1");
        assertThat(bad).isNotEqualTo(whole);
        ValidationResult w = Validator.validate(new java.io.ByteArrayInputStream(bad.getBytes(StandardCharsets.UTF_8)), "bad");
        assertThat(w.verdict()).isEqualTo(Verdict.REJECTED);
        ProcessLogs.Result r = merged(ProcessLogs.split(bad.getBytes(StandardCharsets.UTF_8)), null);
        assertThat(r.result().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.result().divergence().finding().property()).isEqualTo(w.divergence().finding().property());
        assertThat(r.origin(r.result().divergence().line())).startsWith("gateway.jsonl:");
        assertThat(r.ordersTried()).isGreaterThan(1);
    }

    @Test
    void partialTracesSplitPerProcessAreJudgedAsTheirWholeTrace() throws Exception {
        // each level of observation, its header kept in every process's log, in the order the clocks
        // give first and in a shuffled one; and a restore past its checkpoint at each level
        SoftAssertions soft = new SoftAssertions();
        int judged = 0;
        for (String name : new String[] {"single-failure-restore", "holder-failure", "failure-during-handover"}) {
            String whole = new String(trace(name), StandardCharsets.UTF_8);
            String bad = whole.replaceFirst("(\"mode\":\"RESTORE\",\"worker\":[0-9]+,\"resumed\":)([0-9]+)", "$1$2" + "1");
            for (lumen.trace.Observation obs : new lumen.trace.Observation[] {PartialTraceTest.NO_PLACE, PartialTraceTest.NO_LOADS,
                PartialTraceTest.BATCH, PartialTraceTest.LEAST}) {
                for (String t : new String[] {whole, bad}) {
                    byte[] level = lumen.trace.Observe.at(t.getBytes(StandardCharsets.UTF_8), obs);
                    ValidationResult w = Validator.validate(level, name, Validator.Options.defaults());
                    Map<String, String> logs = ProcessLogs.split(level);
                    soft.assertThat(logs.get(ProcessLogs.GATEWAY)).as(name).contains("\"observes\"");
                    for (int seed = -1; seed < 1; seed++) {
                        ProcessLogs.Result r = merged(logs, seed < 0 ? null : new Random(seed));
                        String what = name + " " + obs.describe() + (t == bad ? " (mutated)" : "") + " order " + seed;
                        soft.assertThat(r.result().verdict()).as(what).isEqualTo(w.verdict());
                        if (w.verdict() == Verdict.REJECTED && r.result().verdict() == Verdict.REJECTED) {
                            soft.assertThat(r.result().divergence().finding().property()).as(what).isEqualTo(w.divergence().finding().property());
                        }
                        judged++;
                    }
                    soft.assertThat(w.verdict()).as(name + " " + obs.describe()).isEqualTo(t == bad ? Verdict.REJECTED : Verdict.ACCEPTED);
                }
            }
        }
        soft.assertAll();
        assertThat(judged).isEqualTo(3 * 4 * 2 * 2);
    }

    @Test
    void wallClockSkewBetweenProcessesDoesNotMatter() throws Exception {
        Map<String, String> logs = ProcessLogs.split(trace("holder-failure"));
        String w1 = logs.get("worker-1");
        logs.put("worker-1", w1.replaceAll("\"t\":([0-9.]+)", "\"t\":-9$1"));
        assertThat(merged(logs, null).result().verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void lamportClocksGiveTheOrder() throws Exception {
        String[] lines = new String(trace("holder-failure"), StandardCharsets.UTF_8).split("\n");
        Map<String, String> logs = ProcessLogs.split(String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
        // replace each vector clock by a Lamport clock: the event's position in the whole trace
        Map<String, String> lamport = new java.util.LinkedHashMap<>();
        for (var e : logs.entrySet()) {
            StringBuilder b = new StringBuilder();
            for (String l : e.getValue().split("\n")) {
                if (l.contains("\"vc\"")) {
                    String bare = l.replaceAll(",\"vc\":\\{[^}]*\\}", "");
                    int at = java.util.Arrays.asList(lines).indexOf(bare);
                    assertThat(at).as(bare).isPositive();
                    l = bare.substring(0, bare.length() - 1) + ",\"lc\":" + at + "}";
                }
                b.append(l).append('\n');
            }
            lamport.put(e.getKey(), b.toString());
        }
        ProcessLogs.Result r = merged(lamport, null);
        assertThat(r.lamport()).isTrue();
        assertThat(r.result().verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    @Test
    void badClocksAreLocated() throws Exception {
        Map<String, String> logs = ProcessLogs.split(trace("holder-failure"));
        Map<String, String> wrongCount = new java.util.LinkedHashMap<>(logs);
        wrongCount.put(ProcessLogs.GATEWAY, logs.get(ProcessLogs.GATEWAY).replaceFirst("\"gateway\":1([,}])", "\"gateway\":5$1"));
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(wrongCount, null))
                .withMessageContaining("must count this process's events");
        // another process's entry going back within one log: the worker unsees the gateway's events
        String worker = logs.keySet().stream().filter(k -> k.startsWith("worker-")).filter(k -> logs.get(k).split("\n").length > 3).findFirst().orElseThrow();
        String[] wl = logs.get(worker).split("\n");
        java.util.regex.Pattern gw = java.util.regex.Pattern.compile("\"gateway\":(\\d+)");
        int back = -1;
        for (int i = 2; i < wl.length && back < 0; i++) {
            java.util.regex.Matcher prev = gw.matcher(wl[i - 1]);
            if (prev.find() && Long.parseLong(prev.group(1)) > 0 && gw.matcher(wl[i]).find()) {
                wl[i] = wl[i].replaceFirst("\"gateway\":\\d+", "\"gateway\":" + (Long.parseLong(prev.group(1)) - 1));
                back = i;
            }
        }
        assertThat(back).as("a worker event after one that saw the gateway").isPositive();
        Map<String, String> goesBack = new java.util.LinkedHashMap<>(logs);
        goesBack.put(worker, String.join("\n", wl) + "\n");
        long backLine = back + 1;
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(goesBack, null))
                .withMessageContaining("field 'vc.gateway' goes back along this log").withMessageContaining("at line " + (backLine - 1))
                .satisfies(ex -> assertThat(ex.line()).isEqualTo(backLine));
        Map<String, String> noClock = new java.util.LinkedHashMap<>(logs);
        noClock.put("worker-0", logs.get("worker-0").replaceFirst(",\"vc\":\\{[^}]*\\}", ""));
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(noClock, null))
                .withMessageContaining("exactly one clock").satisfies(ex -> assertThat(ex.line()).isEqualTo(2));
        Map<String, String> noName = new java.util.LinkedHashMap<>(logs);
        noName.put("worker-0", logs.get("worker-0").replaceFirst(",\"process\":\"worker-0\"", ""));
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(noName, null))
                .withMessageContaining("names its process");
        Map<String, String> unknown = new java.util.LinkedHashMap<>(logs);
        unknown.remove("worker-3");
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(unknown, null))
                .withMessageContaining("which has no log here");
    }

    /** Where a set of logs is refused: the file and line of its located error ("file:line"), or its verdict. */
    static String refused(Map<String, String> logs) {
        return refused(logs, Map.of());
    }

    static String refused(Map<String, String> logs, Map<String, byte[]> raw) {
        List<byte[]> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        logs.forEach((p, text) -> {
            files.add(raw.containsKey(p) ? raw.get(p) : text.getBytes(StandardCharsets.UTF_8));
            names.add(p + ".jsonl");
        });
        try {
            ValidationResult v = ProcessLogs.validate(files, names, Validator.Options.defaults()).result();
            return v.error() != null ? v.error().source() + ":" + v.error().line() : v.verdict().name();
        } catch (TraceFormatException ex) {
            return ex.source() + ":" + ex.line();
        } catch (Exception ex) {
            return ex.toString();
        }
    }

    /** The logs with line {@code i} (from 0) of {@code process}'s log replaced by what {@code edit} makes of it. */
    static Map<String, String> edited(Map<String, String> logs, String process, int i, java.util.function.UnaryOperator<String> edit) {
        String[] ls = logs.get(process).split("\n");
        ls[i] = edit.apply(ls[i]);
        Map<String, String> out = new java.util.LinkedHashMap<>(logs);
        out.put(process, String.join("\n", ls) + "\n");
        return out;
    }

    /**
     * Each log is read by the reading rules of every trace line, and each error is named at the log
     * and line that break them: a blank line, a key twice, two values on a line, a CR not followed by
     * LF, bytes that are not UTF-8, a time that is not a finite number; a header that breaks the
     * header's rules in its own log, not as the next log's differing one; a clock that names a
     * process or a count no log has at its own line, not at the next line that then goes back; an
     * event with the other kind of clock at its line. (Each of these was ACCEPTED, named another line,
     * or threw, before.)
     */
    @Test
    void everyLogIsReadByTheReadingRulesAndEachErrorIsNamedAtItsOwnLine() throws Exception {
        Map<String, String> logs = ProcessLogs.split(trace("holder-failure"));
        assertThat(refused(logs)).isEqualTo("ACCEPTED");
        String w = "worker-1";
        assertThat(logs.get(w).split("\n").length).isGreaterThan(4);
        String at = w + ".jsonl:3";
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(refused(edited(logs, w, 2, l -> "\n" + l))).as("a blank line").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("^\\{", "{\"type\":\"Decode\",")))).as("a key twice").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l + " {}"))).as("two values on a line").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst(",", ",\r")))).as("a CR inside a line").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"t\":[0-9.]+", "\"t\":1e999")))).as("t not finite").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"t\":[0-9.]+", "\"t\":\"soon\"")))).as("t not a number").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"worker\":1", "\"worker\":1e0")))).as("an integer 1e0").isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"vc\":\\{", "\"vc\":{\"ghost\":1,")))).as("an unknown process")
                .isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"vc\":\\{", "\"vc\":{\"worker-0\":99999,")))).as("a count beyond a log")
                .isEqualTo(at);
        soft.assertThat(refused(edited(logs, w, 2, l -> l.replaceFirst("\"vc\":\\{[^}]*}", "\"lc\":7")))).as("the other kind of clock")
                .isEqualTo(at);
        // Lamport clocks (each the sum of the vector clock): one beyond 2^31-1, the most an integer of a trace may be
        Map<String, String> lamport = new java.util.LinkedHashMap<>();
        logs.forEach((p, text) -> {
            StringBuilder b = new StringBuilder();
            for (String l : text.split("\n")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"vc\":\\{([^}]*)}").matcher(l);
                if (m.find()) {
                    long sum = java.util.Arrays.stream(m.group(1).split(",")).mapToLong(e -> Long.parseLong(e.replaceAll(".*:", ""))).sum();
                    l = m.replaceFirst("\"lc\":" + sum);
                }
                b.append(l).append('\n');
            }
            lamport.put(p, b.toString());
        });
        soft.assertThat(refused(lamport)).as("Lamport clocks").isEqualTo("ACCEPTED");
        soft.assertThat(refused(edited(lamport, w, 2, l -> l.replaceFirst("\"lc\":[0-9]+", "\"lc\":2147483648")))).as("lc beyond 2^31-1")
                .isEqualTo(at);
        soft.assertThat(refused(edited(logs, ProcessLogs.GATEWAY, 0, l -> l.replace("\"workers\":4", "\"workers\":0"))))
                .as("a header that breaks the header's rules, in the first log").isEqualTo("gateway.jsonl:1");
        // bytes that are not UTF-8 in an ext string of line 3
        String[] ls = logs.get(w).split("\n");
        ls[2] = ls[2].replaceFirst("^\\{", "{\"ext\":{\"note\":\"\u00e9\"},");
        byte[] bytes = (String.join("\n", ls) + "\n").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + 1 < bytes.length; i++) {
            if ((bytes[i] & 0xff) == 0xC3 && (bytes[i + 1] & 0xff) == 0xA9) {
                bytes[i + 1] = '(';
            }
        }
        soft.assertThat(refused(logs, Map.of(w, bytes))).as("bytes that are not UTF-8").isEqualTo(at);
        // the same header written with other spellings of its numbers is one header; an ext may hold any JSON
        Map<String, String> spelled = edited(logs, w, 0, l -> l.replace("\"alpha\":1.0", "\"alpha\":10e-1"));
        spelled = edited(spelled, w, 2, l -> l.replaceFirst("^\\{", "{\"ext\":{\"x\":1e999},"));
        soft.assertThat(logs.get(w).split("\n")[0]).contains("\"alpha\":1.0");
        soft.assertThat(refused(spelled)).as("a number's other spelling").isEqualTo("ACCEPTED");
        soft.assertAll();
    }

    @Test
    void aRejectionIsPlacedInItsOwnFile() throws Exception {
        ProcessLogs.Result r = merged(ProcessLogs.split(trace("corrupt-holder-is-server")), null);
        assertThat(r.result().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.result().divergence().finding().property()).isEqualTo(PropertyId.S4);
        assertThat(r.origin(r.result().divergence().line())).isEqualTo("gateway.jsonl:3");
    }
    /**
     * A zombie's write concurrent with its own failure: worker 1 logs one more Decode of request 9
     * that the gateway's Fail never saw. Every order the clocks allow is rejected: the zombie's line
     * when the Fail comes first, a later innocent line when the Decode does. The report names the
     * zombie's line and the concurrent events the orders placed differently, not only the innocent one.
     */
    @Test
    void aRejectionThatRestsOnAConcurrentEventNamesItsLine() throws Exception {
        byte[] whole = trace("single-failure-restore");
        String[] lines = new String(whole, StandardCharsets.UTF_8).split("\n");
        int fail = -1;
        String next = null;
        for (int i = 1; i < lines.length; i++) {
            if (fail < 0 && lines[i].startsWith("{\"type\":\"Fail\"") && lines[i].contains("\"worker\":1,")) {
                fail = i;
            } else if (fail > 0 && next == null && lines[i].startsWith("{\"type\":\"Decode\"") && lines[i].contains("\"req\":9,")) {
                next = lines[i];
            }
        }
        assertThat(fail).isPositive();
        assertThat(next).as("request 9's next token, decoded after the failure").isNotNull();
        Map<String, String> logs = ProcessLogs.split(whole);
        // the zombie's line: its next token, written by worker 1 after its last event before the failure
        String zombie = next.replaceFirst("\"worker\":[0-9]+", "\"worker\":1");
        int at = zombieIndex(logs.get("worker-1"), fail, lines);
        Map<String, String> bad = insertEvent(logs, "worker-1", at, zombie);
        long zombieLine = at + 2;   // the header is line 1, event i is line i + 2
        assertThat(bad.get("worker-1").split("\n")[(int) zombieLine - 1]).contains("\"req\":9,").contains("\"worker\":1");
        ProcessLogs.Result r = merged(bad, null);
        assertThat(r.result().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.ordersTried()).isGreaterThan(1);
        String report = String.join("\n", r.blameLines());
        assertThat(report).contains("worker-1.jsonl:" + zombieLine).contains("gateway.jsonl:");
        assertThat(r.rejections()).extracting(ProcessLogs.Rejection::origin).contains("worker-1.jsonl:" + zombieLine);
        // the text report says it, with the rejected line's own file, and no longer that the events
        // before the first order's rejection are a behaviour of the spec as such
        String text = ValidationReport.text(r.result());
        assertThat(text).contains(ProcessLogs.ORDERS).contains("worker-1.jsonl:" + zombieLine).contains("logged at worker-")
                .contains("in the merged order shown").doesNotContain("not shown: " + ProcessLogs.ORDERS);
        assertThat(ValidationReport.json(r.result())).containsKey("orders");
    }

    /** The index, in a worker's log, just after its last event before whole-trace line {@code fail}. */
    static int zombieIndex(String log, int fail, String[] whole) {
        String[] ls = log.split("\n");
        int last = 0;
        for (int i = 1; i < ls.length; i++) {
            String bare = ls[i].replaceAll(",\"vc\":\\{[^}]*\\}", "");
            int pos = java.util.Arrays.asList(whole).indexOf(bare);
            if (pos > 0 && pos < fail) {
                last = i;
            }
        }
        return last;   // event index (0-based) of the inserted line
    }

    /**
     * The logs with {@code event} inserted into {@code proc}'s log as its event number {@code index}
     * (0-based), its clock its predecessor's plus itself, and every clock's count of that process
     * shifted past it: an event nobody else saw.
     */
    static Map<String, String> insertEvent(Map<String, String> logs, String proc, int index, String event) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (var e : logs.entrySet()) {
            String[] ls = e.getValue().split("\n");
            List<String> res = new ArrayList<>();
            res.add(ls[0]);
            for (int i = 1; i < ls.length; i++) {
                com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(ls[i]);
                com.fasterxml.jackson.databind.node.ObjectNode vc = (com.fasterxml.jackson.databind.node.ObjectNode) o.get("vc");
                if (vc.has(proc) && vc.get(proc).asLong() > index) {
                    vc.put(proc, vc.get(proc).asLong() + 1);
                }
                if (e.getKey().equals(proc) && i - 1 == index) {
                    com.fasterxml.jackson.databind.node.ObjectNode z = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(event);
                    com.fasterxml.jackson.databind.node.ObjectNode zvc = i > 1 ? (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(res.get(i - 1)).get("vc").deepCopy()
                            : json.createObjectNode();
                    zvc.put(proc, index + 1);
                    z.set("vc", zvc);
                    res.add(z.toString());
                }
                res.add(o.toString());
            }
            if (e.getKey().equals(proc) && index == ls.length - 1) {
                throw new IllegalArgumentException("insert at the end: not needed here");
            }
            out.put(e.getKey(), String.join("\n", res) + "\n");
        }
        return out;
    }
}
