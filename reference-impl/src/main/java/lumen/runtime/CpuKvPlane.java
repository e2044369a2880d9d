package lumen.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The KV data plane on the CPU: pages are byte arrays in a per-request list. */
public final class CpuKvPlane implements KvDataPlane {
    private final KvGeometry g;
    private final Map<Integer, List<byte[]>> pages = new HashMap<>();
    private final Map<Integer, Integer> positions = new HashMap<>();

    public CpuKvPlane(KvGeometry g) {
        this.g = g;
    }

    @Override
    public KvGeometry geometry() {
        return g;
    }

    @Override
    public void compute(int req, long seed, int from, int to) {
        List<byte[]> ps = pages.computeIfAbsent(req, k -> new ArrayList<>());
        int have = positions.getOrDefault(req, 0);
        if (from != have + 1) {
            throw new IllegalStateException("KV of request " + req + " holds " + have + " positions; cannot write from " + from);
        }
        for (int pos = from; pos <= to; pos++) {
            int page = (pos - 1) / g.pageTokens();
            while (ps.size() <= page) {
                ps.add(new byte[g.pageBytes()]);
            }
            for (int layer = 0; layer < g.layers(); layer++) {
                PageBytes.fill(seed, layer, pos, ps.get(page), g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
        positions.put(req, Math.max(have, to));
    }

    @Override
    public int positions(int req) {
        return positions.getOrDefault(req, 0);
    }

    @Override
    public byte[] gather(int req, int page) {
        return pages.get(req).get(page).clone();
    }

    @Override
    public void restore(int req, List<byte[]> restored, int n) {
        List<byte[]> ps = new ArrayList<>(restored.size());
        for (byte[] p : restored) {
            ps.add(p.clone());
        }
        pages.put(req, ps);
        positions.put(req, n);
    }

    @Override
    public long pageDigest(int req, int page, int count) {
        return PageBytes.pageDigest(pages.get(req).get(page), 0, count * g.layers() * g.bytesPerTokenLayer());
    }

    @Override
    public long digest(int req, int n) {
        long d = PageBytes.DIGEST_START;
        List<byte[]> ps = pages.get(req);
        for (int pos = 1; pos <= n; pos++) {
            byte[] page = ps.get((pos - 1) / g.pageTokens());
            for (int layer = 0; layer < g.layers(); layer++) {
                d = PageBytes.digest(d, page, g.offset(pos, layer), g.bytesPerTokenLayer());
            }
        }
        return d;
    }

    @Override
    public void free(int req) {
        pages.remove(req);
        positions.remove(req);
    }

    @Override
    public void clear() {
        pages.clear();
        positions.clear();
    }
}
