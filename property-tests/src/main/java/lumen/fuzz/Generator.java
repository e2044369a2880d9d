package lumen.fuzz;

import java.util.List;
import java.util.SplittableRandom;
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

    /** One rule applied to one base, with the draw's randomness: the mutant, or null when the rule does not apply to it. */
    interface Apply<R, B> {
        Mutant apply(R rule, B base, SplittableRandom r);
    }

    /**
     * Mutant {@code i} of {@code rules} over {@code bases}: rule {@code i mod rules}, applied to bases
     * drawn from {@code seed} and {@code i} until one takes it (at most 50 draws).
     */
    static <R, B> Mutant draw(List<R> rules, List<B> bases, long seed, long i, Apply<R, B> apply, java.util.function.Function<R, String> name,
            String basesInWords) {
        R rule = rules.get((int) (i % rules.size()));
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
        for (int attempt = 0; attempt < 50; attempt++) {
            Mutant m = apply.apply(rule, TraceText.pick(bases, r), r);
            if (m != null) {
                return m;
            }
        }
        throw new IllegalStateException("rule " + name.apply(rule) + " applies to none of the " + basesInWords);
    }
}
