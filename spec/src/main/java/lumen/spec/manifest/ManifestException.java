package lumen.spec.manifest;

/** The manifest is missing, unreadable or malformed; the message says where. */
public final class ManifestException extends Exception {
    public ManifestException(String message) {
        super(message);
    }
}
