package lumen.runtime;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.PropertyId;

/**
 * A named, deterministic run of the runtime: config, workload, faults, and what its trace must
 * show. A scenario may also corrupt its own trace on purpose ({@code corruption}), to pin down
 * that the validator rejects it with {@code expectedProperty}.
 *
 * @param mustShow    what the trace must contain for the scenario to test what it says
 * @param corruption  makes, for each run, what is applied to each event before it is written (fresh per run,
 *                    as it may keep state across one run's events); identity for honest scenarios
 */
public record Scenario(String name, String description, Config config, CostModel cost, ClusterRuntime.Options options,
                       List<Arrival> workload, List<Fault> faults, List<Feature> mustShow,
                       Supplier<UnaryOperator<Event>> corruption, PropertyId expectedProperty) {

    /** Something the trace must contain, named for reports. */
    public record Feature(String name, Predicate<List<Event>> present) {}

    public boolean expectsAcceptance() {
        return expectedProperty == null;
    }
}
