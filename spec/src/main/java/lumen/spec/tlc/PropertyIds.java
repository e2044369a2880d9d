package lumen.spec.tlc;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The naming rule that ties a TLA+ operator to its property ID: {@code S4_HolderIsNotServerInv} is
 * property S4 (HolderIsNotServer), an invariant; {@code A2_RoutingFollowsRuleProp} is action property
 * A2; {@code L1_EveryRequestCompletes} is liveness property L1; {@code R1_RefinesService} is the
 * service refinement R1, and {@code R1_RefinesServiceSafety} its safety part alone.
 */
public final class PropertyIds {

    private static final Pattern OPERATOR = Pattern.compile("^([SALR]\\d+)_([A-Za-z]+?)(Inv|Prop|Safety)?$");

    private PropertyIds() {
    }

    public static Optional<String> idOf(String operator) {
        if (operator == null) {
            return Optional.empty();
        }
        Matcher m = OPERATOR.matcher(operator);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
