package lumen.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Mutant;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A sample of {@code lumen bench fuzz-reader} in every build: a few hundred mutated traces
 * through the validator, with no stack trace, no hang, no malformed input accepted, no tolerated
 * input refused, every error on the mutated line and every echo short. The harness's own tests
 * show that each count can be non-zero.
 */
class ReaderFuzzTest {
    static List<ReaderMutator.Base> bases;

    @BeforeAll
    static void load() {
        bases = ReaderMutator.defaultBases(6);
    }

    @Test
    void aSampleOfMutatedTracesGetsOnlyCleanVerdicts() {
        ReaderFuzz.Report r = ReaderFuzz.run(bases, ReaderFuzz.Options.of(450, 20_260_101), null);
        String table = r.text();
        assertThat(r.total().inputs).isEqualTo(450);
        assertThat(r.total().stackTraces).as(table).isZero();
        assertThat(r.total().hangs).as(table).isZero();
        assertThat(r.total().malformedAccepted).as(table).isZero();
        assertThat(r.total().toleratedRefused).as(table).isZero();
        assertThat(r.total().mislocated).as(table).isZero();
        assertThat(r.total().longEchoes).as(table).isZero();
        assertThat(r.rules()).allSatisfy(c -> assertThat(c.inputs).as(c.rule).isPositive());
        assertThat(r.seconds()).as("well under the build's patience").isLessThan(60);
    }

    @Test
    void theBasesAreAcceptedTracesOfEveryPolicyKind() {
        assertThat(bases).hasSizeGreaterThanOrEqualTo(6);
        Set<String> policies = new HashSet<>();
        for (ReaderMutator.Base b : bases) {
            assertThat(ReaderMutator.accepted(ReaderMutator.join(b.lines()).getBytes(StandardCharsets.UTF_8))).as(b.name()).isTrue();
            policies.add(b.lines().get(0).replaceAll(".*\"policy\":\"([^\"]+)\".*", "$1"));
        }
        assertThat(policies).contains("lumen", "lumen-dual");
    }

    @Test
    void theSameSeedGivesTheSameMutantsAndEveryRuleHasALabelAndAnExpectation() {
        ReaderMutator a = new ReaderMutator(bases, 5);
        ReaderMutator b = new ReaderMutator(bases, 5);
        for (long i = 0; i < a.rules().size() * 2L; i++) {
            Mutant x = a.mutant(i);
            Mutant y = b.mutant(i);
            assertThat(x.rule()).isEqualTo(y.rule());
            assertThat(x.bytes()).isEqualTo(y.bytes());
            assertThat(x.what()).isNotBlank();
        }
        Set<Expect> kinds = new HashSet<>();
        a.rules().forEach(rule -> kinds.add(rule.expect()));
        assertThat(kinds).containsExactlyInAnyOrder(Expect.values());
        assertThat(a.rules()).extracting(ReaderMutator.Rule::name).doesNotHaveDuplicates()
                .contains("int-beyond-64-bits", "float-for-int", "non-finite-number", "blank-line", "byte-order-mark", "duplicate-key",
                        "unknown-field", "ext-not-an-object", "huge-header-size", "negative-id", "truncated-line", "garbage-bytes",
                        "invalid-utf8", "deep-nesting", "huge-array", "ten-mb-line", "two-objects-on-a-line", "time-backwards",
                        "missing-header", "crlf", "ext-objects", "extra-whitespace");
    }

    @Test
    void theHarnessCountsWhatGoesWrong() {
        ReaderFuzz.Options o = new ReaderFuzz.Options(ruleCount(), 3, Duration.ofMillis(300));
        // a checker that accepts everything: every malformed input is counted as accepted
        ReaderFuzz.Report lax = ReaderFuzz.run(bases, o, (in, src) -> accept(), null);
        long malformedInputs = lax.rules().stream().filter(c -> c.expect == Expect.MALFORMED).mapToLong(c -> c.inputs).sum();
        assertThat(lax.total().malformedAccepted).isEqualTo(malformedInputs).isPositive();
        // one that refuses everything with an error on line 1: tolerated inputs refused, errors on the wrong line
        ReaderFuzz.Report strict = ReaderFuzz.run(bases, o, (in, src) -> Validator.validate(new ByteArrayInputStream("[]".getBytes()), src), null);
        assertThat(strict.total().toleratedRefused).isPositive();
        assertThat(strict.total().mislocated).isPositive();
        // one that throws, and one that never answers
        ReaderFuzz.Report crash = ReaderFuzz.run(bases, o, (in, src) -> {
            throw new ArithmeticException("boom");
        }, null);
        assertThat(crash.total().stackTraces).isEqualTo(o.count());
        assertThat(crash.rules().get(0).example).contains("ArithmeticException: boom");
        ReaderFuzz.Options two = new ReaderFuzz.Options(2, 3, Duration.ofMillis(200));
        ReaderFuzz.Report hang = ReaderFuzz.run(bases, two, (in, src) -> {
            while (true) {
                in.read(new byte[1], 0, 1);
                in.reset();
            }
        }, null);
        assertThat(hang.total().hangs).isEqualTo(2);
        assertThat(hang.clean()).isFalse();
        assertThat(hang.text()).contains("hangs: 2");
    }

    private static long ruleCount() {
        return new ReaderMutator(bases, 3).rules().size();
    }

    private static ValidationResult accept() {
        return new ValidationResult("x", Verdict.ACCEPTED, null, 2, 0, Map.of(), 0, 0, null, null, java.util.List.of(), Validator.SELF_REPORTED, java.util.List.of());
    }
}
