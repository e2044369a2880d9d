package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#SELF_REFERENCED_OUTPUT}, as its own program on the adapter protocol. */
public final class SelfReferencedOutput {
    private SelfReferencedOutput() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.SELF_REFERENCED_OUTPUT);
    }
}
