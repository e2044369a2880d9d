package lumen.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import lumen.core.Config;
import lumen.trace.SyntheticTrace;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Validator throughput in events per second on one thread: a synthetic trace of 1,000,000
 * events (JSON parsing, the spec-step check, the invariants and the action properties) replayed
 * from memory, written in trace contract v1 (claims only) and v2 (with the KV content each event
 * carries, which the validator follows copy by copy). The score is events/s because each
 * invocation validates EVENTS events.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Threads(1)
public class ValidatorBench {
    static final int EVENTS = 1_000_000;

    @Param({"8", "64"})
    public int workers;

    @Param({"1", "2"})
    public int version;

    private byte[] trace;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        Config c = new Config("lumen", workers, 1, 1, 64, 32, 1 << 20, 16, 4);
        trace = SyntheticTrace.toBytes(new SyntheticTrace.Spec(c, EVENTS, 8, 64, 256, 50_000, 1), version);
        ValidationResult r = Validator.validate(new ByteArrayInputStream(trace), "bench");
        if (r.verdict() != Verdict.ACCEPTED || r.events() < EVENTS) {
            throw new IllegalStateException("the benchmark trace must be valid: " + r.verdict() + " " + r.divergence() + " " + r.error());
        }
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long validate() throws IOException {
        return Validator.validate(new ByteArrayInputStream(trace), "bench").events();
    }

    /** The floor this format allows: the same bytes through a bare Jackson parse ({@link ValidatorFromFile#bareParse}), in events/s. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long parse() throws IOException {
        return ValidatorFromFile.bareParse(new ByteArrayInputStream(trace));
    }
}
