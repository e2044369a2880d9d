package lumen.gpu;

/** The check that makes a restore bit-exact: the restored pages' checksums, computed where they now live, equal the sent pages'. */
final class Restores {
    private Restores() {}

    static void check(int req, long[] sent, long[] landed) {
        for (int i = 0; i < sent.length; i++) {
            if (sent[i] != landed[i]) {
                throw new IllegalStateException(String.format(java.util.Locale.ROOT,
                        "restore of request %d is not bit-exact: page %d has checksum %016x, its copy had %016x", req, i, landed[i], sent[i]));
            }
        }
    }
}
