package lumen.gpu;

import java.util.ArrayList;
import java.util.List;
import lumen.runtime.KvGeometry;
import lumen.runtime.PageBytes;

/**
 * The CPU backend: the pool is one byte array of {@code capacity} pages, laid out as the GPU's,
 * and every operation is its kernel's CPU twin ({@link Kernels}). It runs everywhere, CI included,
 * and is the reference the JCuda backend is checked against.
 */
public final class CpuBackend implements Backend {
    private final KvGeometry g;
    private final PagePool pool;
    private final byte[] mem;

    public CpuBackend(KvGeometry g, int capacityPages) {
        long bytes = (long) capacityPages * g.pageBytes();
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the CPU backend holds at most 2 GB of pages; " + capacityPages + " pages of "
                    + g.pageBytes() + " bytes are " + bytes);
        }
        this.g = g;
        this.pool = new PagePool(g, capacityPages);
        this.mem = new byte[(int) bytes];
    }

    @Override
    public String name() {
        return "cpu";
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

    private int base(int slot) {
        return slot * g.pageBytes();
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        int[] t = pool.extend(req, from, to);
        for (int pos = from; pos <= to; pos++) {
            int slot = t[(pos - 1) / g.pageTokens()];
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, mem, base(slot) + g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
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
    public List<byte[]> stream(int req, int from, int to) {
        int[] t = pool.table(req);
        if (from < 0 || to >= t.length || from > to) {
            throw new IndexOutOfBoundsException("request " + req + " has " + t.length + " pages; cannot stream " + from + ".." + to);
        }
        List<byte[]> out = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            byte[] p = new byte[g.pageBytes()];
            System.arraycopy(mem, base(t[i]), p, 0, p.length);
            out.add(p);
        }
        return out;
    }

    @Override
    public void restore(int req, List<byte[]> pages, int positions) {
        long[] want = new long[pages.size()];
        for (int i = 0; i < want.length; i++) {
            if (pages.get(i).length != g.pageBytes()) {
                throw new IllegalArgumentException("restored page " + i + " of request " + req + " has " + pages.get(i).length
                        + " bytes, not " + g.pageBytes());
            }
            want[i] = Kernels.checksum(pages.get(i));
        }
        int[] t = pool.replace(req, pages.size(), positions);
        for (int i = 0; i < t.length; i++) {
            System.arraycopy(pages.get(i), 0, mem, base(t[i]), g.pageBytes());
        }
        Restores.check(req, want, pageChecksums(req));
    }

    @Override
    public long[] pageChecksums(int req) {
        int[] t = pool.table(req);
        long[] out = new long[t.length];
        for (int i = 0; i < t.length; i++) {
            out[i] = Kernels.checksum(mem, base(t[i]), g.pageBytes());
        }
        return out;
    }

    @Override
    public long digest(int req, int n) {
        int[] t = pool.table(req);
        long d = PageBytes.DIGEST_START;
        for (int pos = 1; pos <= n; pos++) {
            int b = base(t[(pos - 1) / g.pageTokens()]);
            for (int layer = 0; layer < g.layers(); layer++) {
                d = PageBytes.digest(d, mem, b + g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
        return d;
    }

    @Override
    public int[] decode(int[] reqs) {
        int[] out = new int[reqs.length];
        long tokenBytes = (long) g.layers() * g.bytesPerTokenLayer();
        for (int j = 0; j < reqs.length; j++) {
            int[] t = pool.table(reqs[j]);
            out[j] = Kernels.attend(pool.positions(reqs[j]), g, i -> {
                long pos0 = i / tokenBytes;
                int off = (int) ((pos0 % g.pageTokens()) * tokenBytes + i % tokenBytes);
                return mem[base(t[(int) (pos0 / g.pageTokens())]) + off] & 0xff;
            });
        }
        return out;
    }

    @Override
    public int[] verifyGreedy(int[] draft, int[] target, int k) {
        return Kernels.greedy(draft, target, k);
    }

    @Override
    public Kernels.Emitted verifyRejection(float[] p, float[] q, int[] draft, float[] uAccept, float[] uSample, int k, int v) {
        return Kernels.rejection(p, q, draft, uAccept, uSample, k, v);
    }

    @Override
    public void free(int req) {
        pool.free(req);
    }

    @Override
    public void clear() {
        pool.clear();
    }

    @Override
    public void close() {
        pool.clear();
    }
}
