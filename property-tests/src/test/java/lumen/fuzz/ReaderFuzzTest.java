package lumen.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Mutant;
import lumen.trace.TraceFormatException;
import lumen.validate.Verdict;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sample of {@code lumen bench fuzz-reader} in every build: a few hundred mutants of each input
 * kind (whole atomic traces, traces with begin and end forms, partial traces, per-process logs,
 * client histories) through the kit's readers, with no stack trace, no hang, no malformed input
 * accepted, no tolerated input refused, every error on the mutated line of the mutated file and
 * every echo short. The harness's own tests show that each count can be non-zero for each kind.
 */
class ReaderFuzzTest {
    static final long SEED = 20_260_101;
    static Map<InputKind, Generator> gens = new EnumMap<>(InputKind.class);

    @BeforeAll
    static void load() {
        for (Generator g : FuzzBases.generators(InputKind.all(), 6, SEED)) {
            gens.put(g.kind(), g);
        }
    }

    /** The sample's size for each kind: the atomic traces' as it was, and a few hundred of each other kind. */
    static long sample(InputKind k) {
        return k == InputKind.ATOMIC ? 450 : 200;
    }

    @ParameterizedTest
    @EnumSource(InputKind.class)
    void aSampleOfEachKindGetsOnlyCleanVerdicts(InputKind kind) {
        long n = sample(kind);
        ReaderFuzz.Report r = ReaderFuzz.run(List.of(gens.get(kind)), ReaderFuzz.Options.of(n, SEED), ReaderFuzz.READERS, null);
        String table = r.text();
        ReaderFuzz.Counts c = r.of(kind);
        assertThat(c.inputs).isEqualTo(n);
        assertThat(c.stackTraces).as(table).isZero();
        assertThat(c.hangs).as(table).isZero();
        assertThat(c.malformedAccepted).as(table).isZero();
        assertThat(c.toleratedRefused).as(table).isZero();
        assertThat(c.mislocated).as(table).isZero();
        assertThat(c.longEchoes).as(table).isZero();
        assertThat(r.clean()).isTrue();
        assertThat(r.rules()).allSatisfy(x -> assertThat(x.inputs).as(x.rule).isPositive());
        assertThat(table).contains(kind.label() + ": " + kind.words()).contains(kind.label() + " total");
        assertThat(r.seconds()).as("well under the build's patience").isLessThan(60);
    }

    @SuppressWarnings("unchecked")
    static <T> List<T> bases(InputKind k) {
        Generator g = gens.get(k);
        return (List<T>) (g instanceof ReaderMutator m ? m.baseList() : g instanceof ProcessLogMutator p ? p.baseList()
                : ((HistoryMutator) g).baseList());
    }

    @Test
    void theBasesAreAcceptedInputsOfEveryKindAndForm() {
        assertThat(gens).containsOnlyKeys(InputKind.values());
        Set<String> policies = new HashSet<>();
        for (ReaderMutator.Base b : ReaderFuzzTest.<ReaderMutator.Base>bases(InputKind.ATOMIC)) {
            assertThat(FuzzBases.accepted(b.bytes())).as(b.name()).isTrue();
            policies.add(b.lines().get(0).replaceAll(".*\"policy\":\"([^\"]+)\".*", "$1"));
        }
        assertThat(policies).contains("lumen", "lumen-dual");
        // every accepted trace, written with begin and end forms, observed at a partial level or split into per-process logs, is
        // accepted too: none is left out
        List<ReaderMutator.Base> atomic = bases(InputKind.ATOMIC);
        List<ReaderMutator.Base> split = bases(InputKind.BEGIN_END);
        assertThat(split).extracting(ReaderMutator.Base::name)
                .containsExactlyElementsOf(atomic.stream().map(b -> b.name() + " (begin-end)").toList());
        assertThat(ReaderFuzzTest.<ReaderMutator.Base>bases(InputKind.PARTIAL)).hasSameSizeAs(atomic);
        assertThat(ReaderFuzzTest.<ProcessLogMutator.Logs>bases(InputKind.PROCESS_LOGS)).hasSameSizeAs(atomic);
        for (ReaderMutator.Base b : split) {
            assertThat(FuzzBases.accepted(b.bytes())).as(b.name()).isTrue();
            assertThat(b.lines().get(0)).contains("\"steps\":\"begin-end\"");
        }
        // a chunked Prefill, a Decode begun with its pages, a StreamPage begin naming its holder, every splittable type
        String all = String.join("\n", split.stream().map(ReaderFuzzTest::text).toList());
        assertThat(all).contains("{\"type\":\"Prefill\",\"phase\":\"chunk\"", "{\"type\":\"Route\",\"phase\":\"begin\"",
                        "{\"type\":\"FullReady\",\"phase\":\"begin\"", "\"phase\":\"end\"")

                .containsPattern("\\{\"type\":\"StreamPage\",\"phase\":\"begin\",(\"t\":[0-9.]+,)?\"req\":[0-9]+,\"holder\"")
                .containsPattern("\\{\"type\":\"Decode\",\"phase\":\"begin\",(\"t\":[0-9.]+,)?\"req\":[0-9]+,\"worker\":[0-9]+,\"pages\":\\[\\[");
        // a worker's begin with no pages to carry (a Prefill after a whole restore), its end without pages
        assertThat(split).anySatisfy(b -> assertThat(BeginEnd.steps(b.lines())).anySatisfy(st -> {
            assertThat(b.lines().get(st.begin())).contains("\"pages\":[]");
            assertThat(b.lines().get(st.end())).startsWith("{\"type\":\"Prefill\"").doesNotContain("\"pages\"");
        }));
        List<ReaderMutator.Base> partial = bases(InputKind.PARTIAL);
        for (ReaderMutator.Base b : partial) {
            assertThat(FuzzBases.accepted(b.bytes())).as(b.name()).isTrue();
            assertThat(b.lines().get(0)).contains("\"observes\":{");
        }
        assertThat(String.join(";", partial.stream().map(ReaderMutator.Base::name).toList()))
                .contains("Place not logged", "loads never cited", "Decode per batch iteration", "checkpoint sizes without content");
        List<ProcessLogMutator.Logs> logs = bases(InputKind.PROCESS_LOGS);
        assertThat(logs).anyMatch(ProcessLogMutator.Logs::lamport).anyMatch(l -> !l.lamport());
        assertThat(logs).allSatisfy(l -> assertThat(ProcessLogMutator.accepted(l.inputs())).as(l.name()).isTrue());
        assertThat(logs).allSatisfy(l -> assertThat(l.logs()).hasSizeGreaterThan(2));
        List<ReaderMutator.Base> histories = bases(InputKind.HISTORY);
        assertThat(histories).hasSizeGreaterThanOrEqualTo(4).allSatisfy(h -> assertThat(HistoryMutator.accepted(h.bytes())).isTrue());
    }

    @Test
    void theSameSeedGivesTheSameMutantsAndEveryRuleHasALabelAndAnExpectation() {
        Map<InputKind, List<String>> named = Map.of(
                InputKind.ATOMIC, List.of("int-beyond-64-bits", "float-for-int", "non-finite-number", "blank-line", "byte-order-mark",
                        "duplicate-key", "unknown-field", "ext-not-an-object", "huge-header-size", "negative-id", "truncated-line", "garbage-bytes",
                        "invalid-utf8", "deep-nesting", "huge-array", "ten-mb-line", "two-objects-on-a-line", "time-backwards", "missing-header",
                        "crlf", "ext-objects", "extra-whitespace"),
                InputKind.BEGIN_END, List.of("end-without-begin", "phase-on-atomic-type", "chunk-after-stop", "end-holder-differs",
                        "undeclared-begin-end", "begin-holder", "pages-moved", "step-forms", "unfinished-begin", "begin-earlier", "unknown-field"),
                InputKind.PARTIAL, List.of("bad-observes", "undeclared-level", "bad-entry", "observes-defaults", "composed-as-steps",
                        "search-bounds", "missing-field"),
                InputKind.PROCESS_LOGS, List.of("vc-own-count", "vc-goes-back", "vc-unknown-process", "vc-beyond-log", "missing-clock",
                        "both-clocks", "lc-not-growing", "mixed-clocks", "header-differs", "two-logs-of-one-process", "wall-clock-skew",
                        "files-reordered", "blank-line", "duplicate-key"),
                InputKind.HISTORY, List.of("two-objects-on-a-line", "bad-object", "bad-time", "unsent-request", "sent-twice", "time-backwards",
                        "bad-retry", "other-fields", "fault-records", "retry-after-error", "values-at-limits"));
        for (InputKind k : InputKind.values()) {
            Generator a = gens.get(k).withSeed(5);
            Generator b = gens.get(k).withSeed(5);
            for (long i = 0; i < a.labels().size() * 2L; i++) {
                Mutant x = a.mutant(i);
                Mutant y = b.mutant(i);
                assertThat(x.kind()).isEqualTo(k);
                assertThat(x.rule()).isEqualTo(y.rule());
                assertThat(x.inputs()).hasSameSizeAs(y.inputs());
                for (int f = 0; f < x.inputs().size(); f++) {
                    assertThat(x.inputs().get(f).name()).isEqualTo(y.inputs().get(f).name());
                    assertThat(x.inputs().get(f).bytes()).isEqualTo(y.inputs().get(f).bytes());
                }
                assertThat(x.what()).isNotBlank();
                if (x.expect() == Expect.MALFORMED) {
                    assertThat(x.inputs()).extracting(ReaderMutator.Input::name).as(x.rule()).contains(x.file());
                }
            }
            Set<Expect> expects = new HashSet<>();
            a.labels().forEach(rule -> expects.add(rule.expect()));
            assertThat(expects).as(k.label()).containsExactlyInAnyOrder(Expect.values());
            assertThat(a.labels()).extracting(Generator.Label::name).as(k.label()).doesNotHaveDuplicates().containsAll(named.get(k));
            assertThat(a.labels()).extracting(Generator.Label::doc).allSatisfy(d -> assertThat(d).isNotBlank());
        }
    }

    @Test
    void theHarnessCountsWhatGoesWrong() {
        List<Generator> all = List.copyOf(gens.values());
        long rules = all.stream().mapToLong(g -> g.labels().size()).max().orElseThrow() * all.size();
        ReaderFuzz.Options o = new ReaderFuzz.Options(rules, 3, Duration.ofMillis(300));
        // a checker that accepts everything: every malformed input is counted as accepted
        ReaderFuzz.Report lax = ReaderFuzz.run(all, o, (kind, names, in) -> outcome(Verdict.ACCEPTED, null, 0, ""), null);
        // one that refuses everything with an error on line 1 of the first file: tolerated inputs refused, errors off the mutated line
        ReaderFuzz.Report strict = ReaderFuzz.run(all, o, (kind, names, in) -> ReaderFuzz.Outcome.malformed(
                new TraceFormatException(names.get(0), 1, "refused")), null);
        // one that throws, one whose error quotes too much
        ReaderFuzz.Report crash = ReaderFuzz.run(all, o, (kind, names, in) -> {
            throw new ArithmeticException("boom");
        }, null);
        ReaderFuzz.Report echo = ReaderFuzz.run(all, o, (kind, names, in) -> ReaderFuzz.Outcome.malformed(
                new TraceFormatException(names.get(0), 1, "x".repeat(2 * ReaderFuzz.MAX_MESSAGE_BYTES))), null);
        for (InputKind k : InputKind.values()) {
            long malformedInputs = lax.rules().stream().filter(c -> c.kind == k && c.expect == Expect.MALFORMED).mapToLong(c -> c.inputs).sum();
            assertThat(lax.of(k).malformedAccepted).as(k.label()).isEqualTo(malformedInputs).isPositive();
            assertThat(strict.of(k).toleratedRefused).as(k.label()).isPositive();
            assertThat(strict.of(k).mislocated).as(k.label()).isPositive();
            assertThat(crash.of(k).stackTraces).as(k.label()).isEqualTo(crash.of(k).inputs).isPositive();
            assertThat(echo.of(k).longEchoes).as(k.label()).isPositive();
        }
        assertThat(crash.total().stackTraces).isEqualTo(o.count());
        assertThat(crash.rules().get(0).example).contains("ArithmeticException: boom");
        // one that never answers: a hang of each kind
        ReaderFuzz.Options one = new ReaderFuzz.Options(all.size(), 3, Duration.ofMillis(200));
        ReaderFuzz.Report hang = ReaderFuzz.run(all, one, (kind, names, in) -> {
            while (true) {
                in.get(0).read(new byte[1], 0, 1);
                in.get(0).reset();
            }
        }, null);
        for (InputKind k : InputKind.values()) {
            assertThat(hang.of(k).hangs).as(k.label()).isEqualTo(1);
        }
        assertThat(hang.clean()).isFalse();
        assertThat(hang.text()).contains("hangs: " + all.size()).containsPattern("history: +1 inputs: stack traces 0, hangs 1,");
    }

    private static ReaderFuzz.Outcome outcome(Verdict v, String source, long line, String message) {
        return new ReaderFuzz.Outcome(v, source, line, message, message, "");
    }

    static String text(ReaderMutator.Base b) {
        return new String(b.bytes(), StandardCharsets.UTF_8);
    }
}
