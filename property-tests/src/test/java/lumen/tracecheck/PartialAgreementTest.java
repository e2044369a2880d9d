package lumen.tracecheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.props.ScheduleGenerator;
import lumen.props.ScheduleTraces;
import lumen.trace.Observation;
import lumen.trace.Observe;
import lumen.validate.ProcessLogs;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The differential check on what real systems can log: the runtime's traces at each observability
 * level (Place not logged, loads never cited, Decode per batch iteration, all three), in an order
 * the per-process logs' clocks allow (split per process and merged with shuffled ties), and
 * seeded mutations of those; the Java mirror and TLC must give the same verdict and, on a
 * rejection, the same line and property. Each full trace's verdict must also survive the level:
 * a valid run stays accepted. {@code -Dlumen.partial=N} sets the number of runtime schedules
 * (default 2, of runs of at most 150 lines: 10 level traces, up to 2 reorderings and 6 mutations in
 * every build); the deeper tier runs {@code -Dlumen.partial=40 -Dlumen.partial.maxLines=300} (200
 * level traces, up to 40 reorderings and 63 mutations; {@code lumen.partial.maxLines} bounds the
 * runs' length, since TLC's search of hidden placements grows with the requests waiting at once).
 * Each runtime schedule is also split into logs with wall-clock windows only (clocks up to 5 ms
 * apart), as is one seeded mutation of it: TLC judges the order the wall-clock search settled on.
 * Both also take one run of a load-aware policy under citedLoads=stale:N at the two levels that
 * hide its Place lines, where each hidden Place chooses the report it rests on, two random
 * mutations of those and one seeded bug (5 more traces).
 */
class PartialAgreementTest {
    static final List<Observation> LEVELS = List.of(
            Observation.NO_PLACE, Observation.NO_LOADS, Observation.BATCH, Observation.SIZES, Observation.LEAST);

    record Case(String name, String kind, byte[] trace) {}

    static List<Case> cases() throws Exception {
        int n = Integer.getInteger("lumen.partial", 2);
        // every build takes short runs (TLC's search of hidden placements grows with the run); the deeper tier any
        int most = Integer.getInteger("lumen.partial.maxLines", n <= 2 ? 150 : Integer.MAX_VALUE);
        List<Case> out = new ArrayList<>();
        // gray failures too: a paused worker's zombie writes, refused, at every level and in per-process order
        ScheduleGenerator gen = ScheduleGenerator.withDrawnReadings(MirrorTlcAgreementTest.SPEC_POLICIES).withGrayFailures(true);
        List<byte[]> partial = new ArrayList<>();
        long seed = 3000;
        for (int i = 0; i < n; i++) {
            byte[] full = ScheduleTraces.record(gen.generate(seed++));
            while (new String(full, StandardCharsets.UTF_8).lines().count() > most) {
                full = ScheduleTraces.record(gen.generate(seed++));
            }
            for (Observation o : LEVELS) {
                byte[] t = Observe.at(full, o);
                partial.add(t);
                out.add(new Case("runtime-" + i + " at " + o.describe(), "level", t));
            }
            // the merged order of the per-process logs, concurrent events shuffled (per-process logs share no
            // clock, so a window in ms cannot be kept: those runs are not split)
            if (new String(full, 0, Math.min(full.length, 2000), StandardCharsets.UTF_8).matches("(?s).*stale:[0-9.]+ms.*")) {
                continue;
            }
            ProcessLogs.Result m = ProcessLogs.validate(ProcessLogs.split(full).values().stream()
                            .map(s -> s.getBytes(StandardCharsets.UTF_8)).toList(),
                    ProcessLogs.split(full).keySet().stream().map(p -> p + ".jsonl").toList(), Validator.Options.defaults(), new Random(i));
            out.add(new Case("runtime-" + i + " merged from its process logs", "reordered", m.merged()));
            // and from logs with wall-clock windows only (clocks up to 5 ms apart): the order the search settled
            // on, and the one it rejected for a seeded mutation of the run
            out.add(new Case("runtime-" + i + " merged from its wall-clock logs", "wall-clock", wallMerged(full, i)));
            TraceMutator.Mutated mut = TraceMutator.mutate(full, TraceMutator.Kind.values()[i % TraceMutator.Kind.values().length],
                    new SplittableRandom(i));
            byte[] wm = wallMerged(mut.trace(), i);
            if (wm != null) {
                out.add(new Case("runtime-" + i + " mutated (" + mut.description() + "), merged from its wall-clock logs", "wall-clock", wm));
            }
        }
        SplittableRandom r = new SplittableRandom(11);
        TraceMutator.Kind[] kinds = TraceMutator.Kind.values();
        // every build also takes one load-aware run under citedLoads=stale:N, whose hidden placements
        // each choose the report they rest on, and mutations of it at the levels that hide its Place lines
        // (a short one with a window of one or two states in every build: TLC's search grows with both;
        // at the levels that hide its Place lines: the others judge it as the schedules above do)
        List<byte[]> staleHidden = new ArrayList<>();
        byte[] stale = staleLoadAware(gen, n <= 2 ? 80 : most);
        for (Observation o : LEVELS) {
            if (o.hiddenPlace()) {
                byte[] t = Observe.at(stale, o);
                staleHidden.add(t);
                out.add(new Case("runtime-stale at " + o.describe(), "level", t));
            }
        }
        for (int i = 0; i < 2; i++) {
            TraceMutator.Mutated m = TraceMutator.mutate(staleHidden.get(i % staleHidden.size()), kinds[(i * 2 + 1) % kinds.length], r);
            out.add(new Case("stale-mutated-" + i + " (" + m.description() + ")", "mutated", m.trace()));
        }
        out.add(new Case("stale-other-holder (" + OTHER_HOLDER + ")", "other-holder", otherHolder(staleHidden.get(0))));
        for (int i = 0; i < n * 3 / 2 + 3; i++) {
            TraceMutator.Kind k = kinds[i % kinds.length];
            byte[] base = partial.get((i * 7) % partial.size());
            TraceMutator.Mutated m = TraceMutator.mutate(base, k, r);
            out.add(new Case("partial-mutated-" + i + " (" + m.description() + ")", "mutated", m.trace()));
        }
        return out;
    }

    /** The order the wall-clock search settled on for a run split into wall-clock logs, or null when the logs are malformed. */
    static byte[] wallMerged(byte[] full, int seed) throws Exception {
        Map<String, String> logs = ProcessLogs.splitWallClock(full, 5, 1, new Random(seed));
        try {
            ProcessLogs.Result w = ProcessLogs.validate(logs.values().stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toList(),
                    logs.keySet().stream().map(p -> p + ".jsonl").toList(), Validator.Options.defaults());
            assertThat(w.wallClock()).isTrue();
            return w.merged();
        } catch (lumen.trace.TraceFormatException ex) {
            return null;
        }
    }

    static final String OTHER_HOLDER = "the first request streamed to a holder streams to the next worker that is not its server instead";

    /**
     * The seeded bug of a hidden placement: {@link #OTHER_HOLDER}, in a trace without Place lines, so
     * that only the search for the hidden Place, on the reports the monitor could have held, can judge it.
     */
    static byte[] otherHolder(byte[] trace) {
        String t = new String(trace, StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"type\":\"StreamPage\",(?:\"t\":[0-9.]+,)?\"req\":([0-9]+),\"holder\":([0-9]+),").matcher(t);
        assertThat(m.find()).as("a StreamPage to a holder").isTrue();
        String req = m.group(1);
        int holder = Integer.parseInt(m.group(2));
        java.util.regex.Matcher srv = java.util.regex.Pattern.compile("\"type\":\"Prefill\",(?:\"t\":[0-9.]+,)?\"req\":" + req + ",\"worker\":([0-9]+),").matcher(t);
        assertThat(srv.find()).as("request " + req + "'s prefill").isTrue();
        int server = Integer.parseInt(srv.group(1));
        int workers = Integer.parseInt(t.replaceFirst("(?s)^.*?\"workers\":([0-9]+).*$", "$1"));
        int other = (holder + 1) % workers == server ? (holder + 2) % workers : (holder + 1) % workers;
        return t.replace("\"req\":" + req + ",\"holder\":" + holder + ",", "\"req\":" + req + ",\"holder\":" + other + ",").getBytes(StandardCharsets.UTF_8);
    }

    /** The first drawn run from seed 5000 of a load-aware policy under citedLoads=stale:1 or stale:2 with a failure and streaming, of 40 to {@code most} lines. */
    private static byte[] staleLoadAware(ScheduleGenerator gen, int most) {
        for (long seed = 5000; ; seed++) {
            byte[] full = ScheduleTraces.record(gen.generate(seed));
            String text = new String(full, StandardCharsets.UTF_8);
            String head = text.substring(0, text.indexOf('\n'));
            if (head.matches(".*\"policy\":\"lumen(-dual)?\".*") && head.matches(".*stale:[12]\".*") && text.contains("\"type\":\"Fail\"") && text.contains("\"type\":\"StreamPage\"")
                    && text.lines().count() >= 40 && text.lines().count() <= most) {
                return full;
            }
        }
    }

    @Test
    void mirrorAndTlcAgreeOnPartialAndReorderedTraces() throws Exception {
        List<Case> cases = cases();
        Path work = TlcTraceCheckTest.WORK.resolve("partial");
        TlcTraceCheck tlc = new TlcTraceCheck(TlcTraceCheckTest.SPEC, work, Duration.ofMinutes(10));
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        List<Future<Differential.Outcome>> fs = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String id = "p" + i;
            fs.add(pool.submit(() -> Differential.compare(c.trace(), c.name(), id, tlc, Validator.Options.defaults())));
        }
        List<String> disagreements = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        Map<String, Map<Verdict, Integer>> table = new TreeMap<>();
        TreeMap<Integer, double[]> byLength = new TreeMap<>();
        for (int i = 0; i < cases.size(); i++) {
            Differential.Outcome o = fs.get(i).get();
            Case c = cases.get(i);
            table.computeIfAbsent(c.kind(), k -> new EnumMap<>(Verdict.class)).merge(o.mirror().verdict(), 1, Integer::sum);
            if (!o.agree()) {
                Path keep = work.resolve("disagreement-p" + i + ".jsonl");
                Files.createDirectories(work);
                Files.write(keep, c.trace());
                disagreements.add(o.describe() + "; trace kept in " + keep);
            }
            if ((c.kind().equals("level") || c.kind().equals("reordered") || c.kind().equals("wall-clock") && !c.name().contains("mutated"))
                    && o.mirror().verdict() != Verdict.ACCEPTED) {
                lost.add(o.describe());
            }
            if (c.name().contains("stale")) {
                System.out.println("  " + c.name() + ": " + o.describe());
            }
            int bucket = o.tlc().events() < 250 ? 0 : o.tlc().events() < 500 ? 250 : o.tlc().events() < 1000 ? 500 : 1000;
            double[] b = byLength.computeIfAbsent(bucket, x -> new double[2]);
            b[0]++;
            b[1] += o.tlc().tlcTime().toMillis() / 1000.0;
        }
        pool.shutdown();
        System.out.printf(Locale.ROOT, "%d partial and reordered traces, %d agree, %.1f s on %d threads%n", cases.size(),
                cases.size() - disagreements.size(), (System.nanoTime() - t0) / 1e9, threads);
        table.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        byLength.forEach((k, v) -> System.out.printf(Locale.ROOT, "    >= %4d events: %3.0f traces, TLC mean %.2f s%n", k, v[0], v[1] / v[0]));
        assertThat(disagreements).as("the mirror and TLC disagree").isEmpty();
        assertThat(lost).as("a valid run's trace no longer accepted at a level or in a merged order").isEmpty();
        assertThat(table.get("mutated")).as("mutations of partial traces reach rejections").containsKey(Verdict.REJECTED);
        assertThat(table.get("wall-clock")).as("runs merged from their wall-clock logs").containsKey(Verdict.ACCEPTED);
        assertThat(table.get("other-holder")).as("a hidden placement on a holder no report made least loaded").containsOnlyKeys(Verdict.REJECTED);
    }
}
