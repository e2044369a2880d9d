package lumen.cli;

/** A mistake in what the user asked for or supplied; printed as one located line, never a stack trace. */
final class UserError extends RuntimeException {
    UserError(String message) {
        super(message);
    }
}
