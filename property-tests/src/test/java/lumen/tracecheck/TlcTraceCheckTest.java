package lumen.tracecheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

class TlcTraceCheckTest {
    static final Path SPEC = Path.of(System.getProperty("lumen.specDir", "../spec"));
    static final Path WORK = Path.of(System.getProperty("lumen.workDir", "target/tlc"));
    static final Path SCENARIOS = Path.of("../reference-impl/src/test/resources/scenarios");

    /** One scenario trace: the mirror's result and TLC's. */
    private record Both(Path trace, ValidationResult java, TlcTraceCheck.Result tlc) {}

    @Test
    void scenarioTracesGetTheMirrorsVerdictAtTheSameLine() throws Exception {
        TlcTraceCheck tlc = new TlcTraceCheck(SPEC, WORK.resolve("scenarios"), Duration.ofMinutes(5));
        List<Path> traces;
        try (var files = Files.list(SCENARIOS)) {
            traces = files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList();
        }
        assertThat(traces).as("the reference scenarios").hasSizeGreaterThanOrEqualTo(8);
        // one TLC process per trace, two at a time (each runs with one TLC worker)
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors())));
        List<Future<Both>> runs = new ArrayList<>();
        for (Path p : traces) {
            runs.add(pool.submit(() -> {
                ValidationResult java;
                try (InputStream in = Files.newInputStream(p)) {
                    java = Validator.validate(in, p.toString());
                }
                try (InputStream in = Files.newInputStream(p)) {
                    return new Both(p, java, tlc.check(in, p.toString(), p.getFileName().toString().replace(".jsonl", "")));
                }
            }));
        }
        pool.shutdown();
        for (Future<Both> f : runs) {
            Both b = f.get();
            Path p = b.trace();
            TlcTraceCheck.Result r = b.tlc();
            System.out.printf("%-40s java %-9s tlc %-9s line %d, %d events, %s%n", p.getFileName(), b.java().verdict(), r.verdict(),
                    r.line(), r.events(), r.tlcTime());
            assertThat(r.verdict()).as(p.toString()).isEqualTo(b.java().verdict());
            if (b.java().verdict() == Verdict.REJECTED) {
                assertThat(r.line()).as(p + ": first wrong line").isEqualTo(b.java().divergence().line());
                assertThat(r.property()).as(p + ": the property it breaks").isEqualTo(b.java().divergence().finding().property());
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
                "===="), List.of("CONSTANTS UseHolder <- MutUseHolder"));
        TlcTraceCheck tlc = new TlcTraceCheck(SPEC, WORK.resolve("seeded"), Duration.ofMinutes(5), always);
        Path p = SCENARIOS.resolve("short-prefix-reprefill.jsonl");
        Differential.Outcome o = Differential.compare(Files.readAllBytes(p), p.toString(), "reprefill", tlc);
        assertThat(o.mirror().verdict()).isEqualTo(Verdict.ACCEPTED);
        assertThat(o.tlc().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(o.agree()).isFalse();
        assertThat(o.tlc().event()).as(o.describe()).contains("REPREFILL");
        System.out.println(o.describe());
    }

    /**
     * A Place the trace does not log, under citedLoads=stale:1: request 0 (served by worker 0) has
     * its checkpoint on worker 1, least loaded only on worker 1's report from before request 1
     * arrived there (state 1). The Place took place after line 3 was logged, so its window is line
     * 3's (states 1..2) reaching on to now, as TraceLumen's WinStart has it; the window of the
     * event after it (states 2..3) would not allow worker 1.
     */
    static final String HIDDEN_PLACE_ON_AN_EARLIER_REPORT = String.join("\n",
            "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"observes\":{\"Place\":\"hidden\"},\"config\":{\"policy\":\"lumen\","
                    + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3,"
                    + "\"readings\":{\"citedLoads\":\"stale:1\"}}}",
            "{\"type\":\"Arrive\",\"req\":1,\"worker\":1,\"promptLen\":4,\"ref\":[11,12]}",
            "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}",
            "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[11]}",
            "{\"type\":\"StreamPage\",\"req\":0,\"holder\":1,\"ckpt\":4}") + "\n";

    @Test
    void aHiddenPlaceUnderStaleLoadsHasTheWindowOfTheLoggedEventBeforeIt() throws Exception {
        byte[] t = HIDDEN_PLACE_ON_AN_EARLIER_REPORT.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Differential.Outcome o = Differential.compare(t, "hidden-place", "hiddenPlace",
                new TlcTraceCheck(SPEC, WORK.resolve("hidden-place"), Duration.ofMinutes(5)));
        assertThat(o.mirror().verdict()).as(o.describe()).isEqualTo(Verdict.ACCEPTED);
        assertThat(o.agree()).as(o.describe()).isTrue();
        // a seeded bug: the hidden Place takes the window of the event after it
        TlcTraceCheck.Mutation next = new TlcTraceCheck.Mutation("TraceLumenMutWinStart", String.join("\n",
                "---- MODULE TraceLumenMutWinStart ----",
                "EXTENDS TraceLumen",
                "MutWinStart == IF syn = NoEv THEN l - Ev.win ELSE l - TraceLog[l].win",
                "===="), List.of("CONSTANTS WinStart <- MutWinStart"));
        Differential.Outcome m = Differential.compare(t, "hidden-place", "hiddenPlaceMut",
                new TlcTraceCheck(SPEC, WORK.resolve("hidden-place-seeded"), Duration.ofMinutes(5), next));
        assertThat(m.tlc().verdict()).as(m.describe()).isEqualTo(Verdict.REJECTED);
        assertThat(m.tlc().line()).as(m.describe()).isEqualTo(5);
        assertThat(m.agree()).isFalse();
    }
}
