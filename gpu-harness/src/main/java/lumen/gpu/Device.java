package lumen.gpu;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Where the kernels of {@code lumen_kernels.cu} run, as {@link KernelBackend} sees it: device
 * memory, copies to and from it, two streams, and kernel launches. {@link CudaDevice} is a CUDA
 * device through the JCuda driver API. A test device runs the same kernel source compiled for the
 * host, so that everything above this interface is exercised where there is no GPU.
 *
 * <p>Every launch's arguments are checked against the kernel's {@link #SIGNATURES} before they
 * reach the device, on every implementation.
 */
interface Device extends AutoCloseable {
    /** The stream decode and the synchronous operations use, and the one streaming and restores use. */
    int MAIN = 0;

    int SIDE = 1;

    /** A device allocation. */
    record Ptr(long id) {}

    /** A device staging buffer and a host buffer of the same size (pinned, on a GPU), allocated and freed together. */
    interface Staging extends AutoCloseable {
        Ptr device();

        /** The host buffer, position 0, limit {@link #bytes()}. */
        ByteBuffer host();

        long bytes();

        @Override
        void close();
    }

    /** "jcuda", or the name of a test device. */
    String name();

    /** The device's own name (the GPU's model). */
    String model();

    Ptr alloc(long bytes);

    void free(Ptr p);

    /** Sets {@code bytes} bytes of {@code p} to zero. */
    void zero(Ptr p, long bytes);

    /** Host to device, synchronous. */
    void write(Ptr p, int[] src);

    void write(Ptr p, float[] src);

    /** Device to host, synchronous, after the work on {@link #MAIN} is done. */
    void read(Ptr p, int[] dst);

    void read(Ptr p, long[] dst);

    Staging staging(long bytes);

    /** Copies the first {@code bytes} bytes of the staging's device buffer to its host buffer, on {@code stream}; may return at once. */
    void toHost(Staging s, long bytes, int stream);

    /** The inverse, host buffer to device buffer, on {@code stream}; may return at once. */
    void toDevice(Staging s, long bytes, int stream);

    /** Launches {@code kernel} on a grid of blocksX x blocksY blocks of {@code threads} threads, on {@code stream}; may return at once. */
    void launch(String kernel, int blocksX, int blocksY, int threads, int stream, Object... args);

    /** Waits for the work on {@code stream}. */
    void sync(int stream);

    /** A point in a stream's work, for timing; each is used once, by {@link #elapsedMs}. */
    interface Mark {}

    /** Marks the point {@code stream} has reached in the work enqueued so far. */
    Mark mark(int stream);

    /** Milliseconds from one mark to a later one, once the later is reached (on a GPU, timed by the device). */
    double elapsedMs(Mark from, Mark to);

    /** Milliseconds of what {@code work} enqueues on {@code stream}. */
    default double timed(int stream, Runnable work) {
        Mark a = mark(stream);
        work.run();
        return elapsedMs(a, mark(stream));
    }

    @Override
    void close();

    /**
     * Each kernel's parameters, as byte sizes in declaration order (8: a device pointer or a 64-bit
     * integer; 4: a 32-bit integer). A test checks them against the PTX, and every launch checks its
     * arguments against them, so a kernel and its Java caller cannot drift apart unnoticed.
     */
    Map<String, int[]> SIGNATURES = Map.of(
            "fill_kv", new int[] {8, 8, 8, 4, 4, 4, 4, 4},
            "zero_pages", new int[] {8, 8, 4, 8},
            "gather_pages", new int[] {8, 8, 4, 8, 8},
            "scatter_pages", new int[] {8, 8, 4, 8, 8},
            "page_checksum", new int[] {8, 8, 4, 8, 8},
            "decode_attend", new int[] {8, 8, 8, 8, 4, 4, 4, 4, 8},
            "verify_greedy", new int[] {8, 8, 4, 4, 8},
            "verify_rejection", new int[] {8, 8, 8, 8, 8, 4, 4, 4, 8, 8});

    /** Checks {@code args} (Ptr, Long or Integer) against the kernel's signature. */
    static void check(String kernel, Object... args) {
        int[] sig = SIGNATURES.get(kernel);
        if (sig == null) {
            throw new IllegalArgumentException("no kernel " + kernel + " in lumen_kernels.cu");
        }
        if (sig.length != args.length) {
            throw new IllegalArgumentException(kernel + " takes " + sig.length + " parameters; launched with " + args.length);
        }
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int size;
            if (a instanceof Ptr || a instanceof Long) {
                size = 8;
            } else if (a instanceof Integer) {
                size = 4;
            } else {
                throw new IllegalArgumentException(kernel + " parameter " + i + ": cannot pass a " + (a == null ? "null" : a.getClass().getSimpleName()));
            }
            if (size != sig[i]) {
                throw new IllegalArgumentException(kernel + " parameter " + i + " takes " + sig[i] + " bytes; launched with " + size);
            }
        }
    }
}
