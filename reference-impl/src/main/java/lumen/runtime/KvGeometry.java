package lumen.runtime;

/**
 * The shape of KV data: positions per page, layers, and bytes per position per layer (K and V
 * together). A page holds {@code pageTokens * layers * bytesPerTokenLayer} bytes.
 */
public record KvGeometry(int pageTokens, int layers, int bytesPerTokenLayer) {
    public KvGeometry {
        if (pageTokens < 1 || layers < 1 || bytesPerTokenLayer < 1) {
            throw new IllegalArgumentException("KV geometry needs positive sizes: " + pageTokens + "/" + layers + "/" + bytesPerTokenLayer);
        }
    }

    public static KvGeometry small(int pageTokens) {
        return new KvGeometry(pageTokens, 2, 16);
    }

    public int pageBytes() {
        return pageTokens * layers * bytesPerTokenLayer;
    }

    /** Pages needed for {@code positions} positions. */
    public int pagesFor(int positions) {
        return (positions + pageTokens - 1) / pageTokens;
    }

    /** Byte offset of (position, layer) inside its page; positions are 1-based. */
    public int offset(int position, int layer) {
        int slot = (position - 1) % pageTokens;
        return (slot * layers + layer) * bytesPerTokenLayer;
    }
}
