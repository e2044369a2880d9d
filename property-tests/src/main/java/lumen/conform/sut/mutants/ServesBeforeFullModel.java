package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#SERVES_BEFORE_FULL_MODEL}, as its own program on the adapter protocol. */
public final class ServesBeforeFullModel {
    private ServesBeforeFullModel() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.SERVES_BEFORE_FULL_MODEL);
    }
}
