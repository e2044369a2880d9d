package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#ACK_NO_FENCE}, as its own program on the adapter protocol. */
public final class AckNoFence {
    private AckNoFence() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.ACK_NO_FENCE);
    }
}
