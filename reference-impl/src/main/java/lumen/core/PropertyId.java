package lumen.core;

/**
 * The properties of LUMEN's recovery, with the IDs they carry in the TLA+ spec, the Java checks,
 * the tests, the trace validator's reports and proofs-notes/. The spec operator of property
 * {@code S4 HolderIsNotServer} is {@code S4_HolderIsNotServerInv}.
 */
public enum PropertyId {
    S1("NoLostRequest", Kind.INVARIANT, "Cluster"),
    S2("NoDuplicateServing", Kind.INVARIANT, "Cluster"),
    S3("NeverServedByDeadWorker", Kind.INVARIANT, "FailureRouting"),
    S4("HolderIsNotServer", Kind.INVARIANT, "CheckpointPlacement"),
    S5("BudgetRespected", Kind.INVARIANT, "CheckpointPlacement"),
    S6("CheckpointWithinPrefix", Kind.INVARIANT, "CheckpointPlacement"),
    S7("OutputIsReferencePrefix", Kind.INVARIANT, "Cluster"),
    S8("NoCheckpointLeak", Kind.INVARIANT, "CheckpointPlacement"),
    S9("RestoreResumesAtSavedPrefix", Kind.INVARIANT, "FailureRouting"),
    S10("NoServingBeforeFullModel", Kind.INVARIANT, "DraftHandover"),
    S11("ExactlyOneActiveModel", Kind.INVARIANT, "DraftHandover"),
    S12("RestoreResumesAtCheckpoint", Kind.ACTION, "FailureRouting"),
    S13("CopyProvenance", Kind.INVARIANT, "CheckpointPlacement"),
    S14("ReProtection", Kind.ACTION, "CheckpointPlacement"),
    S15("Accounting", Kind.INVARIANT, "CheckpointPlacement"),
    S16("DeliveredOnce", Kind.ACTION, "Cluster"),
    S17("DraftVerifiedWhereAimed", Kind.INVARIANT, "DraftHandover"),
    S18("NoFencedTokenDelivered", Kind.INVARIANT, "GrayFailure"),
    S19("NoFencedPage", Kind.INVARIANT, "GrayFailure"),
    A1("PlacementIsArgMin", Kind.ACTION, "CheckpointPlacement"),
    A2("RoutingFollowsRule", Kind.ACTION, "FailureRouting"),
    A3("AssistTargetsMostLoaded", Kind.ACTION, "DraftHandover"),
    A4("PlacementFollowsBaseline", Kind.ACTION, "CheckpointPlacement"),
    A5("RoutingFollowsBaseline", Kind.ACTION, "FailureRouting"),
    A6("ArrivalJoinsShortestQueue", Kind.ACTION, "Cluster"),
    L1("EveryRequestCompletes", Kind.LIVENESS, "Lumen"),
    L2("EveryFailedWorkerRejoins", Kind.LIVENESS, "Lumen"),
    L3("CheckpointCatchesUp", Kind.LIVENESS, "Lumen"),
    L4("DraftAssists", Kind.LIVENESS, "Lumen"),
    R1("RefinesService", Kind.REFINEMENT, "Lumen");

    /** What kind of formula states the property in the spec. */
    public enum Kind {
        /** A state predicate that holds in every reachable state ({@code ...Inv}). */
        INVARIANT,
        /** A predicate on every step, {@code [][P]_vars} ({@code ...Prop}). */
        ACTION,
        /** A leads-to property under the spec's fairness and failure bound. */
        LIVENESS,
        /**
         * The composed spec implements another one under a refinement mapping ({@code R1}: module
         * Service, what a client gets). TLC checks it on the models; on a trace it is judged
         * through the properties it comes to there (S1, S7, S16 and completion).
         */
        REFINEMENT
    }

    private final String title;
    private final Kind kind;
    private final String specModule;

    PropertyId(String title, Kind kind, String specModule) {
        this.title = title;
        this.kind = kind;
        this.specModule = specModule;
    }

    /** The property's name without its ID, e.g. "HolderIsNotServer". */
    public String title() {
        return title;
    }

    public Kind kind() {
        return kind;
    }

    /** The TLA+ module that states the property. */
    public String specModule() {
        return specModule;
    }

    /** The TLA+ operator that states the property, e.g. "S4_HolderIsNotServerInv". */
    public String specOperator() {
        String suffix = switch (kind) {
            case INVARIANT -> "Inv";
            case ACTION -> "Prop";
            case LIVENESS, REFINEMENT -> "";
        };
        return name() + "_" + title + suffix;
    }

    /**
     * The order in which one step's findings are reported, the same in the Java mirror and in
     * TLC's trace validation: invariants first, then action properties, then liveness, each in
     * the order of their IDs (S before A, then by number).
     */
    public int rank() {
        return kind.ordinal() * 100 + ordinal();
    }

    /** "S4 HolderIsNotServer", the form reports use. */
    public String label() {
        return name() + " " + title;
    }
}
