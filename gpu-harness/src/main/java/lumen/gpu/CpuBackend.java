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
public final class CpuBackend extends PooledBackend {
    private final byte[] mem;

    public CpuBackend(KvGeometry g, int capacityPages) {
        super(g, capacityPages);
        this.mem = new byte[checkedBytes(g, capacityPages)];
    }

    private static int checkedBytes(KvGeometry g, int capacityPages) {
        long bytes = (long) capacityPages * g.pageBytes();
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the CPU backend holds at most 2 GB of pages; " + capacityPages + " pages of "
                    + g.pageBytes() + " bytes are " + bytes);
        }
        return (int) bytes;
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    void zeroPages(int[] slots) {
        for (int s : slots) {
            java.util.Arrays.fill(mem, base(s), base(s) + g.pageBytes(), (byte) 0);
        }
    }

    private int base(int slot) {
        return slot * g.pageBytes();
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        int[] t = extend(req, from, to);
        for (int pos = from; pos <= to; pos++) {
            int slot = t[(pos - 1) / g.pageTokens()];
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, mem, base(slot) + g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
    }



    @Override
    public List<byte[]> stream(int req, int from, int to) {
        List<byte[]> out = new ArrayList<>();
        for (int slot : slots(req, from, to)) {
            byte[] p = new byte[g.pageBytes()];
            System.arraycopy(mem, base(slot), p, 0, p.length);
            out.add(p);
        }
        return out;
    }

    @Override
    public void restore(int req, List<byte[]> pages, int positions) {
        long[] want = sent(req, pages);
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
    public void close() {
        pool.clear();
    }
}
