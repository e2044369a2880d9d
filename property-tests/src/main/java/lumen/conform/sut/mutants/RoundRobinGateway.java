package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#ROUND_ROBIN_GATEWAY}, as its own program on the adapter protocol. */
public final class RoundRobinGateway {
    private RoundRobinGateway() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.ROUND_ROBIN_GATEWAY);
    }
}
