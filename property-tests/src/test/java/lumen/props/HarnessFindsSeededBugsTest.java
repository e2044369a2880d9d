package lumen.props;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import lumen.core.ClusterState;
import lumen.core.Policies;
import lumen.core.PropertyId;
import lumen.core.RecoveryPolicy;
import lumen.core.RequestRec;
import lumen.core.WorkerState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seeded bugs in the Java policy layer, written consistently (the buggy decision and the
 * policy's own idea of what is allowed agree, so the core takes the step). The harness must find
 * each with its property ID and shrink it to a small schedule.
 */
class HarnessFindsSeededBugsTest {

    /** LUMEN with one decision replaced. */
    abstract static class Mutant implements RecoveryPolicy {
        final RecoveryPolicy base = Policies.find("lumen");
        final String key;

        Mutant(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        public String description() {
            return "seeded bug: " + key;
        }

        public int chooseHolder(ClusterState s, RequestRec r) {
            return base.chooseHolder(s, r);
        }

        public boolean allowsHolder(ClusterState s, RequestRec r, int h) {
            return h == chooseHolder(s, r);
        }

        public boolean restoreOnHolder(ClusterState s, RequestRec r) {
            return base.restoreOnHolder(s, r);
        }

        public WorkerState restartState() {
            return base.restartState();
        }

        public boolean loadAwarePlacement() {
            return true;
        }

        public boolean eq6Routing() {
            return true;
        }
    }

    @BeforeAll
    static void register() {
        if (Policies.find("mutant-holder-is-server") != null) {
            return;
        }
        Policies.register(new Mutant("mutant-holder-is-server") {
            public int chooseHolder(ClusterState s, RequestRec r) {
                return r.server();
            }
        });
        Policies.register(new Mutant("mutant-inverted-tau") {
            public boolean restoreOnHolder(ClusterState s, RequestRec r) {
                return s.load(r.holder()) <= s.config().theta() || r.ckpt().length() <= s.config().tau();
            }
        });
        Policies.register(new Mutant("mutant-ignores-budget") {
            public int chooseHolder(ClusterState s, RequestRec r) {
                return s.index().minLoadWithRoom(Long.MIN_VALUE, r.server());
            }
        });
    }

    static Harness.Failure find(String policy) {
        Harness.Result r = Harness.run(new ScheduleGenerator(List.of(policy)), 1, 300);
        assertNotNull(r.failure, policy + ": the harness found nothing in " + r.schedules + " schedules");
        System.out.println(policy + ":\n" + r.failure.report());
        return r.failure;
    }

    @Test
    void aHolderThatIsTheServerIsS4() {
        Harness.Failure f = find("mutant-holder-is-server");
        assertEquals(PropertyId.S4, f.property());
        assertTrue(f.minimal().arrivals().size() <= 2 && f.minimal().faults().isEmpty(), f.report());
    }

    @Test
    void anInvertedTauIsA2() {
        Harness.Failure f = find("mutant-inverted-tau");
        assertEquals(PropertyId.A2, f.property());
        assertTrue(f.minimal().faults().size() <= 2, f.report());
        assertTrue(f.minimal().arrivals().size() <= 2, "shrunk to a request or two: " + f.report());
    }

    @Test
    void anIgnoredBudgetIsA1() {
        Harness.Failure f = find("mutant-ignores-budget");
        assertEquals(PropertyId.A1, f.property());
        assertTrue(f.minimal().faults().isEmpty(), "a placement bug needs no failure: " + f.report());
    }
}
