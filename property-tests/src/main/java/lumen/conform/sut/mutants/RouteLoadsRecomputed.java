package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#ROUTE_LOADS_RECOMPUTED}, as its own program on the adapter protocol. */
public final class RouteLoadsRecomputed {
    private RouteLoadsRecomputed() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.ROUTE_LOADS_RECOMPUTED);
    }
}
