package lumen.gpu;

import java.util.List;
import lumen.runtime.KvGeometry;
import lumen.runtime.PageBytes;

/** What both backends share: the geometry, the pool's bookkeeping, and the checks around streaming and restoring. */
abstract class PooledBackend implements Backend {
    final KvGeometry g;
    final PagePool pool;

    PooledBackend(KvGeometry g, int capacityPages) {
        this.g = g;
        this.pool = new PagePool(g, capacityPages);
    }

    @Override
    public KvGeometry geometry() {
        return g;
    }

    @Override
    public int capacityPages() {
        return pool.capacity();
    }

    @Override
    public int pagesInUse() {
        return pool.inUse();
    }

    @Override
    public int positions(int req) {
        return pool.positions(req);
    }

    @Override
    public byte[] gather(int req, int page) {
        return stream(req, page, page).get(0);
    }

    @Override
    public void free(int req) {
        pool.free(req);
    }

    @Override
    public void clear() {
        pool.clear();
    }

    /**
     * Records positions from..to of req and returns its page table; the pages this adds are zeroed
     * ({@link #zeroPages}) before anything is written to them, so that a page's bytes past the
     * request's last position are zeros, whatever the slot held before, on every backend.
     */
    int[] extend(int req, int from, int to) {
        int before = pool.table(req).length;
        int[] t = pool.extend(req, from, to);
        if (t.length > before) {
            zeroPages(java.util.Arrays.copyOfRange(t, before, t.length));
        }
        return t;
    }

    /** Sets every byte of these slots' pages to zero. */
    abstract void zeroPages(int[] slots);

    /** The slots of pages from..to of req, or an IndexOutOfBoundsException naming what req has. */
    int[] slots(int req, int from, int to) {
        int[] t = pool.table(req);
        if (from < 0 || to >= t.length || from > to) {
            throw new IndexOutOfBoundsException("request " + req + " has " + t.length + " pages; cannot stream " + from + ".." + to);
        }
        return java.util.Arrays.copyOfRange(t, from, to + 1);
    }

    /** The checksums of the pages a restore sends, after checking that each is a whole page. */
    long[] sent(int req, List<byte[]> pages) {
        long[] want = new long[pages.size()];
        for (int i = 0; i < want.length; i++) {
            if (pages.get(i).length != g.pageBytes()) {
                throw new IllegalArgumentException("restored page " + i + " of request " + req + " has " + pages.get(i).length
                        + " bytes, not " + g.pageBytes());
            }
            want[i] = Kernels.checksum(pages.get(i));
        }
        return want;
    }

    /** The reference implementation's digest of positions 1..n, every layer, read from req's pages as streamed to the host. */
    @Override
    public long digest(int req, int n) {
        int pages = g.pagesFor(n);
        List<byte[]> ps = pages == 0 ? List.of() : stream(req, 0, pages - 1);
        long d = PageBytes.DIGEST_START;
        for (int pos = 1; pos <= n; pos++) {
            byte[] page = ps.get((pos - 1) / g.pageTokens());
            for (int layer = 0; layer < g.layers(); layer++) {
                d = PageBytes.digest(d, page, g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
        return d;
    }
}
