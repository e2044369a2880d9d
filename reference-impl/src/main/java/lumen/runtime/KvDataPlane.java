package lumen.runtime;

import java.util.List;

/**
 * A worker's paged KV store in GPU memory: the data plane that prefill and decode write, that
 * streaming gathers pages from, and that a restore fills. The CPU backend is
 * {@link CpuKvPlane}; a GPU backend implements the same interface.
 */
public interface KvDataPlane {
    KvGeometry geometry();

    /** Computes and writes the true bytes of positions from..to (1-based, inclusive) of r. */
    void compute(int req, long seed, int from, int to);

    /** Positions of r held. */
    int positions(int req);

    /** A copy of page {@code page} (0-based) of r, as streaming gathers it. */
    byte[] gather(int req, int page);

    /** Replaces r's KV with restored pages holding positions 1..positions. */
    void restore(int req, List<byte[]> pages, int positions);

    /**
     * The content digest of page {@code page} (0-based) of r over its first {@code count}
     * positions, every layer ({@link PageBytes#pageDigest}), as the trace reports it.
     */
    default long pageDigest(int req, int page, int count) {
        KvGeometry g = geometry();
        return PageBytes.pageDigest(gather(req, page), 0, count * g.layers() * g.bytesPerTokenLayer());
    }

    /** The digest of r's KV for positions 1..n, every layer, as attention reads it. */
    long digest(int req, int n);

    /** Frees r's KV. */
    void free(int req);

    /** A crash: everything is gone. */
    void clear();
}
