package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#HOLDER_IS_SERVER}, as its own program on the adapter protocol. */
public final class HolderIsServer {
    private HolderIsServer() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.HOLDER_IS_SERVER);
    }
}
