package lumen.props;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import lumen.runtime.Arrival;
import lumen.runtime.Fault;

/**
 * Shrinks a failing schedule to a minimal one that still fails the same way: it drops failures
 * and requests, moves failures earlier and makes them plain (at a time), and shrinks prompt and
 * output lengths, keeping each change that still fails, until none does.
 */
public final class Shrinker {
    private Shrinker() {}

    /** The smallest schedule found for which {@code fails} still holds. */
    public static Schedule shrink(Schedule start, Predicate<Schedule> fails) {
        Schedule best = start;
        boolean progress = true;
        int rounds = 0;
        while (progress && rounds++ < 200) {
            progress = false;
            for (Schedule c : candidates(best)) {
                if (c.size() < best.size() && fails.test(c)) {
                    best = c;
                    progress = true;
                    break;
                }
            }
        }
        return best;
    }

    static List<Schedule> candidates(Schedule s) {
        List<Schedule> out = new ArrayList<>();
        List<Fault> fs = s.faults();
        List<Arrival> all = s.arrivals();
        if (all.size() >= 4) {
            // delta debugging: drop a half, then a quarter, of the requests at once
            for (int parts = 2; parts <= 4; parts *= 2) {
                int chunk = (all.size() + parts - 1) / parts;
                for (int from = 0; from < all.size(); from += chunk) {
                    List<Arrival> a = new ArrayList<>(all.subList(0, from));
                    a.addAll(all.subList(Math.min(all.size(), from + chunk), all.size()));
                    out.add(s.withArrivals(a));
                }
            }
        }
        for (int i = 0; i < fs.size(); i++) {
            List<Fault> f = new ArrayList<>(fs);
            f.remove(i);
            out.add(s.withFaults(f));
        }
        List<Arrival> as = s.arrivals();
        for (int i = 0; i < as.size(); i++) {
            List<Arrival> a = new ArrayList<>(as);
            a.remove(i);
            out.add(s.withArrivals(a));
        }
        for (int i = 0; i < fs.size(); i++) {
            if (fs.get(i).paused()) {
                // a crash is plainer than a gray failure, and a pause than a partition: kept only where the gray failure is what fails
                List<Fault> g = new ArrayList<>(fs);
                g.set(i, fs.get(i).asCrash());
                out.add(s.withFaults(g));
                if (fs.get(i).partitioned()) {
                    Fault f = fs.get(i);
                    List<Fault> p = new ArrayList<>(fs);
                    p.set(i, new Fault(f.worker(), f.afterMs(), f.point(), f.pauseMs()));
                    out.add(s.withFaults(p));
                }
            }
        }
        for (int i = 0; i < fs.size(); i++) {
            Fault f = fs.get(i);
            if (f.afterMs() >= 1) {
                List<Fault> g = new ArrayList<>(fs);
                g.set(i, f.at(Math.floor(f.afterMs() / 2)));
                out.add(s.withFaults(g));
            }
        }
        for (int i = 0; i < as.size(); i++) {
            Arrival a = as.get(i);
            if (a.outLen() > 1) {
                List<Arrival> b = new ArrayList<>(as);
                b.set(i, new Arrival(a.id(), a.atMs(), a.promptLen(), Math.max(1, a.outLen() / 2), a.seed()));
                out.add(s.withArrivals(b));
            }
            if (a.promptLen() > 1) {
                List<Arrival> b = new ArrayList<>(as);
                b.set(i, new Arrival(a.id(), a.atMs(), Math.max(1, a.promptLen() / 2), a.outLen(), a.seed()));
                out.add(s.withArrivals(b));
            }
            if (a.atMs() >= 1) {
                List<Arrival> b = new ArrayList<>(as);
                b.set(i, new Arrival(a.id(), Math.floor(a.atMs() / 2), a.promptLen(), a.outLen(), a.seed()));
                out.add(s.withArrivals(b));
            }
        }
        return out;
    }
}
