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
 */
public record Readings(QueueDepth queue, RingDirection ringDirection, boolean ringFallThrough, boolean rebackup) {

    /** How Eq. 4 counts a worker's queue. */
    public enum QueueDepth {
        RUN("run"), WAITING("waiting");

        public final String label;

        QueueDepth(String label) {
            this.label = label;
        }
    }

    /** Which way FC's fixed ring runs. */
    public enum RingDirection {
        NEXT("next"), PREVIOUS("previous");

        public final String label;

        RingDirection(String label) {
            this.label = label;
        }
    }

    public static final Readings DEFAULT = new Readings(QueueDepth.RUN, RingDirection.NEXT, false, false);

    /** The names of the readings, in the order the header and the docs list them. */
    public static final List<String> NAMES = List.of("queue", "ringDirection", "ringFallThrough", "rebackup");

    public Readings {
        if (queue == null || ringDirection == null) {
            throw new IllegalArgumentException("readings: queue and ringDirection are required");
        }
    }

    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /** The readings as the header writes them, each by name, in {@link #NAMES} order. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", queue.label);
        m.put("ringDirection", ringDirection.label);
        m.put("ringFallThrough", ringFallThrough);
        m.put("rebackup", rebackup);
        return m;
    }

    /**
     * This with one reading set from its text form ({@code queue=waiting}, {@code rebackup=true}):
     * the form of the header's values and of {@code lumen conform --reading}.
     *
     * @throws IllegalArgumentException naming the reading and its allowed values
     */
    public Readings with(String name, String value) {
        return switch (name) {
            case "queue" -> new Readings(pick(name, value, QueueDepth.values()), ringDirection, ringFallThrough, rebackup);
            case "ringDirection" -> new Readings(queue, pick(name, value, RingDirection.values()), ringFallThrough, rebackup);
            case "ringFallThrough" -> new Readings(queue, ringDirection, bool(name, value), rebackup);
            case "rebackup" -> new Readings(queue, ringDirection, ringFallThrough, bool(name, value));
            default -> throw new IllegalArgumentException("unknown reading '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }

    /** Whether a reading's value is a boolean (the others are strings). */
    public static boolean isBoolean(String name) {
        return name.equals("ringFallThrough") || name.equals("rebackup");
    }

    /** The values a reading allows, for messages and help. */
    public static List<String> values(String name) {
        return switch (name) {
            case "queue" -> List.of(QueueDepth.RUN.label, QueueDepth.WAITING.label);
            case "ringDirection" -> List.of(RingDirection.NEXT.label, RingDirection.PREVIOUS.label);
            case "ringFallThrough", "rebackup" -> List.of("false", "true");
            default -> throw new IllegalArgumentException("unknown reading '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }

    private static QueueDepth pick(String name, String value, QueueDepth[] all) {
        for (QueueDepth q : all) {
            if (q.label.equals(value)) {
                return q;
            }
        }
        throw badValue(name, value);
    }

    private static RingDirection pick(String name, String value, RingDirection[] all) {
        for (RingDirection d : all) {
            if (d.label.equals(value)) {
                return d;
            }
        }
        throw badValue(name, value);
    }

    private static boolean bool(String name, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw badValue(name, value);
        };
    }

    private static IllegalArgumentException badValue(String name, String value) {
        return new IllegalArgumentException("reading '" + name + "' must be one of " + values(name) + ", found '" + value + "'");
    }

    /**
     * Whether reading {@code name} changes anything under policy {@code p}: Q_w counts under every
     * policy (the gateway's arrivals use it too), the ring readings under a ring placement, rebackup
     * under a dual placement.
     */
    public static boolean appliesTo(String name, RecoveryPolicy p) {
        return switch (name) {
            case "queue" -> true;
            case "ringDirection", "ringFallThrough" -> p.ringPlacement();
            case "rebackup" -> p.dualPlacement();
            default -> throw new IllegalArgumentException("unknown reading '" + name + "'");
        };
    }

    /** The readings that differ from the default, by name. */
    public java.util.List<String> changed() {
        Map<String, Object> mine = toMap();
        Map<String, Object> dflt = DEFAULT.toMap();
        return NAMES.stream().filter(n -> !mine.get(n).equals(dflt.get(n))).toList();
    }

    /** One line: the readings that differ from the default, or "default readings". */
    public String describe() {
        if (isDefault()) {
            return "default readings";
        }
        StringBuilder b = new StringBuilder();
        Map<String, Object> mine = toMap();
        Map<String, Object> dflt = DEFAULT.toMap();
        for (String n : NAMES) {
            if (!mine.get(n).equals(dflt.get(n))) {
                b.append(b.length() == 0 ? "" : ", ").append(n).append('=').append(mine.get(n));
            }
        }
        return b.toString();
    }
}
