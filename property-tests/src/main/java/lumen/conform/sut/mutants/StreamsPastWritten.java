package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#STREAMS_PAST_WRITTEN}, as its own program on the adapter protocol. */
public final class StreamsPastWritten {
    private StreamsPastWritten() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.STREAMS_PAST_WRITTEN);
    }
}
