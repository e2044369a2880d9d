package lumen.conform.sut;

import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.core.Event;

/**
 * One seeded bug of a mutant implementation. A bug lives either in a decision (a policy that
 * decides wrongly and believes it is right, {@link #policy}) or in what the implementation does
 * and reports at one step ({@link #rewrite}: a system that resumes from the wrong prefix reports
 * the prefix it resumed from).
 */
public interface Bug {
    /** The property the kit must name when it catches this bug. */
    String expected();

    /** The policy key the implementation runs instead of the configured one, or null. */
    default String policy(Config c) {
        return null;
    }

    /** The event the implementation reports, given the state before it (null: none at all). */
    default Event rewrite(ClusterState before, Event e, Config c) {
        return e;
    }
}
