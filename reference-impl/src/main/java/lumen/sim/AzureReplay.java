package lumen.sim;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import lumen.runtime.Arrival;

/**
 * Replays an Azure LLM inference trace (2023, conv or code; shipped in {@code lumen/data/} with its
 * provenance): each row's arrival time, prompt tokens and output tokens. {@code rateScale} > 1
 * compresses time (more requests per second), < 1 stretches it. The run keeps the rows that
 * arrive within its duration after {@code startMs} (in compressed time: a later stretch of the
 * trace, shifted to start at 0).
 */
public final class AzureReplay implements Workload {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSS");

    private final String which;
    private final double rateScale;
    private final double startMs;

    /** @param which {@code conv} or {@code code} */
    public AzureReplay(String which, double rateScale) {
        this(which, rateScale, 0);
    }

    /** The replay from {@code startMs} of the compressed trace on. */
    public AzureReplay(String which, double rateScale, double startMs) {
        if (!which.equals("conv") && !which.equals("code")) {
            throw new IllegalArgumentException("the Azure traces are conv and code, not '" + which + "'");
        }
        if (!(rateScale > 0)) {
            throw new IllegalArgumentException("rate scale must be positive, not " + rateScale);
        }
        if (!(startMs >= 0)) {
            throw new IllegalArgumentException("the trace's start must be 0 or more, not " + startMs);
        }
        this.which = which;
        this.rateScale = rateScale;
        this.startMs = startMs;
    }

    @Override
    public String name() {
        return "azure-" + which + (rateScale == 1 ? "" : "-x" + rateScale) + (startMs == 0 ? "" : "-from" + Math.round(startMs / 1000) + "s");
    }

    @Override
    public List<Arrival> arrivals(double durationMs, SplittableRandom rnd) {
        String res = "/lumen/data/AzureLLMInferenceTrace_" + which + ".csv";
        List<Arrival> out = new ArrayList<>();
        try (InputStream in = AzureReplay.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalStateException("the kit's data file " + res + " is missing from the class path");
            }
            MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                    .with(CsvSchema.emptySchema().withHeader()).readValues(in);
            LocalDateTime first = null;
            while (it.hasNext()) {
                Map<String, String> r = it.next();
                LocalDateTime t = LocalDateTime.parse(r.get("TIMESTAMP").trim(), TS);
                if (first == null) {
                    first = t;
                }
                double at = ChronoUnit.NANOS.between(first, t) / 1e6 / rateScale - startMs;
                if (at > durationMs) {
                    break;
                }
                if (at < 0) {
                    continue;
                }
                int prompt = Math.max(1, Integer.parseInt(r.get("ContextTokens").trim()));
                int output = Math.max(1, Integer.parseInt(r.get("GeneratedTokens").trim()));
                out.add(new Arrival(out.size(), at, prompt, output, rnd.nextLong()));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("reading " + res, ex);
        }
        return out;
    }
}
