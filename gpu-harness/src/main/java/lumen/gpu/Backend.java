package lumen.gpu;

import java.util.List;
import lumen.runtime.KvDataPlane;

/**
 * A KV data-plane backend of the GPU harness: the reference implementation's {@link KvDataPlane}
 * (compute, gather, restore, digest, free, clear) over a paged pool of fixed capacity, plus the
 * operations the GPU path adds: per-page checksums, streaming a run of pages to host memory, a
 * decode step's reads over a batch, and speculative verification. {@link CpuBackend} and
 * {@link KernelBackend} (on a GPU, {@link CudaBackend}) behave identically: same bytes, same integers, same tokens.
 */
public interface Backend extends KvDataPlane, AutoCloseable {

    /** "cpu", "jcuda", or the name of a test device. */
    String name();

    /** Pages of the pool, and those in use. */
    int capacityPages();

    int pagesInUse();

    /** The checksum of each page of {@code req} ({@link Kernels#checksum}), computed where the pages live. */
    long[] pageChecksums(int req);

    /** Pages {@code from..to} (0-based, inclusive) of {@code req}, gathered and copied to host memory. */
    List<byte[]> stream(int req, int from, int to);

    /** One decode step's reads: for each request, its KV reduced by {@link Kernels#attend}. */
    int[] decode(int[] reqs);

    /** Greedy verification of {@code rows} drafts of {@code k} tokens: the tokens each row emits (see {@link Kernels#greedy}). */
    int[] verifyGreedy(int[] draft, int[] target, int k);

    /** Rejection-sampling verification; see {@link Kernels#rejection}. */
    Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v);

    @Override
    void close();
}
