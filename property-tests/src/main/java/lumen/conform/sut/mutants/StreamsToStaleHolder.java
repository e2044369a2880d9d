package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#STREAMS_TO_STALE_HOLDER}, as its own program on the adapter protocol. */
public final class StreamsToStaleHolder {
    private StreamsToStaleHolder() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.STREAMS_TO_STALE_HOLDER);
    }
}
