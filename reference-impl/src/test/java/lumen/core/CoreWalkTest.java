package lumen.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import lumen.validate.Divergence;
import lumen.validate.Validator;
import org.junit.jupiter.api.Test;

/**
 * Every step the decision core takes, under every policy, is a step of the spec that breaks no
 * property: random walks with failures at any point, each step checked by the validator's checks
 * and the whole state by every invariant.
 */
class CoreWalkTest {

    @Test
    void everyCoreStepIsASpecStepUnderEveryPolicy() {
        Set<Action> seen = EnumSet.noneOf(Action.class);
        Set<RouteMode> modes = EnumSet.noneOf(RouteMode.class);
        for (String policy : Policies.keys()) {
            for (long seed = 0; seed < 40; seed++) {
                Config cfg = new Config(policy, 2 + (int) (seed % 4), 1, 1, 3, 2, 8 + seed % 20, 4, 3);
                RandomWalk walk = new RandomWalk(cfg, seed, 6, 3);
                for (int i = 0; i < 400 && walk.step(st -> { }); i++) {
                    // walk
                }
                // replay the walk through the validator's step check and the full invariants
                ClusterState s = ClusterState.initial(cfg);
                long line = 2;
                for (Event e : walk.events) {
                    Divergence d = Validator.check(s, e, line++);
                    long sd = seed;
                    assertNull(d, () -> policy + " seed " + sd + ": " + d);
                    s = Transition.apply(s, e);
                    List<Finding> all = Invariants.all(s);
                    assertTrue(all.isEmpty(), () -> policy + ": " + all);
                    seen.add(e.action());
                    if (e instanceof Event.Route r) {
                        modes.add(r.mode());
                    }
                }
            }
        }
        assertEquals(EnumSet.allOf(Action.class), seen, "the walks reach every action");
        assertEquals(EnumSet.allOf(RouteMode.class), modes, "the walks reach both routing modes");
    }
}
