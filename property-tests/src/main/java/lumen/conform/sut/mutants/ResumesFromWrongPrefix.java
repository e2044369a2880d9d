package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#RESUMES_FROM_WRONG_PREFIX}, as its own program on the adapter protocol. */
public final class ResumesFromWrongPrefix {
    private ResumesFromWrongPrefix() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.RESUMES_FROM_WRONG_PREFIX);
    }
}
