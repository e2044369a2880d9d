package lumen.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The paper's readings where it can be read two ways: the spec's {@code Readings} constant (and
 * FC's ring direction, the spec's {@code Neighbour}). A trace header names them in
 * {@code config.readings}; a conformance run sends them to the adapter. Each reading is checked by
 * its own TLC model in {@code spec/manifest.json}; docs/readings.md gives the paper's text, the
 * default and why.
 *
 * @param queue           Q_w of Eq. 4: the whole run queue ({@link QueueDepth#RUN}, the default)
 *                        or only the requests waiting for their prefill ({@link QueueDepth#WAITING})
 * @param ringDirection   FC's ring: each worker's neighbour is the next worker (the default) or the previous one
 * @param ringFallThrough FC: a neighbour without room leaves the request unprotected (false, the
 *                        default), or the next worker on the ring is tried, and so on (true)
 * @param rebackup        lumen-dual: the backup is chosen at placement only (false, the default), or a
 *                        request with a holder and no backup gets a new one as soon as a worker has room
 * @param assistTarget    Algorithm 3's target w_s: chosen once per assist session and kept while it is
 *                        UP ({@link AssistTarget#SESSION}, the default, as line 4 is written), or again
 *                        for every proposal ({@link AssistTarget#PROPOSAL})
 * @param routeLoads      the loads Algorithm 2 routes a failure's requests by: Eq. 4 recomputed from
 *                        the state ({@link RouteLoads#RECOMPUTE}, the default), or the loads at the
 *                        failure plus beta per request routed since ({@link RouteLoads#INCREMENT})
 * @param budget          how Eq. 5 is kept: by reserving Size(r), the declared maximum, at placement
 *                        ({@link Budget#RESERVE}, the default), or on the positions stored: a holder
 *                        takes a request while it stores less than M_budget, and a checkpoint stops
 *                        growing when its holder is full ({@link Budget#STORED})
 * @param citedLoads      the loads a decision is taken on: the exact loads of the state it is taken in
 *                        ({@link CitedLoads#EXACT}, the default), or the last load each worker reported
 *                        to the gateway's monitor, at most so many events or milliseconds old
 * @param arrival         where the gateway sends a new request: a shortest queue by Eq. 4's Q_w
 *                        ({@link Arrival#SHORTEST}, the default, the router of the paper's Fig. 1), or
 *                        any UP worker with its full model ({@link Arrival#ANY}: round robin, random, a
 *                        serving stack's own rule; the paper's baselines route new requests by their stack)
 */
public record Readings(QueueDepth queue, RingDirection ringDirection, boolean ringFallThrough, boolean rebackup,
                       AssistTarget assistTarget, RouteLoads routeLoads, Budget budget, CitedLoads citedLoads, Arrival arrival) {

    /** How Eq. 4 counts a worker's queue. */
    public enum QueueDepth {
        RUN, WAITING;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /** Which way FC's fixed ring runs. */
    public enum RingDirection {
        NEXT, PREVIOUS;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /** When a recovering worker chooses the survivor it assists. */
    public enum AssistTarget {
        SESSION, PROPOSAL;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /** How Algorithm 2's loads evolve while a failure's requests are routed one by one. */
    public enum RouteLoads {
        RECOMPUTE, INCREMENT;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /** Where the gateway sends a new request (A6 holds it to a shortest queue under {@link #SHORTEST}). */
    public enum Arrival {
        SHORTEST, ANY;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /** How Eq. 5's budget is kept. */
    public enum Budget {
        RESERVE, STORED;

        @Override
        public String toString() {
            return label(this);
        }
    }

    /**
     * How old the loads a decision rests on may be: {@link #EXACT} (the state's own loads), or stale,
     * each worker's load as its last report to the gateway's monitor had it, at most {@code bound}
     * events old ({@code stale:N}) or {@code bound} milliseconds old ({@code stale:Tms}).
     */
    public record CitedLoads(double bound, boolean millis) {
        public static final CitedLoads EXACT = new CitedLoads(0, false);

        public CitedLoads {
            if (!(bound >= 0) || Double.isInfinite(bound) || (!millis && bound != Math.rint(bound))) {
                throw new IllegalArgumentException("citedLoads: the bound must be a whole number of events or a finite number of ms");
            }
        }

        /** Whether decisions rest on the exact loads (no monitor). */
        public boolean exact() {
            return bound == 0 && !millis;
        }

        /** The text form: exact, stale:N (events) or stale:Tms. */
        @Override
        public String toString() {
            if (exact()) {
                return "exact";
            }
            String n = bound == Math.rint(bound) ? Long.toString((long) bound) : Double.toString(bound);
            return "stale:" + n + (millis ? "ms" : "");
        }

        /** The reading from its text form, or null when {@code text} is not one. */
        static CitedLoads parse(String text) {
            if (text.equals("exact")) {
                return EXACT;
            }
            // the schema's pattern (docs/trace-v2.schema.json): a whole number of events from 1, or ms above 0
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("stale:(?:([1-9][0-9]{0,11})|([1-9][0-9]{0,11}(?:\\.[0-9]{1,9})?|0\\.[0-9]{0,8}[1-9])ms)")
                    .matcher(text);
            if (!m.matches()) {
                return null;
            }
            boolean ms = m.group(2) != null;
            double b = Double.parseDouble(ms ? m.group(2) : m.group(1));
            return new CitedLoads(b, ms);
        }
    }

    public static final Readings DEFAULT = new Readings(QueueDepth.RUN, RingDirection.NEXT, false, false, AssistTarget.SESSION,
            RouteLoads.RECOMPUTE, Budget.RESERVE, CitedLoads.EXACT, Arrival.SHORTEST);

    /** The names of the readings, in the order the header and the docs list them. */
    public static final List<String> NAMES = List.of("queue", "ringDirection", "ringFallThrough", "rebackup", "assistTarget", "routeLoads",
            "budget", "citedLoads", "arrival");

    public Readings {
        if (queue == null || ringDirection == null || assistTarget == null || routeLoads == null || budget == null || citedLoads == null
                || arrival == null) {
            throw new IllegalArgumentException("readings: queue, ringDirection, assistTarget, routeLoads, budget, citedLoads and arrival are required");
        }
    }

    /** Whether decisions rest on the gateway's monitor (citedLoads=stale:...). */
    public boolean staleLoads() {
        return !citedLoads.exact();
    }

    /** Whether a recovering worker keeps its assist target for the session (the session reading). */
    public boolean sessionTarget() {
        return assistTarget == AssistTarget.SESSION;
    }

    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /** A reading's value as the header writes it: an enum's lower-case name, or true/false. */
    static String label(Enum<?> e) {
        return e.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The value of reading {@code name}: its enum constant or Boolean. */
    private Object get(String name) {
        return switch (name) {
            case "queue" -> queue;
            case "ringDirection" -> ringDirection;
            case "ringFallThrough" -> ringFallThrough;
            case "rebackup" -> rebackup;
            case "assistTarget" -> assistTarget;
            case "routeLoads" -> routeLoads;
            case "budget" -> budget;
            case "citedLoads" -> citedLoads;
            case "arrival" -> arrival;
            default -> throw unknown(name);
        };
    }

    /** The readings as the header writes them, each by name, in {@link #NAMES} order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String n : NAMES) {
            Object v = get(n);
            m.put(n, v instanceof Boolean ? v : v.toString());
        }
        return m;
    }

    /**
     * This with one reading set from its text form ({@code queue=waiting}, {@code rebackup=true}):
     * the form of the header's values and of {@code lumen conform --reading}.
     *
     * @throws IllegalArgumentException naming the reading and its allowed values
     */
    public Readings with(String name, String value) {
        Object v = name.equals("citedLoads") ? citedLoads(value) : pick(name, value, all(name));
        java.util.function.Function<String, Object> at = n -> n.equals(name) ? v : get(n);
        return new Readings((QueueDepth) at.apply("queue"), (RingDirection) at.apply("ringDirection"),
                (Boolean) at.apply("ringFallThrough"), (Boolean) at.apply("rebackup"), (AssistTarget) at.apply("assistTarget"),
                (RouteLoads) at.apply("routeLoads"), (Budget) at.apply("budget"), (CitedLoads) at.apply("citedLoads"),
                (Arrival) at.apply("arrival"));
    }

    private static CitedLoads citedLoads(String value) {
        CitedLoads c = CitedLoads.parse(value);
        if (c == null) {
            throw new IllegalArgumentException("reading 'citedLoads' must be one of " + values("citedLoads") + " (N a whole number of events"
                    + " at least 1, T a number of milliseconds above 0), found '" + value + "'");
        }
        return c;
    }

    private static final Boolean[] BOOLEANS = {false, true};

    /** Whether a reading's value is a boolean (the others are strings). */
    public static boolean isBoolean(String name) {
        return name.equals("ringFallThrough") || name.equals("rebackup");
    }

    /** The values a reading allows, for messages and help (citedLoads: its forms). */
    public static List<String> values(String name) {
        if (name.equals("citedLoads")) {
            return List.of("exact", "stale:N", "stale:Tms");
        }
        return java.util.Arrays.stream(all(name)).map(String::valueOf).toList();
    }

    /** Example values of each reading, one of each form (for tests and schedule draws). */
    public static List<String> examples(String name) {
        return name.equals("citedLoads") ? List.of("exact", "stale:3", "stale:250ms") : values(name);
    }

    /** The values a reading allows: its enum's constants, or false and true. */
    private static Object[] all(String name) {
        return switch (name) {
            case "queue" -> QueueDepth.values();
            case "ringDirection" -> RingDirection.values();
            case "ringFallThrough", "rebackup" -> BOOLEANS;
            case "assistTarget" -> AssistTarget.values();
            case "routeLoads" -> RouteLoads.values();
            case "budget" -> Budget.values();
            case "citedLoads" -> new Object[] {CitedLoads.EXACT};
            case "arrival" -> Arrival.values();
            default -> throw unknown(name);
        };
    }

    /** The value of {@code all} whose text form is {@code value} (an enum's label, or true/false). */
    private static <T> T pick(String name, String value, T[] all) {
        for (T x : all) {
            if (String.valueOf(x).equals(value)) {
                return x;
            }
        }
        throw new IllegalArgumentException("reading '" + name + "' must be one of " + values(name) + ", found '" + value + "'");
    }

    private static IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException("unknown reading '" + name + "'; known: " + String.join(", ", NAMES));
    }

    /**
     * Whether reading {@code name} changes anything under policy {@code p}: Q_w counts under every
     * policy (the gateway's arrivals use it too), the ring readings under a ring placement, rebackup
     * under a dual placement, assistTarget under a policy whose restarted workers assist,
     * routeLoads under Eq. 6 routing, budget under a policy that places checkpoints, citedLoads under
     * every policy (every policy re-prefills on a least loaded worker), arrival under every policy.
     */
    public static boolean appliesTo(String name, RecoveryPolicy p) {
        return switch (name) {
            case "queue" -> true;
            case "ringDirection", "ringFallThrough" -> p.ringPlacement();
            case "rebackup" -> p.dualPlacement();
            case "assistTarget" -> p.restartState() == WorkerState.LOADING_DRAFT;
            case "routeLoads" -> p.eq6Routing();
            case "budget" -> p.placesCheckpoints();
            case "citedLoads", "arrival" -> true;
            default -> throw unknown(name);
        };
    }

    /** Whether a new request may join any UP worker (arrival=any), not only a shortest queue. */
    public boolean anyArrival() {
        return arrival == Arrival.ANY;
    }

    /** The readings that differ from the default, by name. */
    public java.util.List<String> changed() {
        Map<String, Object> mine = toMap();
        Map<String, Object> dflt = DEFAULT.toMap();
        return NAMES.stream().filter(n -> !mine.get(n).equals(dflt.get(n))).toList();
    }

    /** One line: the readings that differ from the default, or "default readings". */
    public String describe() {
        Map<String, Object> mine = toMap();
        List<String> changed = changed();
        return changed.isEmpty() ? "default readings"
                : String.join(", ", changed.stream().map(n -> n + "=" + mine.get(n)).toList());
    }
}
