package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#IGNORES_QUEUE_READING}, as its own program on the adapter protocol. */
public final class IgnoresQueueReading {
    private IgnoresQueueReading() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.IGNORES_QUEUE_READING);
    }
}
