package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#RECOMPUTES_WRONG_KV}, as its own program on the adapter protocol. */
public final class RecomputesWrongKv {
    private RecomputesWrongKv() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.RECOMPUTES_WRONG_KV);
    }
}
