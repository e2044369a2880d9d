package lumen.validate;

import java.util.List;
import lumen.core.Finding;

/**
 * The first event of a trace that is not a step of the spec or breaks a property.
 *
 * @param line     its line in the trace
 * @param event    the event as JSON
 * @param finding  what is wrong, with the property ID when one breaks
 * @param others   further findings on the same event
 * @param state    the mirrored spec state just before the event, as text
 * @param matched  the longest matched prefix and, for a partial trace, the candidate states that
 *                 reached the event, in words (null when not known)
 */
public record Divergence(long line, String event, Finding finding, List<Finding> others, String state, String matched) {
    public Divergence(long line, String event, Finding finding, List<Finding> others, String state) {
        this(line, event, finding, others, state, null);
    }

    public Divergence withLine(long n) {
        return new Divergence(n, event, finding, others, state, matched);
    }

    /** This divergence with {@code note} after its event's text (which step of a composed line it is). */
    public Divergence withEventNote(String note) {
        return note == null || event == null ? this : new Divergence(line, event + " (" + note + ")", finding, others, state, matched);
    }

    public Divergence withMatched(String m) {
        return new Divergence(line, event, finding, others, state, m);
    }
}
