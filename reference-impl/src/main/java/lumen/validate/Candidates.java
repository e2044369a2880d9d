package lumen.validate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Finding;
import lumen.core.RequestPhase;
import lumen.core.RequestRec;
import lumen.trace.Observation;

/**
 * The mirror on a partial trace: a bounded set of candidate spec states (each a {@link Mirror})
 * in place of one. Before each observed event, each candidate may take up to
 * {@link Observation#hiddenSteps} hidden steps, breadth first; the event is then tried on every
 * state so reached, and the candidates after it are those on which it is a step of the spec that
 * breaks nothing, deduplicated by fingerprint ({@link Mirror#fingerprint}), at most
 * {@link Observation#candidates} of them.
 *
 * <p>Hidden steps, as {@link Observation} declares them: a Place the system does not log (every
 * placement the spec allows, as {@code TraceLumen}'s hidden Place step), and the monitor's report a
 * decision rests on when it cites no loads under {@code citedLoads=stale} (every load each worker
 * had in the event's window, as TraceLumen's hidden View). A hidden Place never cites loads, so
 * under {@code stale} it always takes a hidden View, in the window of the logged event before it
 * reaching on to now ({@link LoadWindow#hiddenChoices}). A hidden step is itself judged by the
 * mirror: one that breaks a property is not taken.
 *
 * <p>When every candidate rejects an event, the divergence is the highest-ranked finding among
 * them, from a candidate that took the fewest hidden steps: what a full trace with the same event
 * would be rejected for. When the bound dropped candidates on the way, the rejection rests on the
 * candidates kept, and {@link #cut()} says so.
 */
final class Candidates {
    /** One candidate: its mirror and how many hidden steps it has taken. */
    /**
     * A candidate: its mirror, its hidden steps so far, and for each request its hidden Place
     * placed, the mirror just before that Place (to judge, when a later event shows another
     * holder, whether the spec would have allowed that one instead).
     */
    private record Cand(Mirror m, long hidden, java.util.Map<Integer, Mirror> beforePlace) {
        Cand(Mirror m, long hidden) {
            this(m, hidden, java.util.Map.of());
        }

        Cand placed(Mirror next, int req, Mirror before) {
            java.util.Map<Integer, Mirror> b = new java.util.HashMap<>(beforePlace);
            b.put(req, before);
            return new Cand(next, hidden + 1, java.util.Map.copyOf(b));
        }
    }

    /** A mirror to try an event on, with the loads the event is taken to cite (null: its own). */
    private record Try(Mirror m, double[] loads) {}

    private final Observation obs;
    /** Whether the window's reports are searched (citedLoads=stale): candidates may then be dominated ({@link #undominated}). */
    private final boolean stale;
    private List<Cand> set = new ArrayList<>();
    private long cutAt = -1;
    private int peak = 1;
    private long sizeSum;
    private long steps;
    private long tried;
    private long hiddenViews;
    /** Fingerprints of the records the candidates share, by identity ({@link lumen.core.Fingerprint#of(Object, java.util.IdentityHashMap)}). */
    private final java.util.IdentityHashMap<Object, Long> memo = new java.util.IdentityHashMap<>();

    Candidates(Config config, int fairnessSteps, Observation obs) {
        this.obs = obs;
        this.stale = config.readings().staleLoads();
        set.add(new Cand(new Mirror(config, fairnessSteps, !obs.streamSizes()).quiet(), 0));
    }

    /** A candidate's state; every candidate has seen the same observed events. */
    ClusterState state() {
        return set.get(0).m().state();
    }

    List<ClusterState> states() {
        List<ClusterState> out = new ArrayList<>();
        for (Cand c : set) {
            out.add(c.m().state());
        }
        return out;
    }

    int size() {
        return set.size();
    }

    /** The most candidates held between two observed events. */
    int peak() {
        return peak;
    }

    /** The mean number of candidates over the observed events. */
    double meanSize() {
        return steps == 0 ? 1 : (double) sizeSum / steps;
    }

    /** States on which an observed event was tried. */
    long tried() {
        return tried;
    }

    /** Decisions judged on every report the monitor could have held (loads not cited). */
    long hiddenViews() {
        return hiddenViews;
    }

    /** The least hidden steps any candidate took so far. */
    long fewestHidden() {
        return set.stream().mapToLong(Cand::hidden).min().orElse(0);
    }

    /** The trace line at which the bound first dropped candidates, or -1. */
    long cut() {
        return cutAt;
    }

    /**
     * Observed event e, on trace line {@code line}: advances every candidate, and returns null when
     * some candidate takes it, else the divergence (the candidates are then those before it).
     */
    Divergence step(Event e, long line, double[] cited, long[] reserved, double t) {
        if (memo.size() > 1 << 18) {
            memo.clear();
        }
        List<Cand> next = new ArrayList<>();
        Divergence best = null;
        Mirror bestMirror = null;
        long bestHidden = Long.MAX_VALUE;
        List<Cand> frontier = set;
        Set<Long> visited = obs.hiddenPlace() ? new HashSet<>() : null;
        for (int depth = 0; !frontier.isEmpty(); depth++) {
            // the next level from copies, before the event changes this level's mirrors
            List<Cand> deeper = depth < obs.hiddenSteps() ? hidden(beforeWhichPlacesMatter(frontier, e), line, t, visited) : List.of();
            for (Cand c : frontier) {
                for (Try x : withLoads(c.m(), e, cited, t, line, false)) {
                    tried++;
                    Divergence d = x.m().step(e, line, x.loads(), reserved, t);
                    if (d == null) {
                        next.add(new Cand(x.m(), c.hidden(), c.beforePlace()));
                        continue;
                    }
                    int rank = best == null ? -1 : Finding.BY_RANK.compare(d.finding(), best.finding());
                    if (rank < 0 || rank == 0 && c.hidden() < bestHidden) {
                        best = d;
                        bestMirror = x.m();
                        bestHidden = c.hidden();
                    }
                }
            }
            frontier = deeper;
        }
        if (next.isEmpty()) {
            // the one divergence reported is described; the candidates' others never were
            Divergence described = bestMirror == null ? best : bestMirror.described(best);
            Divergence placement = e instanceof Event.StreamPage sp ? placementShown(sp, line, t, described) : null;
            return placement != null ? placement : described;
        }
        if (next.size() > 1) {
            // one candidate per state (fingerprints only where there is more than one)
            Set<Long> seen = new HashSet<>();
            next.removeIf(c -> !seen.add(c.m().fingerprint(memo)));
        }
        if (next.size() > 1 && stale) {
            next = undominated(next);
        }
        if (next.size() > obs.candidates()) {
            next.sort(Comparator.comparingLong(Cand::hidden));
            next = new ArrayList<>(next.subList(0, obs.candidates()));
            if (cutAt < 0) {
                cutAt = line;
            }
        }
        set = next;
        peak = Math.max(peak, set.size());
        sizeSum += set.size();
        steps++;
        return null;
    }

    /**
     * Under citedLoads=stale: the candidates less those another accepts every continuation of. Two
     * candidates equal in all but where each worker's reports resume (and the monitor's view,
     * which no later event reads before writing it: {@link Mirror#fingerprint}) differ only in
     * the reports later decisions may cite; one whose every worker resumes no later accepts all
     * the other accepts ({@link Mirror#acceptsAllOf}), with no more hidden steps, so the other is
     * dropped. Each distinct report a hidden Place could rest on made a candidate of its own
     * before this.
     */
    private List<Cand> undominated(List<Cand> cands) {
        java.util.Map<Long, List<Cand>> groups = new java.util.LinkedHashMap<>();
        for (Cand c : cands) {
            groups.computeIfAbsent(c.m().fingerprint(memo, false), k -> new ArrayList<>()).add(c);
        }
        if (groups.size() == cands.size()) {
            return cands;
        }
        List<Cand> out = new ArrayList<>(cands.size());
        for (List<Cand> g : groups.values()) {
            for (int i = 0; i < g.size(); i++) {
                Cand c = g.get(i);
                boolean dominated = false;
                for (int j = 0; j < g.size() && !dominated; j++) {
                    Cand o = g.get(j);
                    // an equal pair was deduplicated already; of two that accept all of each other's, the first is kept
                    dominated = j != i && o.hidden() <= c.hidden() && o.m().acceptsAllOf(c.m()) && (j < i || !c.m().acceptsAllOf(o.m()));
                }
                if (!dominated) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /**
     * What to try event e on from candidate m: m itself with the cited loads, or, for a decision
     * that cites no loads where it rests on the monitor, one copy of m per report the monitor could
     * have held, with those loads (at most {@link Observation#candidates}: past that, the search is
     * cut short there and the verdict says so). A {@code hidden} event (a hidden Place) is such a
     * decision at every level.
     */
    private List<Try> withLoads(Mirror m, Event e, double[] cited, double t, long line, boolean hidden) {
        // a hidden Place cites nothing, whatever the level: where its rule reads the monitor it always chooses
        double[][] ch = cited != null ? null : hidden ? m.hiddenLoadChoices(e) : obs.hiddenLoads() ? m.loadChoices(e, t) : null;
        if (ch == null) {
            return List.of(new Try(m, cited));
        }
        hiddenViews++;
        List<double[]> views = product(ch, obs.candidates(), line);
        List<Try> out = new ArrayList<>(views.size());
        for (int i = 0; i < views.size(); i++) {
            out.add(new Try(i == views.size() - 1 ? m : m.copy(), views.get(i)));
        }
        return out;
    }

    /** Every vector with one value from each row, at most {@code cap} of them (the first, in order). */
    private List<double[]> product(double[][] rows, int cap, long line) {
        List<double[]> out = new ArrayList<>();
        int n = rows.length;
        int[] at = new int[n];
        while (out.size() < cap) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = rows[i][at[i]];
            }
            out.add(v);
            int i = n - 1;
            while (i >= 0 && ++at[i] == rows[i].length) {
                at[i] = 0;
                i--;
            }
            if (i < 0) {
                return out;
            }
        }
        if (cutAt < 0) {
            cutAt = line;
        }
        return out;
    }

    /**
     * The candidates before whose event {@code e} a hidden Place must be tried (a partial-order
     * reduction). A Decode or an Assist of a request that has a holder reads nothing a Place
     * writes (a holder's reservation and held set, the placed request's record) and writes
     * nothing a Place reads (loads, room, the set of UP workers): Eq. 4 does not count
     * reservations, and such a request is never re-protected (without the rebackup reading). So a
     * behaviour with a Place just before such an event has the same Place just after it, with the
     * same choices, and the search tries it before the next event instead.
     */
    private static List<Cand> beforeWhichPlacesMatter(List<Cand> frontier, Event e) {
        if (e.action() != lumen.core.Action.DECODE && e.action() != lumen.core.Action.ASSIST) {
            return frontier;
        }
        List<Cand> out = new ArrayList<>(0);
        for (Cand c : frontier) {
            ClusterState s = c.m().state();
            RequestRec q = s.request(e.req());
            if (q == null || q.holder() < 0 || s.config().readings().rebackup()) {
                out.add(c);
            }
        }
        return out;
    }

    /** Every candidate one hidden step further: each placement the spec allows, judged by a copy of the mirror. */
    private List<Cand> hidden(List<Cand> frontier, long line, double t, Set<Long> visited) {
        List<Cand> out = new ArrayList<>();
        if (!obs.hiddenPlace()) {
            return out;
        }
        for (Cand c : frontier) {
            ClusterState s = c.m().state();
            for (int id : s.requests().keys()) {
                RequestRec r = s.request(id);
                if (!placeable(s, r)) {
                    continue;
                }
                Mirror before = null;
                for (Event.Place p : placements(s, r)) {
                    if (before == null) {
                        before = c.m().copy();
                    }
                    for (Try x : withLoads(c.m().copy(), p, null, t, line, true)) {
                        if (x.m().stepHidden(p, line, x.loads(), t) == null && visited.add(x.m().fingerprint(memo))) {
                            out.add(c.placed(x.m(), id, before));
                            if (out.size() >= obs.candidates()) {
                                // the bound holds inside the search too: a level past it is cut, and the verdict says so
                                if (cutAt < 0) {
                                    cutAt = line;
                                }
                                return out;
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * A StreamPage that no candidate takes, where Place is not logged, may show a placement: its
     * holder, where the request has none yet. If no placement the spec allows would have chosen
     * that holder in any candidate where the request could be placed, the trace is rejected as a
     * full trace with that Place would be: by the placement's own finding (A1, or the policy's
     * rule), at this line, the first that shows it. Null when some candidate allows a placement
     * with a copy there (then the divergence is elsewhere), when the request could be placed in
     * none, or when the search was cut short. Under a backup holder, either copy may be the one.
     */
    private Divergence placementShown(Event.StreamPage sp, long line, double t, Divergence shown) {
        if (!obs.hiddenPlace() || shown == null) {
            return null;
        }
        if (cutAt >= 0) {
            return null; // the search kept only some candidates: it cannot say that none placed it there
        }
        Divergence worst = null;
        Mirror worstMirror = null;
        for (Cand c : set) {
            ClusterState now = c.m().state();
            RequestRec r = now.request(sp.req());
            if (r != null && r.placed() && (r.holder() == sp.holder() || r.backup() == sp.holder())) {
                // a candidate placed it there, as the spec allows: the stream fails for another reason
                return null;
            }
            // the placement as the candidate's hidden Place made it, or as one would make it now
            Mirror at = c.beforePlace().get(sp.req());
            if (at == null && (r == null || r.placed())) {
                continue;
            }
            ClusterState s = at != null ? at.state() : now;
            RequestRec q = s.request(sp.req());
            int h = sp.holder();
            if (q == null || !placeable(s, q) || h < 0 || h >= s.workerCount()) {
                continue;
            }
            // the placements that put a copy on h: h as the holder, and under a backup holder, h as either copy
            List<Event.Place> tries = new ArrayList<>();
            tries.add(new Event.Place(q.id(), h, -1));
            if (s.policy().dualPlacement()) {
                for (int o = 0; o < s.workerCount(); o++) {
                    // the other copy on a worker that could hold one: the finding is then about h
                    if (o != h && s.isHolderCandidate(o, q)) {
                        tries.add(new Event.Place(q.id(), h, o));
                        tries.add(new Event.Place(q.id(), o, h));
                    }
                }
            }
            for (Event.Place p : tries) {
                for (Try x : withLoads((at != null ? at : c.m()).copy(), p, null, t, line, true)) {
                    Divergence d = x.m().stepHidden(p, line, x.loads(), t);
                    if (d == null) {
                        return null;
                    }
                    // the first try (h as the holder, no backup) names the finding, unless another ranks before it
                    if (worst == null || Finding.BY_RANK.compare(d.finding(), worst.finding()) < 0) {
                        worst = d;
                        worstMirror = x.m();
                    }
                }
            }
        }
        if (worst == null) {
            return null;
        }
        Divergence d = worstMirror.described(worst);
        Finding f = d.finding();
        return new Divergence(shown.line(), shown.event(), new Finding(f.property(), "Place is not logged, and this StreamPage shows request "
                + sp.req() + " placed on worker " + sp.holder() + ", which no placement the spec allows chooses: " + f.message(),
                f.expected(), f.actual()), d.others(), d.state(), shown.matched());
    }

    /** Whether the spec's Place(r) is enabled: a run to place, or to protect again (its phase, its server UP). */
    private static boolean placeable(ClusterState s, RequestRec r) {
        return (r.phase() == RequestPhase.QUEUED || r.phase() == RequestPhase.DECODE) && r.server() >= 0 && s.isUp(r.server())
                && (!r.placed() || s.needsProtection(r));
    }

    /**
     * Placements to try for r: those the policy's rule allows on the state's loads
     * ({@link lumen.core.RecoveryPolicy#allowsHolder}, {@code allowsBackup}); under citedLoads=stale,
     * where the rule reads the report the hidden View brings, every eligible (holder, backup) and
     * none. The mirror judges each (A1, Eq. 5, the policy's rule), so this need only include every
     * placement the spec allows.
     */
    private static List<Event.Place> placements(ClusterState s, RequestRec r) {
        List<Event.Place> out = new ArrayList<>();
        if (r.placed() && r.holder() >= 0) {
            for (int b : backups(s, r, r.holder())) {
                out.add(new Event.Place(r.id(), r.holder(), b));
            }
            return out;
        }
        for (int h = -1; h < s.workerCount(); h++) {
            if (h >= 0 && !s.isHolderCandidate(h, r) || !s.staleLoads() && !s.policy().allowsHolder(s, r, h)) {
                continue;
            }
            for (int b : backups(s, r, h)) {
                out.add(new Event.Place(r.id(), h, b));
            }
        }
        return out;
    }

    private static List<Integer> backups(ClusterState s, RequestRec r, int h) {
        List<Integer> out = new ArrayList<>();
        if (!s.policy().dualPlacement() || h < 0) {
            out.add(-1);
            return out;
        }
        for (int b = -1; b < s.workerCount(); b++) {
            if ((b < 0 || b != h && s.isHolderCandidate(b, r)) && (s.staleLoads() || s.policy().allowsBackup(s, r, h, b))) {
                out.add(b);
            }
        }
        return out;
    }
}
