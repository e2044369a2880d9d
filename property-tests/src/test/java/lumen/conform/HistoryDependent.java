package lumen.conform;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Bug;
import lumen.conform.sut.Mutants;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;

/**
 * A system under test whose bug depends on what its process did before: state that outlives
 * {@code init}. It is the reference adapter until then.
 *
 * <ul>
 *   <li>{@code leaks-from-run N}: from its Nth run in the process on, it leaks checkpoints (S8);</li>
 *   <li>{@code leaks-after-requests K}: once K requests have arrived since the process started,
 *       over all its runs, it leaks checkpoints;</li>
 *   <li>{@code crash-on-run N}: in its Nth run in the process, it dies at its first event.</li>
 * </ul>
 */
public final class HistoryDependent implements Bug {
    private final String how;
    private final int n;
    private int runs;
    private int arrivals;

    private HistoryDependent(String how, int n) {
        this.how = how;
        this.n = n;
    }

    @Override
    public String expected() {
        return "S8";
    }

    @Override
    public void reset() {
        runs++;   // called once per init
    }

    @Override
    public Event rewrite(ClusterState before, Event e, Config c) {
        if (e instanceof Event.Arrive) {
            arrivals++;
        }
        switch (how) {
            case "crash-on-run" -> {
                if (runs == n) {
                    System.err.println("panic: stale run table (run " + runs + ")");
                    System.exit(3);
                }
                return e;
            }
            case "leaks-from-run" -> {
                return runs >= n ? Mutants.LEAKS_CHECKPOINT.rewrite(before, e, c) : e;
            }
            case "leaks-after-requests" -> {
                return arrivals >= n ? Mutants.LEAKS_CHECKPOINT.rewrite(before, e, c) : e;
            }
            default -> throw new IllegalArgumentException("unknown behaviour " + how);
        }
    }

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, new HistoryDependent(args[0], Integer.parseInt(args[1])));
    }
}
