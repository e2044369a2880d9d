package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#RING_WRONG_DIRECTION}, as its own program on the adapter protocol. */
public final class RingWrongDirection {
    private RingWrongDirection() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.RING_WRONG_DIRECTION);
    }
}
