package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#GATEWAY_NO_FENCE}, as its own program on the adapter protocol. */
public final class GatewayNoFence {
    private GatewayNoFence() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.GATEWAY_NO_FENCE);
    }
}
