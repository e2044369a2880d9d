package lumen.workload;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Empirical joint distributions of (prompt, output) lengths in tokens, from the public traces
 * shipped in {@code lumen/data/} (provenance and licenses in its NOTICE.md). A sample is one
 * real request's pair, so the heavy tails and the prompt/output correlation are the real ones.
 */
public final class Lengths {

    /** A shipped length distribution. */
    public enum Source {
        /** ShareGPT conversations (Llama-2 tokenizer, total at most 8k): long prompts, long outputs. */
        SHAREGPT("sharegpt_8k_filtered_stats_llama2_tokenizer.csv", "num_prefill_tokens", "num_decode_tokens"),
        /** arXiv summarisation: long prompts, short outputs. */
        ARXIV("arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv", "num_prefill_tokens", "num_decode_tokens"),
        /** Azure LLM inference trace 2023, conversation service. */
        AZURE_CONV("AzureLLMInferenceTrace_conv.csv", "ContextTokens", "GeneratedTokens"),
        /** Azure LLM inference trace 2023, coding service: long prompts, very short outputs. */
        AZURE_CODE("AzureLLMInferenceTrace_code.csv", "ContextTokens", "GeneratedTokens");

        final String file;
        final String promptColumn;
        final String outputColumn;

        Source(String file, String promptColumn, String outputColumn) {
            this.file = file;
            this.promptColumn = promptColumn;
            this.outputColumn = outputColumn;
        }
    }

    private static final Map<Source, Lengths> LOADED = new EnumMap<>(Source.class);

    private final Source source;
    private final int[] prompt;
    private final int[] output;

    private Lengths(Source source, int[] prompt, int[] output) {
        this.source = source;
        this.prompt = prompt;
        this.output = output;
    }

    /** The distribution, read once from the shipped file. */
    public static synchronized Lengths of(Source s) {
        return LOADED.computeIfAbsent(s, Lengths::load);
    }

    private static Lengths load(Source s) {
        String res = "/lumen/data/" + s.file;
        try (InputStream in = Lengths.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalStateException("the kit's data file " + res + " is missing from the class path");
            }
            CsvMapper m = new CsvMapper();
            MappingIterator<Map<String, String>> it = m.readerForMapOf(String.class).with(CsvSchema.emptySchema().withHeader()).readValues(in);
            int[] p = new int[1024];
            int[] o = new int[1024];
            int n = 0;
            while (it.hasNext()) {
                Map<String, String> row = it.next();
                if (n == p.length) {
                    p = java.util.Arrays.copyOf(p, 2 * n);
                    o = java.util.Arrays.copyOf(o, 2 * n);
                }
                p[n] = Integer.parseInt(row.get(s.promptColumn).trim());
                o[n] = Integer.parseInt(row.get(s.outputColumn).trim());
                n++;
            }
            return new Lengths(s, java.util.Arrays.copyOf(p, n), java.util.Arrays.copyOf(o, n));
        } catch (IOException ex) {
            throw new UncheckedIOException("reading " + res, ex);
        }
    }

    public Source source() {
        return source;
    }

    public int size() {
        return prompt.length;
    }

    /** One request's (prompt, output) pair, drawn uniformly from the trace's requests. */
    public int[] sample(SplittableRandom r) {
        int i = r.nextInt(prompt.length);
        return new int[] {prompt[i], output[i]};
    }

    /** The median prompt and output lengths, for reports. */
    public int[] medians() {
        int[] p = prompt.clone();
        int[] o = output.clone();
        java.util.Arrays.sort(p);
        java.util.Arrays.sort(o);
        return new int[] {p[p.length / 2], o[o.length / 2]};
    }
}
