package lumen.validate;

import com.carrotsearch.hppc.IntObjectHashMap;
import com.carrotsearch.hppc.cursors.IntObjectCursor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.PageDigest;
import lumen.core.PropertyId;
import lumen.core.RequestRec;
import lumen.core.RouteMode;

/**
 * The KV content a v2 trace shows, followed copy by copy: what each request's server wrote (from
 * Prefill and Decode), what each checkpoint copy received (from StreamPage), and what a RESTORE
 * brought back. The spec tags every page with its request and position (and, in host memory, the
 * worker holding it); this is that tagging for real bytes: a copied page is intact exactly when
 * its digest equals the digest the server reported for the same page with the same number of
 * positions, and a restored page is the holder's copy exactly when its digest equals the copy's.
 *
 * <p>For each event it checks the content's shape (every page the event's positions touch,
 * page-aligned, each with the count of positions it now holds: a bare "not a step of the spec"
 * otherwise), returns the positions of a copy whose content differs from what the server wrote
 * (the validator marks them not intact, so S6 judges them), and reports a restore whose content is
 * not the copy streamed to that holder (S13). Memory is bounded by the live requests' pages.
 */
final class ContentTracker {
    /** The server's KV, the holder's copy and the backup's copy of one live request. */
    private static final class Req {
        /** The tracker that may change this record in place; any other copies it first (copy on write). */
        final Object owner;
        PageDigests written = new PageDigests();
        PageDigests holder = new PageDigests();
        PageDigests backup = new PageDigests();

        Req(Object owner) {
            this.owner = owner;
        }

        Req copyFor(Object newOwner) {
            Req q = new Req(newOwner);
            q.written = written.copy();
            q.holder = holder.copy();
            q.backup = backup == holder ? q.holder : backup.copy();
            return q;
        }

        /** Its fingerprint, once computed; reset whenever the record is handed out for a change. */
        long fp;
        boolean fpKnown;

        long fingerprint() {
            if (!fpKnown) {
                long h = lumen.core.Fingerprint.add(written.fingerprint(), holder.fingerprint());
                fp = lumen.core.Fingerprint.add(h, backup.fingerprint());
                fpKnown = true;
            }
            return fp;
        }
    }

    /**
     * What one event's content showed: findings (ranked by the validator), positions of a copy to
     * mark not intact, positions a RESTORE brought back intact from elsewhere than the holder's
     * copy, and positions it brought back that are not the request's own (holes in its KV).
     */
    record Result(List<Finding> findings, int[] badCopyPositions, boolean toBackup, int[] restoredFromElsewhere, int[] badRestored) {
        static final Result NONE = new Result(List.of(), new int[0], false);

        Result(List<Finding> findings, int[] badCopyPositions, boolean toBackup) {
            this(findings, badCopyPositions, toBackup, new int[0], new int[0]);
        }
    }

    private final int pageTokens;
    /**
     * Whether StreamPage events show the copies' content; when not (observes.StreamPage=sizes), a
     * RESTORE's bytes are compared with what the request's server wrote instead of its holder's copy.
     */
    private final boolean copiesObserved;
    private final IntObjectHashMap<Req> reqs = new IntObjectHashMap<>();
    /** This tracker's identity as an owner of request records (renewed when a copy shares them). */
    private Object owner = new Object();

    ContentTracker(int pageTokens, boolean copiesObserved) {
        this.pageTokens = pageTokens;
        this.copiesObserved = copiesObserved;
    }

    /**
     * An independent tracker with the same content, for a candidate state of a partial trace. The
     * two share their request records until either changes one (copy on write), so a copy costs
     * one entry per live request, not their pages.
     */
    ContentTracker copy() {
        ContentTracker c = new ContentTracker(pageTokens, copiesObserved);
        c.reqs.putAll(reqs);
        owner = new Object();
        return c;
    }

    /** The fingerprint of the content followed so far. */
    long fingerprint() {
        long sum = reqs.size();
        for (IntObjectCursor<Req> e : reqs) {
            sum += lumen.core.Fingerprint.mix(lumen.core.Fingerprint.add(e.key, e.value.fingerprint()));
        }
        return sum;
    }

    /** Checks event e's content against the state before it, then follows the copies it changes. */
    Result step(ClusterState s, Event e) {
        return switch (e.action()) {
            case ARRIVE -> {
                reqs.put(e.req(), new Req(owner));
                yield Result.NONE;
            }
            case PLACE -> {
                Req q = req(e.req());
                RequestRec r = s.request(e.req());
                Event.Place p = (Event.Place) e;
                if (r == null || !(p.keepsHolderOf(r) && r.backup() < 0)) {
                    q.holder = new PageDigests();
                }
                // a new backup (the rebackup reading keeps the holder's copy) starts empty
                q.backup = new PageDigests();
                yield Result.NONE;
            }
            case PREFILL -> written(s, e.req(), "Prefill", ((Event.Prefill) e).pages(), prefillTo(s.request(e.req())));
            case DECODE -> {
                RequestRec r = s.request(e.req());
                yield written(s, e.req(), "Decode", ((Event.Decode) e).pages(), r.kv().length() + ((Event.Decode) e).tokens().length);
            }
            case STREAM_PAGE -> stream(s, (Event.StreamPage) e);
            case ROUTE -> route(s, (Event.Route) e);
            case COMPLETE -> {
                reqs.remove(e.req());
                yield Result.NONE;
            }
            case FAIL -> {
                fail(s, (Event.Fail) e);
                yield Result.NONE;
            }
            default -> Result.NONE;
        };
    }

    private Req req(int r) {
        Req q = reqs.get(r);
        if (q == null || q.owner != owner) {
            q = q == null ? new Req(owner) : q.copyFor(owner);
            reqs.put(r, q);
        }
        q.fpKnown = false;
        return q;
    }

    /**
     * Request r's record, for a caller that writes what r's server wrote into it in place
     * ({@link #written(Object, int, long[], int, int)}) until this tracker is copied.
     */
    Object handle(int r) {
        return req(r);
    }

    /**
     * What n decodes of one position each wrote, positions {@code first} to {@code first + n - 1}
     * in order, with digests {@code digests[from..from+n)}, into the record {@link #handle} gave:
     * the entry each put is the one its page then holds, named by its last position.
     */
    static void written(Object handle, int first, long[] digests, int from, int n) {
        Req q = (Req) handle;
        for (int i = 0; i < n; i++) {
            q.written.put(first + i, digests[from + i]);
        }
        q.fpKnown = false;
    }

    private static int prefillTo(RequestRec r) {
        return r.outLen() == 0 ? r.promptLen() : r.kvLen();
    }

    /** The shape pages of positions from..to must have; a finding when the event's differ. */
    private Finding shape(String action, int req, PageDigest[] pages, int from, int to) {
        if (PageDigest.hasShape(pages, from, to, pageTokens)) {
            return null;
        }
        int[][] want = PageDigest.shape(from, to, pageTokens);
        StringBuilder w = new StringBuilder();
        for (int[] p : want) {
            w.append(w.length() == 0 ? "" : ", ").append(p[0]).append("..").append(p[0] + p[1] - 1);
        }
        StringBuilder g = new StringBuilder();
        for (PageDigest p : pages) {
            g.append(g.length() == 0 ? "" : ", ").append(p.first()).append("..").append(p.last());
        }
        return new Finding(null, action + " of request " + req + " reports the content of every page its positions " + from + ".." + to
                + " touch (page-aligned, " + pageTokens + " positions per page)", w.length() == 0 ? "no pages" : w.toString(),
                g.length() == 0 ? "no pages" : g.toString());
    }

    private Result written(ClusterState s, int r, String action, PageDigest[] pages, int to) {
        if (pages == null) {
            return Result.NONE;
        }
        RequestRec rec = s.request(r);
        Finding f = shape(action, r, pages, rec.kv().length() + 1, to);
        if (f != null) {
            return new Result(List.of(f), new int[0], false);
        }
        Req q = req(r);
        for (PageDigest p : pages) {
            q.written.put(p);
        }
        return Result.NONE;
    }

    private Result stream(ClusterState s, Event.StreamPage sp) {
        if (sp.pages() == null) {
            return Result.NONE;
        }
        RequestRec r = s.request(sp.req());
        boolean toBackup = r.backup() >= 0 && sp.holder() == r.backup() && sp.holder() != r.holder();
        int from = (toBackup ? r.bckpt() : r.ckpt()).length() + 1;
        Finding f = shape("StreamPage", r.id(), sp.pages(), from, sp.ckpt());
        if (f != null) {
            return new Result(List.of(f), new int[0], toBackup);
        }
        Req q = req(r.id());
        PageDigests copy = toBackup ? q.backup : q.holder;
        List<Integer> bad = new ArrayList<>(0);
        List<Finding> out = new ArrayList<>(0);
        for (PageDigest p : sp.pages()) {
            if (!q.written.has(p) && p.last() <= r.kv().length() && out.isEmpty()) {
                // said beside the S6 it leads to: the content cannot be compared, so it is not shown to be intact
                out.add(new Finding(null, "StreamPage of request " + r.id() + " copies positions " + p.first() + ".." + p.last()
                        + " of a page its server never reported with " + p.count() + " positions: a copy takes a page as the server"
                        + " wrote it (a whole page, or as a Prefill or Decode left it), so its content can be compared",
                        "a count the server reported for the page starting at " + p.first(), Integer.toString(p.count())));
            }
            if (!q.written.holds(p)) {
                for (int pos = Math.max(p.first(), from); pos <= p.last(); pos++) {
                    bad.add(pos);
                }
            }
            copy.put(p);
        }
        return out.isEmpty() && bad.isEmpty() ? Result.NONE : new Result(out, bad.stream().mapToInt(Integer::intValue).toArray(), toBackup);
    }

    private Result route(ClusterState s, Event.Route rt) {
        RequestRec r = s.request(rt.req());
        Req q = req(r.id());
        PageDigests holderCopy = q.holder;
        // what the failed server wrote, kept from its Fail until now: bytes a RESTORE brings back
        // past the holder's copy that equal it are r's own KV, read from somewhere other than the
        // holder's memory (S13, not a hole)
        PageDigests wrote = q.written;
        q.holder = new PageDigests();
        q.backup = new PageDigests();
        q.written = new PageDigests();
        if (rt.mode() != RouteMode.RESTORE || rt.pages() == null) {
            if (rt.pages() != null && rt.pages().length > 0) {
                return new Result(List.of(new Finding(null, "a REPREFILL of request " + r.id() + " restores no pages",
                        "no pages", PageDigest.describe(rt.pages()))), new int[0], false);
            }
            return Result.NONE;
        }
        Finding f = shape("RESTORE", r.id(), rt.pages(), 1, rt.resumed());
        if (f != null) {
            return new Result(List.of(f), new int[0], false);
        }
        List<Finding> out = new ArrayList<>(0);
        List<Integer> elsewhere = new ArrayList<>(0);
        int saved = r.ckpt().length();
        if (!copiesObserved) {
            // the copy's bytes were never shown: the restored bytes must be the request's own, as its server wrote them
            List<Integer> bad = new ArrayList<>(0);
            for (PageDigest p : rt.pages()) {
                if (!wrote.holds(p)) {
                    for (int pos = p.first(); pos <= p.last(); pos++) {
                        bad.add(pos);
                    }
                }
                q.written.put(p);
            }
            return new Result(List.of(), new int[0], false, new int[0], bad.stream().mapToInt(Integer::intValue).toArray());
        }
        for (PageDigest p : rt.pages()) {
            boolean fromHolder = holderCopy.holds(p);
            if (out.isEmpty() && !fromHolder) {
                out.add(new Finding(PropertyId.S13, "RESTORE of request " + r.id() + " brings back positions " + p.first() + ".." + p.last()
                        + " that are not the copy streamed to its holder " + rt.worker(),
                        holderCopy.has(p) ? "digest " + Long.toHexString(holderCopy.digestOf(p))
                                : "a page the holder received (it holds none with these positions)",
                        "digest " + p.hex()));
            }
            if (!fromHolder && wrote.holds(p)) {
                for (int pos = Math.max(p.first(), saved + 1); pos <= p.last(); pos++) {
                    elsewhere.add(pos);
                }
            }
            q.written.put(p);
        }
        return new Result(out, new int[0], false, elsewhere.stream().mapToInt(Integer::intValue).toArray(), new int[0]);
    }

    private void fail(ClusterState s, Event.Fail f) {
        // an interrupted request's written content stays until it is routed (see route)
        int[] promoted = f.promoted().clone();
        Arrays.sort(promoted);
        for (int id : f.orphaned()) {
            RequestRec r = s.request(id);
            Req q = req(id);
            if (r.holder() == f.worker()) {
                q.holder = Arrays.binarySearch(promoted, id) >= 0 ? q.backup : new PageDigests();
                if (Arrays.binarySearch(promoted, id) >= 0) {
                    q.backup = new PageDigests();
                }
            }
            if (r.backup() == f.worker()) {
                q.backup = new PageDigests();
            }
        }
    }
}
