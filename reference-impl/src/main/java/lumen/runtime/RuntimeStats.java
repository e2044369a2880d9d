package lumen.runtime;

/** What a runtime run did, counted. */
public final class RuntimeStats {
    public int failures;
    public int faultsSkipped;
    public int restores;
    public int promotions;
    public int reprefills;
    public int unprotectedPlacements;
    public int pagesStreamed;
    public int streamCopiesDiscarded;
    /** Pages whose holder's acknowledgement was lost, sent again. */
    public int streamAcksLost;
    public int streamQueueFull;
    public int pagesRestored;
    public long restoredBytesChecked;
    public long restoredBytesWrong;
    public int draftsDelivered;
    public int draftTokensProposed;
    public int draftTokensAccepted;
    public int handovers;
    public int completed;
    /** Paused workers that woke as zombies, and the writes of theirs the fences refused. */
    public int zombies;
    public int zombieWritesRefused;

    @Override
    public String toString() {
        return "failures=" + failures + " promotions=" + promotions + " restores=" + restores + " reprefills=" + reprefills
                + " unprotected=" + unprotectedPlacements + " pagesStreamed=" + pagesStreamed
                + " pagesRestored=" + pagesRestored + " restoredBytesChecked=" + restoredBytesChecked
                + " restoredBytesWrong=" + restoredBytesWrong + " drafts=" + draftsDelivered
                + " draftTokensAccepted=" + draftTokensAccepted + "/" + draftTokensProposed
                + " handovers=" + handovers + " completed=" + completed + " zombies=" + zombies
                + " zombieWritesRefused=" + zombieWritesRefused;
    }
}
