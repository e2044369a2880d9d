package lumen.spec.tlc;

import java.util.Map;

/**
 * One state of a TLC counterexample.
 *
 * @param index     1-based position in the behaviour
 * @param action    the spec action that led here ("Init" for the first state, "Stuttering" for a
 *                  stuttering step), in the spec's own vocabulary
 * @param location  where TLC says the action is defined, or empty
 * @param variables each variable's value, as TLC prints it, in TLC's order
 */
public record TraceState(int index, String action, String location, Map<String, String> variables) {
}
