package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#FC_RESTORES_PAST_TAU}, as its own program on the adapter protocol. */
public final class FcRestoresPastTau {
    private FcRestoresPastTau() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.FC_RESTORES_PAST_TAU);
    }
}
