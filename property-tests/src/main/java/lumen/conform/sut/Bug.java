package lumen.conform.sut;

import java.util.List;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.Readings;
import lumen.core.RecoveryPolicy;
import lumen.runtime.ClusterRuntime;

/**
 * One seeded bug of a mutant implementation. A bug lives in a decision (a policy that decides
 * wrongly and believes it is right, {@link #policy}), in what the implementation does (a runtime
 * that never streams, {@link #options}), or in what it does and reports at one step
 * ({@link #rewriteAll}: a system that resumes from the wrong prefix reports the prefix it resumed
 * from). A bug may keep state across the events of a run; {@link #reset} starts a run.
 */
public interface Bug {
    /** The property the kit must name when it catches this bug ("INCOMPLETE" for an unfinished run). */
    String expected();

    /** The policy the implementation runs instead of the configured one, or null ({@link SeededPolicies}). */
    default RecoveryPolicy policy(Config c) {
        return null;
    }

    /** The readings the implementation actually runs under, given those the kit told it (docs/readings.md). */
    default Readings readings(Config c) {
        return c.readings();
    }

    /** The config an implementation with {@code bug} (null: none) runs when told {@code told}: the readings it runs under. */
    static Config running(Bug bug, Config told) {
        return bug == null ? told : told.withReadings(bug.readings(told));
    }

    /** The policy an implementation with {@code bug} (null: none) decides by when it runs {@code run}. */
    static RecoveryPolicy deciding(Bug bug, Config run) {
        RecoveryPolicy p = bug == null ? null : bug.policy(run);
        return p == null ? run.recoveryPolicy() : p;
    }

    /** The runtime's options with this bug's behaviour. */
    default ClusterRuntime.Options options(ClusterRuntime.Options o) {
        return o;
    }

    /** A new run starts (the adapter's init). */
    default void reset() {
    }

    /** Request {@code req} arrives with {@code seed} (the kit's arrive command): what a bug that writes KV bytes computes them from. */
    default void arrived(int req, long seed) {
    }

    /** The event the implementation reports, given the state before it (null: none at all). */
    default Event rewrite(ClusterState before, Event e, Config c) {
        return e;
    }

    /** The events the implementation reports for one event of the reference runtime (none, one, or more). */
    default List<Event> rewriteAll(ClusterState before, Event e, Config c) {
        Event x = rewrite(before, e, c);
        return x == null ? List.of() : List.of(x);
    }

    /** The reservations a Place cites, one per worker: the gateway's counters before the decision. */
    default long[] citedReservations(ClusterState before, Config c) {
        return Adapter.reservations(before);
    }
}
