package lumen.sim;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code lumen bench gpu} measured, as JSON: the pinned device-to-host copy ceiling,
 * checkpoint-streaming bandwidth by geometry and page size, a decode step's time alone and while
 * pages stream, restore time against re-prefill time by prefix length, and verification
 * throughput. The simulator's cost model takes its streaming, restore and slowdown figures from
 * a profile measured on a GPU ({@link #applyTo}); a CPU-backend profile is refused.
 */
public record GpuProfile(String backend, String device, String measuredAt, double d2hCeilingGBps, List<Stream> stream,
                         double decodeAloneMs, double decodeStreamingMs, double decodeSlowdown, double restoreGBps,
                         List<Restore> restore, Integer breakEvenTokens, Verify verify) {

    /** Streaming of pages of {@code pageTokens} tokens of one geometry: GB/s, and its share of the copy ceiling. */
    public record Stream(String geometry, int pageTokens, double gbps, double shareOfCeiling) {}

    /** A prefix of {@code prefixTokens}: restored from pinned host memory, against re-prefilled (the cost model's prefill). */
    public record Restore(int prefixTokens, double restoreMs, double reprefillMs) {}

    /** Verification throughput: rows (drafts of k tokens) per second, greedy and rejection sampling over a vocabulary. */
    public record Verify(int k, int vocab, double greedyRowsPerS, double rejectionRowsPerS) {}

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a profile; a missing or malformed file is an IllegalArgumentException naming it and what is wrong. */
    public static GpuProfile read(Path file) {
        try {
            GpuProfile p = JSON.readValue(Files.readString(file), GpuProfile.class);
            if (p.backend() == null || p.stream() == null || p.stream().isEmpty()) {
                throw new IllegalArgumentException(file + ": not a GPU profile written by lumen bench gpu (no backend or stream figures)");
            }
            return p;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(file + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": not a GPU profile: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /**
     * The cost model with this profile's figures: streaming at the lower of the network and the
     * measured streaming bandwidth (16-token pages, the kit's page size, mean over geometries),
     * restores at the measured host-to-device bandwidth, and the measured decode slowdown.
     */
    public ProfiledCostModel applyTo(ProfiledCostModel m, String source) {
        if (!"jcuda".equals(backend)) {
            throw new IllegalArgumentException(source + ": measured on the " + backend + " backend; the cost model takes GPU measurements only");
        }
        double s = stream.stream().filter(x -> x.pageTokens() == 16).mapToDouble(Stream::gbps).average()
                .orElse(stream.stream().mapToDouble(Stream::gbps).average().orElseThrow());
        ProfiledCostModel.Params p = m.params();
        return m.with(p.withLinks(Math.min(p.streamGBps(), s), restoreGBps, Math.max(0, decodeSlowdown)));
    }
}
