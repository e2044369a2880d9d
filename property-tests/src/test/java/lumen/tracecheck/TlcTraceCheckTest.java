package lumen.tracecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

class TlcTraceCheckTest {
    static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "../spec"));
    static final Path WORK = Path.of(System.getProperty("lumen.workDir", "target/tlc"));
    static final Path SCENARIOS = Path.of("../reference-impl/src/test/resources/scenarios");

    @Test
    void scenarioTracesGetTheMirrorsVerdictAtTheSameLine() throws Exception {
        TlcTraceCheck tlc = new TlcTraceCheck(SPEC, WORK.resolve("scenarios"), Duration.ofMinutes(5));
        try (var files = Files.list(SCENARIOS)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList()) {
                ValidationResult java;
                try (InputStream in = Files.newInputStream(p)) {
                    java = Validator.validate(in, p.toString());
                }
                TlcTraceCheck.Result r;
                try (InputStream in = Files.newInputStream(p)) {
                    r = tlc.check(in, p.toString(), p.getFileName().toString().replace(".jsonl", ""));
                }
                System.out.printf("%-40s java %-9s tlc %-9s line %d, %d events, %s%n", p.getFileName(), java.verdict(), r.verdict(),
                        r.line(), r.events(), r.tlcTime());
                assertEquals(java.verdict(), r.verdict(), p.toString());
                if (java.verdict() == Verdict.REJECTED) {
                    assertEquals(java.divergence().line(), r.line(), p + ": first wrong line");
                    assertEquals(java.divergence().finding().property(), r.property(), p + ": the property it breaks");
                }
            }
        }
    }

    /**
     * The differential check can fail: with a seeded bug in the TLC path (Eq. 6 replaced by
     * "restore whenever the holder is up", FC's rule), the reprefill scenario is rejected by TLC
     * at its first REPREFILL route while the mirror accepts it, and the disagreement is named.
     */
    @Test
    void aSeededBugInTheTlcPathIsADisagreement() throws Exception {
        TlcTraceCheck.Mutation always = new TlcTraceCheck.Mutation("TraceLumenMutRestore", String.join("\n",
                "---- MODULE TraceLumenMutRestore ----",
                "EXTENDS TraceLumen",
                "MutUseHolder(r) == holder[r] # None /\\ holder[r] \\in RouteTargets",
                "===="), java.util.List.of("CONSTANTS UseHolder <- MutUseHolder"));
        TlcTraceCheck tlc = new TlcTraceCheck(SPEC, WORK.resolve("seeded"), Duration.ofMinutes(5), always);
        Path p = SCENARIOS.resolve("short-prefix-reprefill.jsonl");
        Differential.Outcome o = Differential.compare(Files.readAllBytes(p), p.toString(), "reprefill", tlc);
        assertEquals(Verdict.ACCEPTED, o.mirror().verdict());
        assertEquals(Verdict.REJECTED, o.tlc().verdict());
        org.junit.jupiter.api.Assertions.assertFalse(o.agree());
        org.junit.jupiter.api.Assertions.assertTrue(o.tlc().event().contains("REPREFILL"), o.describe());
        System.out.println(o.describe());
    }
}
