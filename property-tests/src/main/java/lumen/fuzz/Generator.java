package lumen.fuzz;

import java.util.List;
import lumen.fuzz.ReaderMutator.Expect;
import lumen.fuzz.ReaderMutator.Mutant;

/**
 * A seeded source of mutated inputs of one kind: mutant {@code i} is rule {@code i mod rules}
 * applied to a base drawn from {@code i} and the seed, so the same seed and index give the same
 * mutant and every rule gets its share.
 */
public interface Generator {
    /** A rule: its name, what the reader must conclude of its mutants, and the docs' rule it follows. */
    record Label(String name, Expect expect, String doc) {}

    InputKind kind();

    /** The rules, in the order mutants cycle through them. */
    List<Label> labels();

    Mutant mutant(long i);

    /** How many valid inputs the mutants start from. */
    int bases();

    /** The same rules over the same bases, drawn from another seed. */
    Generator withSeed(long seed);
}
