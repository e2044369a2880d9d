package lumen.assertj;

import lumen.conform.Conformance;
import org.assertj.core.api.Assertions;

/**
 * The kit's AssertJ entry point for people who test their own LUMEN from JUnit 5:
 *
 * <pre>{@code
 * import static lumen.assertj.LumenAssertions.assertThat;
 *
 * assertThat(Trace.of(Path.of("run.jsonl")).withReference(Path.of("failure-free.jsonl")))
 *         .isBehaviourOfSpec().satisfies(PropertyId.S7).isComplete();
 * assertThat(new Conformance(Conformance.Options.defaults("python3 my_adapter.py")).run(run -> { })).passed();
 * }</pre>
 *
 * It extends AssertJ's {@link Assertions}, so one static import serves both.
 */
public class LumenAssertions extends Assertions {
    protected LumenAssertions() {}

    public static TraceAssert assertThat(Trace actual) {
        return new TraceAssert(actual);
    }

    public static ConformanceReportAssert assertThat(Conformance.Report actual) {
        return new ConformanceReportAssert(actual);
    }
}
