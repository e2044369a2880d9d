package lumen.tracecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.props.ScheduleGenerator;
import lumen.props.ScheduleTraces;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The differential check: the Java mirror and TLC must give the same verdict on every trace,
 * and name the same line when they reject one or find it malformed. The traces: valid ones from
 * the runtime under the four policies the spec names, the reference scenarios, seeded mutations
 * of valid ones (drop, swap, duplicate, alter, broken syntax), and hand-made invalid ones.
 * {@code -Dlumen.differential=N} sets the number of runtime traces (default 70; the mutated ones
 * are 5 per 3 of them plus 5, then the fixed ones).
 */
class MirrorTlcAgreementTest {
    static final List<String> SPEC_POLICIES = List.of("lumen", "lumen-dual", "fixed-checkpointing", "stop-and-restart");

    record Case(String name, String kind, byte[] trace) {}

    static List<Case> cases() throws Exception {
        int n = Integer.getInteger("lumen.differential", 70);
        List<Case> out = new ArrayList<>();
        ScheduleGenerator gen = new ScheduleGenerator(SPEC_POLICIES);
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
        try (var files = Files.list(TlcTraceCheckTest.SCENARIOS)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList()) {
                out.add(new Case("scenario " + p.getFileName(), p.getFileName().toString().startsWith("corrupt") ? "invalid" : "valid",
                        Files.readAllBytes(p)));
            }
        }
        String header = new String(valid.get(0), StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        String body = new String(valid.get(0), StandardCharsets.UTF_8).lines().skip(1).limit(6).reduce("", (a, b) -> a + b + "\n");
        out.add(new Case("header only", "edge", (header + "\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("no header", "invalid", body.getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("unknown request", "invalid",
                (header + "\n{\"type\":\"Decode\",\"req\":99,\"worker\":0,\"tokens\":[1]}\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("rejected, then malformed", "invalid",
                (header + "\n{\"type\":\"Restart\",\"worker\":0}\n{oops\n").getBytes(StandardCharsets.UTF_8)));
        out.add(new Case("valid, then malformed", "invalid", (header + "\n" + body + "{oops\n").getBytes(StandardCharsets.UTF_8)));
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
            fs.add(pool.submit(() -> Differential.compare(c.trace(), c.name(), id, tlc)));
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
        for (int i = 0; i < outs.size(); i++) {
            Differential.Outcome o = outs.get(i);
            table.computeIfAbsent(cases.get(i).kind(), k -> new EnumMap<>(Verdict.class)).merge(o.mirror().verdict(), 1, Integer::sum);
            int bucket = o.tlc().events() < 250 ? 0 : o.tlc().events() < 500 ? 250 : o.tlc().events() < 1000 ? 500 : 1000;
            byLength.computeIfAbsent(bucket, b -> new double[2]);
            byLength.get(bucket)[0]++;
            byLength.get(bucket)[1] += o.tlc().tlcTime().toMillis() / 1000.0;
            if (!o.agree()) {
                Path keep = work.resolve("disagreement-d" + i + ".jsonl");
                Files.write(keep, cases.get(i).trace());
                disagreements.add(o.describe() + "; trace kept in " + keep);
            }
        }
        System.out.printf(Locale.ROOT, "%d traces, %d agree, %.1f s on %d threads%n", outs.size(), outs.size() - disagreements.size(), secs, threads);
        table.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        System.out.println("  TLC time by trace length (events): ");
        byLength.forEach((b, v) -> System.out.printf(Locale.ROOT, "    >= %4d events: %3.0f traces, mean %.2f s%n", b, v[0], v[1] / v[0]));
        assertEquals(List.of(), disagreements, "the mirror and TLC disagree");
        assertTrue(outs.size() >= 200 || Integer.getInteger("lumen.differential", 70) < 70, "at least 200 traces");
        Map<Verdict, Integer> mutated = table.get("mutated");
        for (Verdict v : Verdict.values()) {
            assertTrue(mutated.getOrDefault(v, 0) >= 5, () -> "mutated traces with verdict " + v + ": " + mutated);
        }
    }
}
