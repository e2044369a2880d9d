package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#ROUTES_TO_FAILED_WORKER}, as its own program on the adapter protocol. */
public final class RoutesToFailedWorker {
    private RoutesToFailedWorker() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.ROUTES_TO_FAILED_WORKER);
    }
}
