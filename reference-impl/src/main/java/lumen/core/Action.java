package lumen.core;

/**
 * The spec's actions. Each is one TLA+ operator and, from the reference implementation on, one
 * method of the decision core and one trace event type.
 */
public enum Action {
    ARRIVE("Arrive"),
    PLACE("Place"),
    PREFILL("Prefill"),
    DECODE("Decode"),
    STREAM_PAGE("StreamPage"),
    COMPLETE("Complete"),
    FAIL("Fail"),
    ROUTE("Route"),
    RESTART("Restart"),
    DRAFT_READY("DraftReady"),
    ASSIST("Assist"),
    FULL_READY("FullReady"),
    ZOMBIE_TOKEN("ZombieToken"),
    ZOMBIE_PAGE("ZombiePage"),
    ZOMBIE_STOPS("ZombieStops"),
    ZOMBIE_ACK("ZombieAck");

    private final String specName;

    Action(String specName) {
        this.specName = specName;
    }

    /** The TLA+ operator, e.g. "StreamPage". */
    public String specName() {
        return specName;
    }
}
