package lumen.core;

/** How {@code Route} resumes an interrupted request (Eq. 6). */
public enum RouteMode {
    /** On its checkpoint holder, from the restored pages C_r; prefill is skipped. */
    RESTORE,
    /** On the least loaded survivor, recomputing the whole context; the checkpoint is freed. */
    REPREFILL
}
