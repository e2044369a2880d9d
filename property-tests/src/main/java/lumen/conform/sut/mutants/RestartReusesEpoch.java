package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#RESTART_REUSES_EPOCH}, as its own program on the adapter protocol. */
public final class RestartReusesEpoch {
    private RestartReusesEpoch() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.RESTART_REUSES_EPOCH);
    }
}
