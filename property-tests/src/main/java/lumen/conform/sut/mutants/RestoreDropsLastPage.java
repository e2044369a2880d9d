package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#RESTORE_DROPS_LAST_PAGE}, as its own program on the adapter protocol. */
public final class RestoreDropsLastPage {
    private RestoreDropsLastPage() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.RESTORE_DROPS_LAST_PAGE);
    }
}
