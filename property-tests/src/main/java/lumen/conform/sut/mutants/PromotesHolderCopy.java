package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#PROMOTES_HOLDER_COPY}, as its own program on the adapter protocol. */
public final class PromotesHolderCopy {
    private PromotesHolderCopy() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.PROMOTES_HOLDER_COPY);
    }
}
