package lumen.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

class WallClockLogsTest {

    static ProcessLogs.Result merged(Map<String, String> logs) throws Exception {
        return merged(logs, Validator.Options.defaults());
    }

    static ProcessLogs.Result merged(Map<String, String> logs, Validator.Options opt) throws Exception {
        List<byte[]> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        logs.forEach((p, text) -> {
            files.add(text.getBytes(StandardCharsets.UTF_8));
            names.add(p + ".jsonl");
        });
        return ProcessLogs.validate(files, names, opt);
    }

    static String what(ProcessLogs.Result r) {
        ValidationResult v = r.result();
        return v.verdict() + (v.divergence() == null ? "" : " at " + r.origin(v.divergence().line()) + " " + v.divergence().finding())
                + " " + v.notes();
    }

    @Test
    void everyScenarioAsWallClockLogsIsJudgedAsItsWholeTraceIs() throws Exception {
        // clocks off by up to the declared skew, windows around each moment: the whole trace's order is
        // one the windows allow, and many others are too
        SoftAssertions soft = new SoftAssertions();
        int branched = 0;
        int undecided = 0;
        List<Scenario> all = Scenarios.all();
        for (int i = 0; i < all.size(); i++) {
            Scenario sc = all.get(i);
            byte[] whole = ScenarioRun.run(sc).trace();
            ValidationResult w = Validator.validate(whole, sc.name(), Validator.Options.defaults());
            // a 20 ms skew on one scenario in four: the search is wide there, and the build pays for it
            for (int seed = 1; seed < (i % 4 == 0 ? 4 : 3); seed++) {
                double skew = new double[] {0, 2, 5, 20}[seed];
                Map<String, String> logs = ProcessLogs.splitWallClock(whole, skew, 1, new Random(seed));
                ProcessLogs.Result r = merged(logs);
                String as = sc.name() + " skew " + skew + ": " + what(r);
                soft.assertThat(r.wallClock()).as(as).isTrue();
                if (r.result().verdict() == Verdict.UNDECIDED) {
                    // some forty events concurrent with each: the bound may cut the search, which then decides nothing
                    soft.assertThat(r.wall().cut()).as(as).isTrue();
                    soft.assertThat(skew).as(as).isEqualTo(20);
                    undecided++;
                    continue;
                }
                // an order found is found whatever was cut; a rejection is never made on a cut search
                soft.assertThat(r.result().verdict()).as(as).isEqualTo(w.verdict());
                soft.assertThat(r.result().verdict() == Verdict.REJECTED && r.wall().cut()).as(as).isFalse();
                if (w.verdict() == Verdict.REJECTED && r.result().verdict() == Verdict.REJECTED) {
                    if (skew <= 5) {
                        soft.assertThat(r.result().divergence().finding().property()).as(as).isEqualTo(w.divergence().finding().property());
                    } else {
                        // orders far from the run's may break another property first, at the same depth: the run's
                        // own is among the events every order was rejected at
                        soft.assertThat(String.join("\n", r.result().notes())).as(as).contains(w.divergence().finding().label());
                    }
                }
                branched += r.wall().branchPoints() > 0 ? 1 : 0;
            }
        }
        soft.assertAll();
        assertThat(branched).isPositive();
        assertThat(undecided).as("cut searches").isLessThan(Scenarios.all().size());
    }

    /** The gateway's line of the first event of this type, 1 being its header. */
    static long lineOf(String log, String type) {
        String[] lines = log.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains("\"type\":\"" + type + "\"")) {
                return i + 1;
            }
        }
        throw new AssertionError("no " + type + " in the log");
    }

    @Test
    void aZombieWriteConcurrentWithItsFailureIsRejectedAtItsLine() throws Exception {
        // a holder takes a page the zombie sent (S19), right after the gateway declared the worker failed: by the
        // clocks, within the skew of the failure, so the windows allow it on either side of the Fail
        String[] run = new String(ScenarioRun.run(Scenarios.find("corrupt-zombie-page-stored")).trace(), StandardCharsets.UTF_8).split("\n");
        List<String> moved = new ArrayList<>(List.of(run));
        int page = indexOf(moved, "ZombiePage");
        String write = moved.remove(page);
        moved.add(indexOf(moved, "Fail") + 1, write);
        byte[] whole = (String.join("\n", moved) + "\n").getBytes(StandardCharsets.UTF_8);
        ValidationResult w = Validator.validate(whole, "moved", Validator.Options.defaults());
        assertThat(w.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(w.divergence().finding().property()).isEqualTo(PropertyId.S19);
        Map<String, String> logs = ProcessLogs.splitWallClock(whole, 5, 1, new Random(7));
        String holder = null;
        for (var l : logs.entrySet()) {
            if (l.getValue().contains("\"type\":\"ZombiePage\"")) {
                holder = l.getKey();
            }
        }
        long line = lineOf(logs.get(holder), "ZombiePage");
        double[] fail = window(logs.get(ProcessLogs.GATEWAY), "Fail");
        double[] at0 = window(logs.get(holder), "ZombiePage");
        assertThat(at0[0]).isLessThanOrEqualTo(fail[1] + 5);
        assertThat(fail[0]).isLessThanOrEqualTo(at0[1] + 5);
        ProcessLogs.Result r = merged(logs);
        assertThat(r.result().verdict()).as(what(r)).isEqualTo(Verdict.REJECTED);
        assertThat(r.result().divergence().finding().property()).isEqualTo(PropertyId.S19);
        String at = holder + ".jsonl:" + line;
        assertThat(r.origin(r.result().divergence().line())).isEqualTo(at);
        // tried before the failure too (no zombie yet: not a step of the spec), and rejected there as well
        assertThat(r.wall().orders()).isGreaterThan(1);
        assertThat(r.wall().cut()).isFalse();
        assertThat(String.join("\n", r.result().notes())).contains(ProcessLogs.ORDERS).containsPattern("those the furthest orders reached first:\\s+" + java.util.regex.Pattern.quote(at)
                + " \\{ZombiePage[^\n]*S19 NoFencedPage, in [0-9]+ orders");

        // the zombie's token is taken by the gateway, which logs the failure too: its own log orders them
        byte[] token = ScenarioRun.run(Scenarios.find("corrupt-zombie-token-delivered")).trace();
        Map<String, String> tl = ProcessLogs.splitWallClock(token, 5, 1, new Random(7));
        ProcessLogs.Result t = merged(tl);
        assertThat(t.result().verdict()).as(what(t)).isEqualTo(Verdict.REJECTED);
        assertThat(t.result().divergence().finding().property()).isEqualTo(PropertyId.S18);
        assertThat(t.origin(t.result().divergence().line())).isEqualTo("gateway.jsonl:" + lineOf(tl.get(ProcessLogs.GATEWAY), "ZombieToken"));
    }

    static int indexOf(List<String> lines, String type) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"type\":\"" + type + "\"")) {
                return i;
            }
        }
        throw new AssertionError("no " + type);
    }

    /** The window of the first event of this type in a log: [start, end]. */
    static double[] window(String log, String type) throws Exception {
        return window(log.split("\n")[(int) lineOf(log, type) - 1]);
    }

    /** The window of one line: [start, end]. */
    static double[] window(String line) throws Exception {
        com.fasterxml.jackson.databind.JsonNode t = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line).get("t");
        return t.isArray() ? new double[] {t.get(0).asDouble(), t.get(1).asDouble()} : new double[] {t.asDouble(), t.asDouble()};
    }

    @Test
    void aGatewayClockFurtherOffThanDeclaredIsReportedAsSkewNotAsAFinding() throws Exception {
        byte[] whole = ScenarioRun.run(Scenarios.find("single-failure-restore")).trace();
        Map<String, String> logs = new LinkedHashMap<>(ProcessLogs.splitWallClock(whole, 5, 1, new Random(3)));
        // the gateway's clock 500 ms ahead of the workers', with 5 declared
        logs.put(ProcessLogs.GATEWAY, shift(logs.get(ProcessLogs.GATEWAY), 500));
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(logs))
                .withMessageContaining("contradict the declared skew_ms=5").withMessageContaining("not a property of the spec broken")
                .withMessageMatching("(?s)worker-[0-9]+\\.jsonl:[0-9]+: .*");
        // declared as it is, the same logs are accepted
        Map<String, String> declared = new LinkedHashMap<>();
        logs.forEach((p, text) -> declared.put(p, text.replace("\"skew_ms\":5.0", "\"skew_ms\":510.0")));
        ProcessLogs.Result r = merged(declared);
        assertThat(r.result().verdict()).as(what(r)).isEqualTo(Verdict.ACCEPTED);
    }

    /** A log with every time moved by {@code ms}. */
    static String shift(String log, double ms) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        StringBuilder b = new StringBuilder();
        for (String line : log.split("\n")) {
            com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(line);
            if (o.has("t")) {
                com.fasterxml.jackson.databind.JsonNode t = o.get("t");
                if (t.isArray()) {
                    o.putArray("t").add(t.get(0).asDouble() + ms).add(t.get(1).asDouble() + ms);
                } else {
                    o.put("t", t.asDouble() + ms);
                }
            }
            b.append(o).append('\n');
        }
        return b.toString();
    }

    @Test
    void theReductionChangesNoVerdict() throws Exception {
        // the same logs judged breadth first with every pair of events taken as dependent and only equal states
        // merged: the orders the reduction leaves out are the same behaviours as one it follows, and a state
        // dropped for one as lenient accepts nothing the other does not, so no verdict and no property moves.
        // L3 under a bound of 4 steps, where the order of a server's decodes and its other requests' pages
        // decides whether a step counts, on a run whose request 3 streams one page and no more, and on the run itself
        List<Object[]> cases = new ArrayList<>();
        for (String name : new String[] {"single-failure-restore", "holder-failure", "failure-during-handover", "corrupt-zombie-token-delivered",
            "corrupt-zombie-page-stored"}) {
            cases.add(new Object[] {name, ScenarioRun.run(Scenarios.find(name)).trace(), Validator.Options.defaults(), 3.0});
        }
        lumen.core.Config c = new lumen.core.Config("lumen", 4, 1, 1, 64, 32, 1 << 20, 16, 4);
        String run = new String(lumen.trace.SyntheticTrace.toBytes(lumen.trace.SyntheticTrace.Spec.of(c, 1000), 2), StandardCharsets.UTF_8);
        StringBuilder starved = new StringBuilder();
        int pages = 0;
        for (String line : run.split("\n")) {
            if (!line.contains("\"type\":\"StreamPage\",\"req\":3,") || pages++ == 0) {
                starved.append(line).append('\n');
            }
        }
        Validator.Options l3 = Validator.Options.defaults().withFairnessSteps(4);
        // (a millisecond's skew: the full search over these runs' four busy workers is wide)
        cases.add(new Object[] {"synthetic", run.getBytes(StandardCharsets.UTF_8), l3, 1.0});
        cases.add(new Object[] {"synthetic, request 3 starved", starved.toString().getBytes(StandardCharsets.UTF_8), l3, 1.0});
        assertThat(Validator.validate(starved.toString().getBytes(StandardCharsets.UTF_8), "starved", l3).divergence().finding().property())
                .isEqualTo(PropertyId.L3);
        SoftAssertions soft = new SoftAssertions();
        long reducedStates = 0;
        long fullStates = 0;
        int compared = 0;
        java.util.Set<Verdict> seen = java.util.EnumSet.noneOf(Verdict.class);
        for (Object[] k : cases) {
            for (int seed = 0; seed < 3; seed++) {
                Map<String, String> logs = ProcessLogs.splitWallClock((byte[]) k[1], (Double) k[3], 1, new Random(seed));
                Validator.Options opt = (Validator.Options) k[2];
                ProcessLogs.Result reduced = WallClockLogs.breadthFirst(() -> merged(logs, opt));
                ProcessLogs.Result full = WallClockLogs.unreduced(() -> merged(logs, opt));
                soft.assertThat(full.wall().reduced()).isFalse();
                soft.assertThat(reduced.wall().cut()).as(k[0] + " " + seed).isFalse();
                if (full.wall().cut()) {
                    System.out.println("the full search of " + k[0] + " " + seed + " was cut");
                    continue;   // the full search decided nothing: nothing to hold the reduced one to
                }
                compared++;
                seen.add(full.result().verdict());
                soft.assertThat(reduced.result().verdict()).as(k[0] + " " + seed + ": " + what(reduced) + " / " + what(full))
                        .isEqualTo(full.result().verdict());
                if (full.result().divergence() != null && reduced.result().divergence() != null) {
                    soft.assertThat(reduced.result().divergence().finding().property()).as(k[0] + " " + seed)
                            .isEqualTo(full.result().divergence().finding().property());
                }
                reducedStates += reduced.wall().states();
                fullStates += full.wall().states();
            }
        }
        soft.assertAll();
        assertThat(compared).isGreaterThanOrEqualTo(18);
        assertThat(seen).contains(Verdict.ACCEPTED, Verdict.REJECTED);
        assertThat(reducedStates).isLessThan(fullStates);
    }

    @Test
    void badTimesAreLocatedErrors() throws Exception {
        byte[] whole = ScenarioRun.run(Scenarios.find("single-failure-restore")).trace();
        Map<String, String> logs = ProcessLogs.splitWallClock(whole, 5, 1, new Random(1));
        String gw = logs.get(ProcessLogs.GATEWAY);
        String[] lines = gw.split("\n");
        for (String[] bad : new String[][] {
            {"\"t\":\"soon\"", "field 't' must be a number or [start, end]"},
            {"\"t\":[5.0,1.0]", "start <= end"},
            {"\"t\":-1.0E9", "time goes backwards along this log"},
            {"\"lc\":3,\"t\":9999.0", "carries no logical clock"},
        }) {
            String line3 = lines[2].replaceFirst("\"t\":(\\[[^]]*]|[-0-9.E]+)", java.util.regex.Matcher.quoteReplacement(bad[0]));
            assertThat(line3).isNotEqualTo(lines[2]);
            Map<String, String> broken = new LinkedHashMap<>(logs);
            List<String> ls = new ArrayList<>(List.of(lines));
            ls.set(2, line3);
            broken.put(ProcessLogs.GATEWAY, String.join("\n", ls) + "\n");
            assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(broken))
                    .withMessageStartingWith("gateway.jsonl:3: ").withMessageContaining(bad[1]);
        }
        Map<String, String> noSkew = new LinkedHashMap<>(logs);
        noSkew.replaceAll((p, text) -> text.replace("\"skew_ms\":5.0", "\"skew_ms\":-1"));
        assertThatExceptionOfType(TraceFormatException.class).isThrownBy(() -> merged(noSkew))
                .withMessageContaining(":1: field 'skew_ms' must be a non-negative finite number");
    }
}
