package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#ACCEPTS_UNVERIFIED_DRAFT}, as its own program on the adapter protocol. */
public final class AcceptsUnverifiedDraft {
    private AcceptsUnverifiedDraft() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.ACCEPTS_UNVERIFIED_DRAFT);
    }
}
