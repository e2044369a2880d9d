package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import lumen.validate.Divergence;
import lumen.validate.Mirror;
import org.junit.jupiter.api.Test;

/**
 * Every step the decision core takes, under every policy, is a step of the spec that breaks no
 * property: random walks with failures at any point, each step checked by the validator's checks
 * (the mirror, with the synthetic KV content the core reports) and the whole state by every
 * invariant. A random walk schedules unfairly on purpose, so the bounded fairness checks are off.
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
                Mirror mirror = new Mirror(cfg, 0);
                long line = 2;
                for (Event e : walk.events) {
                    Divergence d = mirror.step(e, line++, null);
                    assertThat(d).as("%s seed %d", policy, seed).isNull();
                    List<Finding> all = Invariants.all(mirror.state());
                    assertThat(all).as(policy).isEmpty();
                    seen.add(e.action());
                    if (e instanceof Event.Route r) {
                        modes.add(r.mode());
                    }
                }
            }
        }
        assertThat(seen).as("the walks reach every action").isEqualTo(EnumSet.allOf(Action.class));
        assertThat(modes).as("the walks reach both routing modes").isEqualTo(EnumSet.allOf(RouteMode.class));
    }
}
