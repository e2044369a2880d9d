package lumen.validate;

import java.util.Locale;
import lumen.core.ClusterState;
import lumen.core.Event;
import lumen.core.RequestRec;
import lumen.core.WorkerRec;

/** The mirrored spec state around one event, as text in the spec's vocabulary. */
final class StateView {
    private static final int MAX_WORKERS = 16;
    private static final int MAX_REQUESTS = 16;

    private StateView() {}

    static String describe(ClusterState s, Event e, int[] requests) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "policy %s, %d workers, alpha=%s beta=%s theta=%s tau=%d budget=%d, %s, %d failure%s so far%n",
                s.config().policy(), s.workerCount(), s.config().alpha(), s.config().beta(), s.config().theta(),
                s.config().tau(), s.config().budget(), s.config().readings().describe(), s.failures(), s.failures() == 1 ? "" : "s"));
        int shown = 0;
        for (int w = 0; w < s.workerCount(); w++) {
            boolean relevant = (e != null && w == e.worker()) || s.workerCount() <= MAX_WORKERS;
            if (!relevant && shown >= MAX_WORKERS) {
                continue;
            }
            WorkerRec r = s.worker(w);
            // Q_w as Eq. 4 counts it under the queue reading, and the whole run queue when that differs
            String q = "Q_w=" + s.depth(r) + (s.depth(r) == r.queue() ? "" : " (queue=" + s.config().readings().queue() + "; "
                    + r.queue() + " in its run queue)");
            b.append(String.format(Locale.ROOT, "  worker %d: %s, model %s, %s, stored=%d, reserved=%d, L=%s%n",
                    w, r.state(), r.active(), q, r.stored(), r.reserved(), trim(s.load(w))));
            shown++;
        }
        if (shown < s.workerCount()) {
            b.append("  (").append(s.workerCount() - shown).append(" more workers)\n");
        }
        int listed = 0;
        for (int id : requests) {
            if (listed++ == MAX_REQUESTS) {
                b.append("  (").append(requests.length - MAX_REQUESTS).append(" more requests)\n");
                break;
            }
            RequestRec r = s.request(id);
            if (r == null) {
                b.append("  request ").append(id).append(": not arrived\n");
                continue;
            }
            if (s.isForgotten(id)) {
                b.append("  request ").append(id).append(": DONE (it finished earlier in the trace; the validator keeps only that it finished)\n");
                continue;
            }
            b.append(String.format(Locale.ROOT, "  request %d: %s, server %s, holder %s, %s%s, kv %s, ckpt %s, out %d/%d%s%s%n",
                    id, r.phase(), name(r.server()), name(r.holder()),
                    r.backup() >= 0 ? "backup " + r.backup() + " (" + r.bckpt() + "), " : "", r.placed() ? "placed" : "not placed",
                    r.kv(), r.ckpt(), r.outLen(), r.refLen(), r.outOk() ? "" : " (diverged from ref)",
                    r.proposal() == null ? "" : ", draft of " + r.proposal().toks().length + " from worker " + r.proposal().src()));
        }
        return b.toString();
    }

    private static String name(int w) {
        return w < 0 ? "none" : Integer.toString(w);
    }

    private static String trim(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
