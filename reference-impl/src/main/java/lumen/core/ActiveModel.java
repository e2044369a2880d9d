package lumen.core;

/** The model that answers for a worker, the spec's {@code Models}: one at most. */
public enum ActiveModel {
    NONE,
    DRAFT,
    FULL;

    /** The spec's {@code ModelFor(s)}: the model a worker in state {@code s} must have active. */
    public static ActiveModel requiredFor(WorkerState s) {
        return switch (s) {
            case UP -> FULL;
            case ASSISTING -> DRAFT;
            default -> NONE;
        };
    }
}
