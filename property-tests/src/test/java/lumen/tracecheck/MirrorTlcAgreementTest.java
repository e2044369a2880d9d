package lumen.tracecheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.conform.sut.Mutants;
import lumen.core.KitTokens;
import lumen.props.Harness;
import lumen.props.PropertyCheck;
import lumen.props.Schedule;
import lumen.props.ScheduleGenerator;
import lumen.props.ScheduleTraces;
import lumen.runtime.Arrival;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The differential check: the Java mirror and TLC must give the same verdict on every trace, and
 * name the same line and the same property when they reject one (or both "not a step of the
 * spec"). The traces: valid ones from the runtime under the four policies the spec names, seeded
 * mutations of valid ones (drop, swap, duplicate, alter, broken syntax) and hand-made invalid
 * ones, in every build. {@code -Dlumen.differential=N} sets the number of runtime traces (default
 * 8, and 5n/3 + 5 mutations of them; PartialAgreementTest adds runtime traces at each
 * observability level). The deeper tier runs 70 or more, with
 * {@code -Dlumen.differential.scenarios=true} adding the reference scenarios (which
 * {@link TlcTraceCheckTest} compares in every build) and {@code -Dlumen.differential.mutants=true}
 * the shrunk failing trace of every shipped mutant implementation, judged against the kit's
 * reference with completeness required, each of which both checkers must reject with the
 * mutant's own property (ConformanceTest catches every mutant on the mirror in every build).
 */
class MirrorTlcAgreementTest {
    /** Every policy: the spec's Policy names LUMEN, DUAL, both baselines and the six ablations. */
    static final List<String> SPEC_POLICIES = lumen.core.Policies.keys();

    /** One trace, the options both checkers judge it with, and the property it must be rejected with (null: none required). */
    record Case(String name, String kind, byte[] trace, Validator.Options options, String expected) {
        Case(String name, String kind, byte[] trace) {
            this(name, kind, trace, Validator.Options.defaults(), null);
        }
    }

    static List<Case> cases() throws Exception {
        int n = Integer.getInteger("lumen.differential", 8);
        List<Case> out = new ArrayList<>();
        ScheduleGenerator gen = ScheduleGenerator.withDrawnReadings(SPEC_POLICIES);
        List<byte[]> valid = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] t = ScheduleTraces.record(gen.generate(1000 + i));
            valid.add(t);
            out.add(new Case("runtime-" + i, "valid", t));
        }
        SplittableRandom r = new SplittableRandom(7);
        TraceMutator.Kind[] kinds = TraceMutator.Kind.values();
        for (int i = 0; i < n * 5 / 3 + 5; i++) {
            TraceMutator.Kind k = kinds[i % kinds.length];
            TraceMutator.Mutated m = TraceMutator.mutate(valid.get(i % valid.size()), k, r);
            out.add(new Case("mutated-" + i + " (" + m.description() + ")", "mutated", m.trace()));
        }
        // Two swaps of independent events, found by search: a random mutation leaves a trace valid
        // only by chance (two or none of the build's 18), and TLC must agree on valid reorderings too
        for (int i = 0; i < 2; i++) {
            byte[] base = valid.get(i % valid.size());
            int lines = (int) new String(base, StandardCharsets.UTF_8).lines().count();
            for (int tries = 0, j = 1 + r.nextInt(lines - 2); tries < lines - 2; tries++, j = 1 + (j % (lines - 2))) {
                TraceMutator.Mutated m = TraceMutator.swap(base, j);
                if (!java.util.Arrays.equals(m.trace(), base)
                        && Validator.validate(m.trace(), "swap", Validator.Options.defaults()).verdict() == Verdict.ACCEPTED) {
                    out.add(new Case("mutated-commuting-" + i + " (" + m.description() + ")", "mutated", m.trace()));
                    break;
                }
            }
        }
        out.addAll(grayCases(Math.max(2, n / 4), r));
        if (Boolean.getBoolean("lumen.differential.scenarios")) {
            // TlcTraceCheckTest compares the two on the reference scenarios in every build
            try (var files = Files.list(TlcTraceCheckTest.SCENARIOS)) {
                for (Path p : files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList()) {
                    out.add(new Case("scenario " + p.getFileName(), p.getFileName().toString().startsWith("corrupt") ? "invalid" : "valid",
                            Files.readAllBytes(p)));
                }
            }
        }
        String header = new String(valid.get(0), StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        String body = new String(valid.get(0), StandardCharsets.UTF_8).lines().skip(1).limit(6).reduce("", (a, b) -> a + b + "\n");
        out.add(new Case("header only", "edge", (header + "\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("no header", "invalid", body.getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("unknown request", "invalid",
                (header + "\n{\"type\":\"Decode\",\"req\":99,\"worker\":0,\"tokens\":[1],\"pages\":[]}\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("rejected, then malformed", "invalid",
                (header + "\n{\"type\":\"Restart\",\"worker\":0}\n{oops\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("valid, then malformed", "invalid", (header + "\n" + body + "{oops\n").getBytes(StandardCharsets.UTF_8)));
        // a declared maximum output (Arrive.maxOut) is what Eq. 5 reserves: exactly the output, as before; or a large one,
        // which takes the room a placement relied on
        out.add(new Case("maxOut declared as the output", "edge", withMaxOut(valid.get(0), 0)));
        out.add(new Case("maxOut declared large", "edge", withMaxOut(valid.get(0), 4096)));
        // L3 counts a decode step only when the request's server streamed nothing since its previous one
        out.add(new Case("L3: a request completes behind its server's other pages", "edge", streamingBehind(true),
                Validator.Options.defaults(), "ACCEPTED"));
        out.add(new Case("L3: a request completes lagging, its server streaming nothing", "invalid", streamingBehind(false),
                Validator.Options.defaults(), "L3"));
        if (Boolean.getBoolean("lumen.differential.mutants")) {
            // the deeper tier: ConformanceTest catches every mutant in every build, on the mirror
            out.addAll(mutantCases());
        }
        return out;
    }

    /**
     * Two workers, requests 0 and 2 served by worker 0 with worker 1 their holder (a page is one
     * position): request 0 decodes five times, a page behind, and completes; between its decode
     * steps its server streams request 2's pages ({@code busy}) or nothing.
     */
    static byte[] streamingBehind(boolean busy) throws java.io.IOException {
        lumen.core.Config cfg = new lumen.core.Config("lumen", 2, 1, 1, 5, 3, 40, 1, 3);
        int[] ref = {11, 12, 13, 14, 15, 16};
        List<java.util.function.Function<lumen.core.ClusterState, lumen.core.Step>> steps = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            int id = r;
            steps.add(st -> lumen.core.Core.arrive(st, id, 4, ref));
            steps.add(st -> lumen.core.Core.place(st, id));
            steps.add(st -> lumen.core.Core.prefill(st, id));
        }
        steps.add(st -> lumen.core.Core.decode(st, 0));
        for (int page = 1; page <= 4; page++) {
            int upTo = page;
            if (busy) {
                steps.add(st -> lumen.core.Core.streamPage(st, 2, upTo));
            }
            steps.add(st -> lumen.core.Core.decode(st, 0));
        }
        steps.add(st -> lumen.core.Core.complete(st, 0));
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        lumen.core.ClusterState st = lumen.core.ClusterState.initial(cfg);
        try (lumen.trace.TraceWriter w = new lumen.trace.TraceWriter(b, cfg)) {
            for (var f : steps) {
                lumen.core.Step step = f.apply(st);
                st = step.state();
                w.write(step.event(), 1.5);
            }
        }
        return b.toByteArray();
    }

    /**
     * Gray failures: {@code count} runtime traces whose paused workers woke zombies, each zombie
     * write refused (valid); each with its first zombie token let through (S18), its first zombie
     * page let through (S19), and a zombie write moved past the zombie's stop (not a step); and
     * a seeded mutation of the first.
     */
    static List<Case> grayCases(int count, SplittableRandom r) {
        List<Case> out = new ArrayList<>();
        ScheduleGenerator gen = ScheduleGenerator.withDrawnReadings(SPEC_POLICIES).withGrayFailures(true);
        List<byte[]> valid = new ArrayList<>();
        for (int seed = 5000; valid.size() < count && seed < 5400; seed++) {
            byte[] t = ScheduleTraces.record(gen.generate(seed));
            String text = new String(t, StandardCharsets.UTF_8);
            if (!text.contains("\"ZombieToken\"") || !text.contains("\"ZombiePage\"")) {
                continue;
            }
            valid.add(t);
            String name = "gray-" + seed;
            out.add(new Case(name, "valid", t));
            out.add(new Case(name + " (a zombie token let through)", "gray", letThrough(text, "ZombieToken"), Validator.Options.defaults(), "S18"));
            out.add(new Case(name + " (a zombie page let through)", "gray", letThrough(text, "ZombiePage"), Validator.Options.defaults(), "S19"));
            out.add(new Case(name + " (a zombie write after its stop)", "gray", writeAfterStop(text), Validator.Options.defaults(), "step"));
            if (text.contains("\"ZombieAck\"")) {
                out.add(new Case(name + " (a zombie acknowledgement let through)", "gray", letThrough(text, "ZombieAck"), Validator.Options.defaults(),
                        "S19"));
            }
        }
        assertThat(valid).as("gray runtime traces with zombie tokens and pages").hasSize(count);
        TraceMutator.Kind k = TraceMutator.Kind.values()[r.nextInt(TraceMutator.Kind.values().length)];
        TraceMutator.Mutated m = TraceMutator.mutate(valid.get(0), k, r);
        out.add(new Case("gray-mutated (" + m.description() + ")", "gray", m.trace()));
        return out;
    }

    /** The trace with its first write of {@code type} (ZombieToken or ZombiePage) accepted. */
    static byte[] letThrough(String text, String type) {
        int at = text.indexOf("\"type\":\"" + type + "\"");
        return (text.substring(0, at) + text.substring(at).replaceFirst("\"accepted\":false", "\"accepted\":true"))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The trace with its first ZombieToken line moved just past the ZombieStops of its worker. */
    static byte[] writeAfterStop(String text) {
        List<String> lines = new ArrayList<>(text.lines().toList());
        int z = -1;
        for (int i = 0; i < lines.size() && z < 0; i++) {
            if (lines.get(i).contains("\"type\":\"ZombieToken\"")) {
                z = i;
            }
        }
        String worker = lines.get(z).replaceFirst("^.*\"worker\":(\\d+).*$", "$1");
        String moved = lines.remove(z);
        for (int i = z; i < lines.size(); i++) {
            if (lines.get(i).contains("\"type\":\"ZombieStops\"") && lines.get(i).contains("\"worker\":" + worker + "}")) {
                lines.add(i + 1, moved);
                break;
            }
        }
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The trace with every Arrive declaring maxOut: the length of its ref plus {@code extra}. */
    static byte[] withMaxOut(byte[] trace, int extra) {
        StringBuilder b = new StringBuilder();
        for (String line : new String(trace, StandardCharsets.UTF_8).lines().toList()) {
            if (line.contains("\"type\":\"Arrive\"")) {
                String refs = line.replaceFirst("^.*\"ref\":\\[([^\\]]*)\\].*$", "$1");
                int n = refs.isEmpty() ? 0 : refs.split(",").length;
                line = line.substring(0, line.length() - 1) + ",\"maxOut\":" + (n + extra) + "}";
            }
            b.append(line).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The shrunk failing trace of every shipped mutant implementation (those whose policy TLC
     * names), with the kit's token model as the reference and completeness required.
     */
    static List<Case> mutantCases() {
        List<Case> out = new ArrayList<>();
        for (Mutants m : Mutants.values()) {
            if (m.policies().stream().anyMatch(p -> !SPEC_POLICIES.contains(p)) || m == Mutants.DIGEST_OVER_METADATA
                    || m == Mutants.RECOMPUTES_WRONG_KV) {
                // digests consistent copy to copy (over a page's metadata, or over KV written wrong): only the kit's KV
                // content model, which lumen conform holds digests to and TLC's trace check does not, tells (ConformanceTest)
                continue;
            }
            Harness.Result h = Harness.run(new ScheduleGenerator(m.policies(), m.claims()).withGrayFailures(m.gray()), 1, 1, 2_000, Long.MAX_VALUE, () -> false,
                    sc -> PropertyCheck.run(sc, m));
            assertThat(h.failure).as("%s is found in process", m).isNotNull();
            Schedule sc = h.failure.minimal();
            Map<Integer, int[]> ref = new HashMap<>();
            for (Arrival a : sc.arrivals()) {
                ref.put(a.id(), KitTokens.reference(a.seed(), a.outLen(), KitTokens.VOCAB));
            }
            Validator.Options opt = Validator.Options.defaults().withComplete(true).withReference(ref, "the kit's token model");
            out.add(new Case("mutant " + m.programName(), "mutant", ScheduleTraces.record(sc, m), opt, m.expected()));
        }
        return out;
    }

    @Test
    void mirrorAndTlcAgreeVerdictForVerdict() throws Exception {
        List<Case> cases = cases();
        Path work = TlcTraceCheckTest.WORK.resolve("differential");
        TlcTraceCheck tlc = new TlcTraceCheck(TlcTraceCheckTest.SPEC, work, Duration.ofMinutes(5));
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        List<Future<Differential.Outcome>> fs = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String id = "d" + i;
            fs.add(pool.submit(() -> Differential.compare(c.trace(), c.name(), id, tlc, c.options())));
        }
        List<Differential.Outcome> outs = new ArrayList<>();
        for (Future<Differential.Outcome> f : fs) {
            outs.add(f.get());
        }
        pool.shutdown();
        double secs = (System.nanoTime() - t0) / 1e9;
        Map<String, Map<Verdict, Integer>> table = new TreeMap<>();
        TreeMap<Integer, double[]> byLength = new TreeMap<>();
        List<String> disagreements = new ArrayList<>();
        List<String> wrongProperty = new ArrayList<>();
        for (int i = 0; i < outs.size(); i++) {
            Differential.Outcome o = outs.get(i);
            Case c = cases.get(i);
            table.computeIfAbsent(c.kind(), k -> new EnumMap<>(Verdict.class)).merge(o.mirror().verdict(), 1, Integer::sum);
            int bucket = o.tlc().events() < 250 ? 0 : o.tlc().events() < 500 ? 250 : o.tlc().events() < 1000 ? 500 : 1000;
            byLength.computeIfAbsent(bucket, b -> new double[2]);
            byLength.get(bucket)[0]++;
            byLength.get(bucket)[1] += o.tlc().tlcTime().toMillis() / 1000.0;
            if (!o.agree()) {
                Path keep = work.resolve("disagreement-d" + i + ".jsonl");
                Files.write(keep, c.trace());
                disagreements.add(o.describe() + "; trace kept in " + keep);
            }
            if (c.expected() != null) {
                String got = o.mirror().verdict() == Verdict.INCOMPLETE ? "INCOMPLETE"
                        : o.mirrorProperty() == null ? (o.mirror().verdict() == Verdict.REJECTED ? "step" : o.mirror().verdict().name())
                        : o.mirrorProperty().name();
                if (!got.equals(c.expected())) {
                    wrongProperty.add(c.name() + ": expected " + c.expected() + ", got " + got + " (" + o.describe() + ")");
                }
            }
        }
        System.out.printf(Locale.ROOT, "%d traces, %d agree, %.1f s on %d threads%n", outs.size(), outs.size() - disagreements.size(), secs, threads);
        table.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        System.out.println("  TLC time by trace length (events): ");
        byLength.forEach((b, v) -> System.out.printf(Locale.ROOT, "    >= %4d events: %3.0f traces, mean %.2f s%n", b, v[0], v[1] / v[0]));
        assertThat(disagreements).as("the mirror and TLC disagree").isEmpty();
        assertThat(wrongProperty).as("a mutant implementation's trace rejected with another property").isEmpty();
        Map<Verdict, Integer> mutated = table.get("mutated");
        int total = mutated.values().stream().mapToInt(Integer::intValue).sum();
        // the mutations reach all three verdicts: 2 of each in the build's 20, 5 of each from 40 on
        int floor = total >= 40 ? 5 : 2;
        for (Verdict v : List.of(Verdict.ACCEPTED, Verdict.REJECTED, Verdict.MALFORMED)) {
            assertThat(mutated.getOrDefault(v, 0)).as("mutated traces with verdict %s: %s", v, mutated).isGreaterThanOrEqualTo(floor);
        }
        if (Boolean.getBoolean("lumen.differential.mutants")) {
            assertThat(table.get("mutant").values().stream().mapToInt(Integer::intValue).sum()).as("the mutant implementations' traces")
                    .isGreaterThanOrEqualTo(18);
        }
    }
}
