package lumen.spec.check;

import java.time.Duration;
import java.util.List;
import lumen.spec.manifest.ModelEntry;
import lumen.spec.tlc.TlcResult;

/**
 * A model's TLC result next to what the manifest expects.
 *
 * @param entry        the manifest entry
 * @param result       what TLC found
 * @param agrees       whether the two match
 * @param disagreement why they do not, in words; empty when they agree
 */
public record ModelOutcome(ModelEntry entry, TlcResult result, boolean agrees, String disagreement) {

    static ModelOutcome error(ModelEntry entry, String why) {
        TlcResult r = new TlcResult(TlcResult.Status.ERROR, null, -1, -1, -1, Duration.ZERO, List.of(), -1, why);
        return new ModelOutcome(entry, r, false, why);
    }

    /**
     * The outcome of entry e's run r with {@code workers} TLC workers. The distinct-state count must
     * equal the manifest's. So must the depth with one worker; with more, TLC's search is not
     * level by level and the depth it reports may overshoot the model's (a state first reached by
     * a longer path), never fall short of it, so a reported depth at least the manifest's agrees.
     */
    static ModelOutcome of(ModelEntry e, TlcResult r, int workers) {
        if (e.expectsPass()) {
            if (r.status() != TlcResult.Status.PASS) {
                return new ModelOutcome(e, r, false, describe(r));
            }
            if (e.distinctStates() == null || e.depth() == null) {
                return new ModelOutcome(e, r, false, "the manifest records no state count for this model"
                        + " (TLC found " + r.distinctStates() + " distinct states, depth " + r.depth() + ")");
            }
            boolean depthOk = workers <= 1 ? r.depth() == e.depth() : r.depth() >= e.depth();
            if (r.distinctStates() != e.distinctStates() || !depthOk) {
                return new ModelOutcome(e, r, false, "TLC found " + r.distinctStates() + " distinct states at depth "
                        + r.depth() + "; the manifest expects " + e.distinctStates() + " at depth " + e.depth()
                        + (workers <= 1 ? "" : " or more (" + workers + " TLC workers)"));
            }
            return new ModelOutcome(e, r, true, "");
        }
        if (!r.isViolation()) {
            return new ModelOutcome(e, r, false, (e.isWitness() ? "the witnessed scenario was not reached: "
                    : "the mutant was not rejected: ") + describe(r));
        }
        if (!e.property().equals(r.violatedProperty())) {
            return new ModelOutcome(e, r, false, "rejected with " + r.violatedProperty() + ", expected "
                    + e.property());
        }
        return new ModelOutcome(e, r, true, "");
    }

    private static String describe(TlcResult r) {
        return switch (r.status()) {
            case PASS -> "TLC found no violation";
            case SAFETY_VIOLATION, LIVENESS_VIOLATION -> "TLC reports " + r.violatedProperty() + " violated";
            case DEADLOCK -> "TLC reached a deadlock";
            case TIMEOUT -> "TLC did not finish: " + r.errorText();
            case ERROR -> "TLC could not check the model: " + r.errorText();
        };
    }
}
