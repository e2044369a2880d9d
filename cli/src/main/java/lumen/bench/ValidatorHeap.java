package lumen.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import lumen.core.Config;
import lumen.trace.SyntheticTrace;
import lumen.trace.TraceWriter;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;

/**
 * Peak heap while validating a large trace from disk: writes a synthetic trace of the asked
 * size, then validates it while the JVM's heap pools record their peak usage.
 */
public final class ValidatorHeap {
    /** What was measured. */
    public record Result(long bytes, long events, double seconds, long peakHeapBytes, long maxHeapBytes, String verdict) {}

    private ValidatorHeap() {}

    /** Writes a trace of about {@code bytes} bytes to {@code file}; returns its events. */
    public static long write(Path file, long bytes, int workers) throws IOException {
        Config c = new Config("lumen", workers, 1, 1, 64, 32, 1 << 20, 16, 4);
        // about 62 bytes per event in this workload; generate a little more, then it stops at a tick's end
        long events = bytes / 62;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
             TraceWriter w = new TraceWriter(out, c)) {
            return SyntheticTrace.generate(new SyntheticTrace.Spec(c, events, 8, 64, 256, 50_000, 1), w::write);
        }
    }

    public static Result measure(Path file) throws IOException {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            p.resetPeakUsage();
        }
        long t0 = System.nanoTime();
        ValidationResult r;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            r = Validator.validate(in, file.toString());
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                peak += p.getPeakUsage().getUsed();
            }
        }
        return new Result(Files.size(file), r.events(), secs, peak, Runtime.getRuntime().maxMemory(), r.verdict().name());
    }
}
