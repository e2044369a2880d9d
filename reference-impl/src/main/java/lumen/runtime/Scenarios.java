package lumen.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import lumen.core.Config;
import lumen.core.Event;
import lumen.core.PageDigest;
import lumen.core.PropertyId;
import lumen.core.RouteMode;

/**
 * The named reference scenarios. Each is small (a few hundred to a few thousand events) and runs
 * in well under a second. Their traces are checked in under
 * reference-impl/src/test/resources/scenarios/, with their expected verdicts.
 */
public final class Scenarios {
    private static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    /** Loads fast enough that assist and handover happen while requests still run. */
    static final SimpleCostModel FAST_RELOAD = SimpleCostModel.fastReload();

    private static Config cfg(String policy, double theta, int tau, long budget) {
        return new Config(policy, 4, 1.0, 1.0, theta, tau, budget, 16, 4);
    }

    private static List<Arrival> workload(int n, long seed) {
        List<Arrival> a = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long s = seed * 1000 + i;
            a.add(new Arrival(i, i * 7.0, 24 + (int) (s * 13 % 40), 70 + (int) (s * 29 % 60), s));
        }
        return a;
    }

    private static Scenario.Feature feature(String name, Predicate<List<Event>> p) {
        return new Scenario.Feature(name, p);
    }

    private static Scenario.Feature routes(RouteMode m) {
        return feature("a Route in mode " + m, es -> es.stream().anyMatch(e -> e instanceof Event.Route r && r.mode() == m));
    }

    private static final Scenario.Feature ASSIST = feature("an Assist", es -> es.stream().anyMatch(e -> e instanceof Event.Assist));
    private static final Scenario.Feature HANDOVER = feature("a FullReady", es -> es.stream().anyMatch(e -> e instanceof Event.FullReady));
    private static final Scenario.Feature ORPHANS = feature("a Fail that loses checkpoints",
            es -> es.stream().anyMatch(e -> e instanceof Event.Fail f && f.orphaned().length > 0));
    private static final Scenario.Feature UNPROTECTED = feature("a Place with no holder",
            es -> es.stream().anyMatch(e -> e instanceof Event.Place p && p.holder() < 0));
    private static final Scenario.Feature REPREFILL_WITH_CKPT = feature("a REPREFILL that frees a checkpoint",
            es -> es.stream().anyMatch(e -> e instanceof Event.Route r && r.mode() == RouteMode.REPREFILL && r.freed() > 0));
    private static final Scenario.Feature PROMOTED_THEN_RESTORED = feature(
            "a request whose backup took over restoring from that copy", Scenarios::promotedThenRestored);

    private static boolean promotedThenRestored(List<Event> es) {
        java.util.Set<Integer> promoted = new java.util.HashSet<>();
        for (Event e : es) {
            if (e instanceof Event.Fail f) {
                for (int r : f.promoted()) {
                    promoted.add(r);
                }
            } else if (e instanceof Event.Route r && r.mode() == RouteMode.RESTORE && r.resumed() > 0 && promoted.contains(r.req())) {
                return true;
            }
        }
        return false;
    }

    private static final Scenario.Feature ZOMBIE_TOKEN_REFUSED = feature("a zombie's token refused by the gateway's fence",
            es -> es.stream().anyMatch(e -> e instanceof Event.ZombieToken t && !t.accepted()));
    private static final Scenario.Feature ZOMBIE_PAGE_REFUSED = feature("a zombie's page refused by the holder's fence",
            es -> es.stream().anyMatch(e -> e instanceof Event.ZombiePage p && !p.accepted()));

    private static final Scenario.Feature FAIL_WHILE_ASSISTING = feature("a worker failing after DraftReady and before its FullReady",
            Scenarios::failsWhileAssisting);

    private static boolean failsWhileAssisting(List<Event> es) {
        java.util.Set<Integer> assisting = new java.util.HashSet<>();
        for (Event e : es) {
            if (e instanceof Event.DraftReady d) {
                assisting.add(d.worker());
            } else if (e instanceof Event.FullReady f) {
                assisting.remove(f.worker());
            } else if (e instanceof Event.Fail f && assisting.contains(f.worker())) {
                return true;
            }
        }
        return false;
    }

    private static void add(String name, String description, Config c, List<Fault> faults, List<Scenario.Feature> show) {
        ALL.put(name, new Scenario(name, description, c, FAST_RELOAD, ClusterRuntime.Options.defaults(16), workload(10, name.length()),
                faults, show, UnaryOperator::identity, null));
    }

    static {
        add("single-failure-restore",
                "LUMEN, 4 workers: worker 1 fails mid-decode; its requests restore on their holders (theta is high), "
                        + "the restarted worker assists with its draft, then hands over.",
                cfg("lumen", 1000, 32, 4096), List.of(new Fault(1, 150, Fault.Point.MID_DECODE)),
                List.of(routes(RouteMode.RESTORE), ASSIST, HANDOVER));
        add("holder-failure",
                "LUMEN: worker 2, which holds checkpoints of requests served elsewhere, fails; those requests are "
                        + "placed again. Then worker 0 fails while their new checkpoints are young: with theta 0, Eq. 6 "
                        + "restores only prefixes longer than tau, so they re-prefill.",
                cfg("lumen", 0, 32, 4096),
                List.of(new Fault(2, 120, Fault.Point.AT_TIME), new Fault(0, 125, Fault.Point.MID_DECODE)),
                List.of(ORPHANS, routes(RouteMode.REPREFILL)));
        add("budget-exhaustion",
                "LUMEN with a host budget of 300 positions per holder: later requests run unprotected "
                        + "(graceful degradation); when worker 2, which serves one of them, fails, that request re-prefills.",
                cfg("lumen", 1000, 32, 300), List.of(new Fault(2, 200, Fault.Point.MID_DECODE)),
                List.of(UNPROTECTED, routes(RouteMode.REPREFILL)));
        add("short-prefix-reprefill",
                "LUMEN with theta 0 and tau 10000: every holder is loaded (L(h) > theta) and every saved prefix is "
                        + "short (|C_r| <= tau), so Eq. 6 re-prefills on the least loaded survivor and frees the checkpoint.",
                cfg("lumen", 0, 10_000, 4096), List.of(new Fault(2, 250, Fault.Point.MID_DECODE)),
                List.of(REPREFILL_WITH_CKPT));
        add("failure-during-handover",
                "LUMEN: worker 1 fails; it restarts, loads its draft and assists; it fails again while assisting, "
                        + "before its full model is ready. Its in-flight drafts die with it; it restarts and hands over.",
                cfg("lumen", 1000, 32, 4096),
                List.of(new Fault(1, 100, Fault.Point.MID_DECODE), new Fault(1, 300, Fault.Point.MID_HANDOVER)),
                List.of(FAIL_WHILE_ASSISTING, HANDOVER, ASSIST));
        add("dual-holder-failure",
                "lumen-dual: each request has a holder and a backup. Worker 1, the holder of request 0, fails: its backup "
                        + "takes over with its own copy. Then request 0's server fails, and it restores from that copy.",
                cfg("lumen-dual", 1000, 32, 4096),
                List.of(new Fault(1, 120, Fault.Point.AT_TIME), new Fault(0, 130, Fault.Point.MID_DECODE)),
                List.of(PROMOTED_THEN_RESTORED, ASSIST, HANDOVER));
        add("gray-failure",
                "LUMEN: worker 1 stalls mid-decode for 40 ms (a gray failure): the failure detector declares it failed, "
                        + "which fences it, and its requests restore on their holders. It then wakes with its old state and "
                        + "sends its next tokens to the gateway and its next pages to their holders: every write is refused "
                        + "(its epoch is fenced), and it stops.",
                cfg("lumen", 1000, 32, 4096), List.of(new Fault(1, 150, Fault.Point.MID_DECODE, 40)),
                List.of(ZOMBIE_TOKEN_REFUSED, ZOMBIE_PAGE_REFUSED, routes(RouteMode.RESTORE)));
        Scenario gray = ALL.get("gray-failure");
        corrupted(gray, "corrupt-zombie-token-delivered",
                "gray-failure with the gateway taking the zombie's first token into its request's stream: rejected by S18.",
                PropertyId.S18, () -> new UnaryOperator<>() {
                    private boolean done;

                    public Event apply(Event e) {
                        if (!done && e instanceof Event.ZombieToken t) {
                            done = true;
                            return t.taken();
                        }
                        return e;
                    }
                });
        corrupted(gray, "corrupt-zombie-page-stored",
                "gray-failure with a holder taking the zombie's first page into its checkpoint: rejected by S19.",
                PropertyId.S19, () -> new UnaryOperator<>() {
                    private boolean done;

                    public Event apply(Event e) {
                        if (!done && e instanceof Event.ZombiePage p) {
                            done = true;
                            return p.taken();
                        }
                        return e;
                    }
                });
        Scenario base = ALL.get("single-failure-restore");
        corrupted(base, "corrupt-holder-is-server",
                "single-failure-restore with its first placement moved onto the request's own server: rejected by S4.",
                PropertyId.S4, () -> new UnaryOperator<>() {
                    private final Map<Integer, Integer> server = new java.util.HashMap<>();
                    private boolean done;

                    public Event apply(Event e) {
                        if (e instanceof Event.Arrive a) {
                            server.put(a.req(), a.worker());
                        }
                        if (!done && e instanceof Event.Place p && p.holder() >= 0) {
                            done = true;
                            return new Event.Place(p.req(), server.get(p.req()));
                        }
                        return e;
                    }
                });
        corrupted(base, "corrupt-resume-past-checkpoint",
                "single-failure-restore with its first RESTORE claiming 16 more positions than the checkpoint saved: rejected by S9.",
                PropertyId.S9, () -> new UnaryOperator<>() {
                    private boolean done;

                    public Event apply(Event e) {
                        if (!done && e instanceof Event.Route r && r.mode() == RouteMode.RESTORE) {
                            done = true;
                            return new Event.Route(r.req(), r.mode(), r.worker(), r.resumed() + 16, r.freed(),
                                    PageDigest.claimed(r.pages(), r.resumed() + 16, 16));
                        }
                        return e;
                    }
                });
    }

    private static void corrupted(Scenario base, String name, String description, PropertyId p, java.util.function.Supplier<UnaryOperator<Event>> f) {
        ALL.put(name, new Scenario(name, description, base.config(), base.cost(), base.options(), base.workload(), base.faults(),
                List.of(), f, p));
    }

    private Scenarios() {}

    public static List<Scenario> all() {
        return List.copyOf(ALL.values());
    }

    public static Scenario find(String name) {
        return ALL.get(name);
    }
}
