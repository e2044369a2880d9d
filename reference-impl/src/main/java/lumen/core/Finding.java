package lumen.core;

/**
 * Something a check found wrong with a step or a state: the property it breaks (null when the
 * step breaks no named property but is still not a step of the spec), what was expected and
 * what was seen.
 */
public record Finding(PropertyId property, String message, String expected, String actual) {

    /** Report order: by the property's {@link PropertyId#rank()}, a bare "not a step of the spec" last. */
    public static final java.util.Comparator<Finding> BY_RANK =
            java.util.Comparator.comparingInt(f -> f.property() == null ? Integer.MAX_VALUE : f.property().rank());

    public static Finding of(PropertyId p, String message) {
        return new Finding(p, message, null, null);
    }

    /** "S4 HolderIsNotServer" or "not a step of the spec". */
    public String label() {
        return property == null ? "not a step of the spec" : property.label();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(label()).append(": ").append(message);
        if (expected != null || actual != null) {
            b.append(" (expected ").append(expected).append(", actual ").append(actual).append(')');
        }
        return b.toString();
    }
}
