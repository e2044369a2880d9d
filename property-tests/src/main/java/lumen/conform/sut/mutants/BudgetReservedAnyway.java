package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#BUDGET_RESERVED_ANYWAY}, as its own program on the adapter protocol. */
public final class BudgetReservedAnyway {
    private BudgetReservedAnyway() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.BUDGET_RESERVED_ANYWAY);
    }
}
