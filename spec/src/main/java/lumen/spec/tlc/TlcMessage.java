package lumen.spec.tlc;

/**
 * One message of TLC's {@code -tool} output: the block between {@code @!@!@STARTMSG code:severity @!@!@}
 * and {@code @!@!@ENDMSG code @!@!@}.
 *
 * @param code     TLC's message code (see tlc2.output.EC)
 * @param severity 0 = information, 1 = error, 2 = TLC bug, 3 = warning, 4 = state print
 * @param text     the message body, without the markers
 */
public record TlcMessage(int code, int severity, String text) {

    // Codes this kit interprets; the names follow tlc2.output.EC.
    public static final int PROGRESS = 2200;
    public static final int STATS = 2199;
    public static final int SEARCH_DEPTH = 2194;
    public static final int SUCCESS = 2193;
    public static final int INVARIANT_VIOLATED_INITIAL = 2107;
    public static final int INVARIANT_VIOLATED_BEHAVIOR = 2110;
    public static final int ACTION_PROPERTY_VIOLATED = 2112;
    public static final int DEADLOCK = 2114;
    public static final int TEMPORAL_PROPERTY_VIOLATED = 2116;
    public static final int BACK_TO_STATE = 2122;
    public static final int STATE = 2217;
    public static final int STUTTERING = 2218;

    public boolean isError() {
        return severity == 1 || severity == 2;
    }
}
