package lumen.core;

/** A worker's state, as in the spec's {@code WorkerStates}. */
public enum WorkerState {
    /** Serving with its full model. */
    UP,
    /** Crashed: its GPU state and the checkpoints in its host memory are gone. */
    FAILED,
    /** Restarted under LUMEN, loading its draft model. */
    LOADING_DRAFT,
    /** Draft loaded: proposing drafts for the most loaded survivor while the full model loads. */
    ASSISTING,
    /** Restarted under a baseline (or without assist), loading only its full model. */
    LOADING_FULL
}
