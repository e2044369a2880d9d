package lumen.cli;

/** What {@code lumen}'s exit status means. */
final class ExitCodes {
    /** Every check agreed with its expectation. */
    static final int OK = 0;
    /** A check disagreed: a property failed, a mutant survived, a count changed. */
    static final int DISAGREEMENT = 1;
    /** The input was wrong: an unknown model, a missing file, a malformed manifest. */
    static final int BAD_INPUT = 2;

    private ExitCodes() {
    }
}
