package lumen.core;

/** Token conventions shared by the core, the runtime's models and the trace. */
public final class Tokens {
    /** The spec's {@code Wrong}: what a model emits from corrupted KV; never a reference token. */
    public static final int WRONG = -1;

    private Tokens() {}
}
