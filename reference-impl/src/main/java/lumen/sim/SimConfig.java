package lumen.sim;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.core.Policies;
import lumen.runtime.Arrival;
import lumen.workload.Lengths;

/**
 * The simulator's configuration: the commented defaults ({@code lumen/sim/default.properties}),
 * a user's file and command-line overrides on top, and the expansion of list values into a
 * sweep of experiments. Each experiment is one {@link Experiment}: a workload, a failure, and the
 * policies to compare on it.
 */
public final class SimConfig {

    /** A key's value that cannot be used, with where it came from. */
    public static final class BadValue extends IllegalArgumentException {
        public BadValue(String message) {
            super(message);
        }
    }

    private final Map<String, String> values;
    private final String source;

    private SimConfig(Map<String, String> values, String source) {
        this.values = values;
        this.source = source;
    }

    /** The defaults file, as shipped (for --print-config). */
    public static String defaultsText() {
        try (InputStream in = SimConfig.class.getResourceAsStream("/lumen/sim/default.properties")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The defaults, then {@code file} (may be null), then {@code overrides} ("key=value"). */
    public static SimConfig load(Reader file, String fileName, List<String> overrides) throws IOException {
        Properties p = new Properties();
        p.load(new java.io.StringReader(defaultsText()));
        Map<String, String> m = new LinkedHashMap<>();
        p.stringPropertyNames().stream().sorted().forEach(k -> m.put(k, p.getProperty(k).trim()));
        String src = "the defaults";
        if (file != null) {
            Properties f = new Properties();
            f.load(file);
            for (String k : f.stringPropertyNames()) {
                if (!m.containsKey(k)) {
                    throw new BadValue(fileName + ": unknown key '" + k + "' (lumen simulate --print-config lists them)");
                }
                m.put(k, f.getProperty(k).trim());
            }
            src = fileName;
        }
        for (String o : overrides) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new BadValue("--set " + o + ": expected key=value");
            }
            String k = o.substring(0, eq).trim();
            if (!m.containsKey(k)) {
                throw new BadValue("--set " + o + ": unknown key '" + k + "' (lumen simulate --print-config lists them)");
            }
            m.put(k, o.substring(eq + 1).trim());
        }
        return new SimConfig(m, src);
    }

    /** Every combination of the list-valued keys (policies excepted), in a stable order. */
    public List<Experiment> expand() {
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        List<String> axes = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            List<String> vs = split(e.getValue());
            if (vs.size() > 1 && !e.getKey().equals("policies")) {
                axes.add(e.getKey());
            }
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> c : combos) {
                for (String v : e.getKey().equals("policies") ? List.of(e.getValue()) : vs) {
                    Map<String, String> d = new LinkedHashMap<>(c);
                    d.put(e.getKey(), v);
                    next.add(d);
                }
            }
            combos = next;
        }
        List<Experiment> out = new ArrayList<>();
        for (Map<String, String> c : combos) {
            out.add(new Experiment(c, axes, source));
        }
        return out;
    }

    static List<String> split(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    /** One experiment: the values of every key, and which keys the sweep varies. */
    public record Experiment(Map<String, String> values, List<String> axes, String source) {

        public String label() {
            if (axes.isEmpty()) {
                return "default";
            }
            StringBuilder b = new StringBuilder();
            for (String a : axes) {
                b.append(b.length() == 0 ? "" : " ").append(a).append('=').append(values.get(a));
            }
            return b.toString();
        }

        private String raw(String k) {
            return values.get(k);
        }

        public double number(String k) {
            try {
                return Double.parseDouble(raw(k));
            } catch (NumberFormatException ex) {
                throw new BadValue(source + ": key '" + k + "' must be a number, found '" + raw(k) + "'");
            }
        }

        public int whole(String k) {
            try {
                return Integer.parseInt(raw(k));
            } catch (NumberFormatException ex) {
                throw new BadValue(source + ": key '" + k + "' must be a whole number, found '" + raw(k) + "'");
            }
        }

        public Preset preset() {
            try {
                return Preset.of(raw("preset"));
            } catch (IllegalArgumentException ex) {
                throw new BadValue(source + ": key 'preset': " + ex.getMessage());
            }
        }

        public int workers() {
            int w = whole("workers");
            w = w == 0 ? preset().defaultWorkers : w;
            if (w < 2) {
                throw new BadValue(source + ": key 'workers' must be at least 2, found " + w);
            }
            return w;
        }

        public List<String> policies() {
            List<String> ps = split(raw("policies"));
            for (String p : ps) {
                if (Policies.find(p) == null) {
                    throw new BadValue(source + ": key 'policies': unknown policy '" + p + "'; known: " + String.join(", ", Policies.keys()));
                }
            }
            if (ps.isEmpty()) {
                throw new BadValue(source + ": key 'policies' names no policy");
            }
            return ps;
        }

        public Workload workload() {
            try {
                return switch (raw("workload")) {
                    case "azure-conv" -> new AzureReplay("conv", number("rate_scale"));
                    case "azure-code" -> new AzureReplay("code", number("rate_scale"));
                    case "poisson" -> new SyntheticWorkload(number("rate"), 1, lengths());
                    case "gamma" -> new SyntheticWorkload(number("rate"), number("cv"), lengths());
                    default -> throw new BadValue(source + ": key 'workload': unknown workload '" + raw("workload")
                            + "'; choose azure-conv, azure-code, poisson or gamma");
                };
            } catch (BadValue ex) {
                throw ex;
            } catch (IllegalArgumentException ex) {
                throw new BadValue(source + ": " + ex.getMessage());
            }
        }

        private Lengths.Source lengths() {
            try {
                return Lengths.Source.valueOf(raw("lengths").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ex) {
                throw new BadValue(source + ": key 'lengths' must be sharegpt, arxiv, azure_conv or azure_code, found '" + raw("lengths") + "'");
            }
        }

        public List<Arrival> arrivals() {
            double d = number("duration_s");
            if (!(d > 0)) {
                throw new BadValue(source + ": key 'duration_s' must be positive");
            }
            return workload().arrivals(d * 1000, new SplittableRandom(whole("seed")));
        }

        /** The failing workers: {@code fail_fraction} of them (at least one), chosen by the seed. */
        public SimResult.Failure failure() {
            double f = number("fail_fraction");
            if (!(f > 0 && f < 1)) {
                throw new BadValue(source + ": key 'fail_fraction' must be strictly between 0 and 1, found " + f);
            }
            int w = workers();
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < w; i++) {
                ids.add(i);
            }
            java.util.Collections.shuffle(ids, new java.util.Random(whole("seed")));
            int n = Math.max(1, (int) Math.round(f * w));
            return new SimResult.Failure(number("fail_at_s") * 1000, ids.subList(0, n).stream().mapToInt(Integer::intValue).sorted().toArray());
        }

        public Simulator.Options options(String policy) {
            Preset p = preset();
            long budget = (long) (number("budget_gb") * 1e9 / p.kvBytesPerToken());
            Config c = new Config(policy, workers(), number("alpha"), number("beta"), number("theta"), whole("tau"), budget, 16, whole("k"));
            return new Simulator.Options(c, p.costModel(), whole("chunk_tokens"), whole("max_batch"), number("draft_acceptance"),
                    number("draft_acceptance_cold"), number("draft_warmup_proposals"), whole("seed"));
        }
    }
}
