package lumen.assertj;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import lumen.trace.TraceFormatException;
import lumen.validate.References;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;

/**
 * A trace under test, for {@link LumenAssertions#assertThat(Trace)}: its bytes, its name, and the
 * reference its outputs are judged against. It is validated once, on first use, by the same Java
 * mirror as {@code lumen validate}.
 */
public final class Trace {
    private final byte[] bytes;
    private final String name;
    private final Validator.Options options;
    private ValidationResult result;

    private Trace(byte[] bytes, String name, Validator.Options options) {
        this.bytes = bytes;
        this.name = name;
        this.options = options;
    }

    /** The trace in a file (trace contract v1 or v2, docs/trace-format.md). */
    public static Trace of(Path file) {
        try {
            return new Trace(Files.readAllBytes(file), file.toString(), Validator.Options.defaults());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the trace " + file, e);
        }
    }

    /** A trace held in memory, named {@code name} in messages. */
    public static Trace of(byte[] bytes, String name) {
        return new Trace(bytes.clone(), name, Validator.Options.defaults());
    }

    /**
     * This trace judged against the kit's reference from {@code file}: a failure-free trace of the
     * same workload, or a token history (docs/trace-format.md, "A token history"). Without one the
     * outputs are judged against the reference the trace itself reports, and messages say so.
     */
    public Trace withReference(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return withReference(References.read(in, file.toString()), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the reference " + file, e);
        } catch (TraceFormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** This trace judged against the given reference outputs, per request, named {@code source}. */
    public Trace withReference(Map<Integer, int[]> reference, String source) {
        return new Trace(bytes, name, options.withReference(reference, source));
    }

    /** The name messages use for this trace. */
    public String name() {
        return name;
    }

    /** The validator's result for this trace; {@code complete} asks for end-of-run obligations. */
    ValidationResult result(boolean complete) {
        if (complete) {
            return validate(options.withComplete(true));
        }
        if (result == null) {
            result = validate(options);
        }
        return result;
    }

    private ValidationResult validate(Validator.Options o) {
        try {
            return Validator.validate(new ByteArrayInputStream(bytes), name, o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "trace " + name;
    }
}
