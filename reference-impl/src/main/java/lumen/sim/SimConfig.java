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
    private final Map<String, String> origins;

    private SimConfig(Map<String, String> values, Map<String, String> origins) {
        this.values = values;
        this.origins = origins;
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
        Map<String, String> origins = new LinkedHashMap<>();
        m.keySet().forEach(k -> origins.put(k, "the defaults"));
        if (file != null) {
            Properties f = new Properties();
            f.load(file);
            for (String k : f.stringPropertyNames()) {
                if (!m.containsKey(k)) {
                    throw new BadValue(fileName + ": unknown key '" + k + "' (lumen simulate --print-config lists them)");
                }
                m.put(k, f.getProperty(k).trim());
                origins.put(k, fileName);
            }
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
            origins.put(k, "--set " + o);
        }
        return new SimConfig(m, origins);
    }

    /** Every combination of the list-valued keys (policies excepted), in a stable order. */
    public List<Experiment> expand() {
        List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        List<String> axes = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            List<String> vs = split(e.getValue());
            if (vs.isEmpty()) {
                vs = List.of("");
            }
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
            out.add(new Experiment(c, axes, origins, new java.util.concurrent.ConcurrentHashMap<>()));
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

    /**
     * One experiment: the values of every key, which keys the sweep varies, and where each key's value
     * came from (the defaults, the config file, or a --set), which every error message names.
     */
    /**
     * One combination of the sweep axes.
     *
     * @param preFailureLoads per policy, the mean Eq. 4 load before the first failure, measured once
     *                        for a relative theta ({@link #options})
     */
    public record Experiment(Map<String, String> values, List<String> axes, Map<String, String> origins, Map<String, Double> preFailureLoads) {

        private String from(String k) {
            return origins.getOrDefault(k, "the defaults");
        }

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
                throw new BadValue(from(k) + ": key '" + k + "' must be a number, found '" + raw(k) + "'");
            }
        }

        public int whole(String k) {
            try {
                return Integer.parseInt(raw(k));
            } catch (NumberFormatException ex) {
                throw new BadValue(from(k) + ": key '" + k + "' must be a whole number, found '" + raw(k) + "'");
            }
        }

        public Preset preset() {
            try {
                return Preset.of(raw("preset"));
            } catch (IllegalArgumentException ex) {
                throw new BadValue(from("preset") + ": key 'preset': " + ex.getMessage());
            }
        }

        public int workers() {
            int w = whole("workers");
            w = w == 0 ? preset().defaultWorkers : w;
            if (w < 2) {
                throw new BadValue(from("workers") + ": key 'workers' must be at least 2, found " + w);
            }
            return w;
        }

        public List<String> policies() {
            List<String> ps = split(raw("policies"));
            for (String p : ps) {
                if (Policies.find(p) == null) {
                    throw new BadValue(from("policies") + ": key 'policies': unknown policy '" + p + "'; known: " + String.join(", ", Policies.keys()));
                }
            }
            if (ps.isEmpty()) {
                throw new BadValue(from("policies") + ": key 'policies' names no policy");
            }
            return ps;
        }

        public Workload workload() {
            try {
                return switch (raw("workload")) {
                    case "azure-conv" -> new AzureReplay("conv", number("rate_scale"), number("trace_start_s") * 1000);
                    case "azure-code" -> new AzureReplay("code", number("rate_scale"), number("trace_start_s") * 1000);
                    case "poisson" -> new SyntheticWorkload(number("rate"), 1, lengths());
                    case "gamma" -> new SyntheticWorkload(number("rate"), number("cv"), lengths());
                    default -> throw new BadValue(from("workload") + ": key 'workload': unknown workload '" + raw("workload")
                            + "'; choose azure-conv, azure-code, poisson or gamma");
                };
            } catch (BadValue ex) {
                throw ex;
            } catch (IllegalArgumentException ex) {
                throw new BadValue(from("workload") + ": " + ex.getMessage());
            }
        }

        private Lengths.Source lengths() {
            try {
                return Lengths.Source.valueOf(raw("lengths").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ex) {
                throw new BadValue(from("lengths") + ": key 'lengths' must be sharegpt, arxiv, azure_conv or azure_code, found '" + raw("lengths") + "'");
            }
        }

        public List<Arrival> arrivals() {
            double d = number("duration_s");
            if (!(d > 0)) {
                throw new BadValue(from("duration_s") + ": key 'duration_s' must be positive");
            }
            return workload().arrivals(d * 1000, new SplittableRandom(whole("seed")));
        }

        /**
         * The failure events: {@code fail_events} of them, the first at {@code fail_at_s}, then every
         * {@code fail_every_s} ({@code fail_times = fixed}) or after exponential gaps of that mean
         * ({@code random}); each fails {@code fail_fraction} of the workers (at least one), drawn by the
         * seed ({@code fail_workers = random}) or the first event's again ({@code same}); with
         * {@code fail_holder = true} the busiest holder of their checkpoints fails with them (or, where
         * they have none, a worker drawn by the seed, so that every policy loses as many). Every
         * draw comes from the seed, so every policy of an experiment faces the same plan.
         */
        public List<SimResult.Failure> failures() {
            double f = number("fail_fraction");
            if (!(f > 0 && f < 1)) {
                throw new BadValue(from("fail_fraction") + ": key 'fail_fraction' must be strictly between 0 and 1, found " + f);
            }
            int events = whole("fail_events");
            if (events < 0) {
                throw new BadValue(from("fail_events") + ": key 'fail_events' must be 0 or more, found " + events);
            }
            double every = number("fail_every_s");
            if (events > 1 && !(every > 0)) {
                throw new BadValue(from("fail_every_s") + ": key 'fail_every_s' must be positive when fail_events > 1, found " + every);
            }
            double at = number("fail_at_s");
            if (!(at >= 0)) {
                throw new BadValue(from("fail_at_s") + ": key 'fail_at_s' must be 0 or more, found " + at);
            }
            boolean randomTimes = choice("fail_times", "fixed", "random").equals("random");
            boolean same = choice("fail_workers", "random", "same").equals("same");
            boolean holder = choice("fail_holder", "false", "true").equals("true");
            int w = workers();
            int n = Math.max(1, (int) Math.round(f * w));
            if (holder && n + 1 >= w) {
                throw new BadValue(from("fail_holder") + ": key 'fail_holder': with fail_fraction " + f + " and " + w
                        + " workers, the failing workers and a holder would leave none up");
            }
            java.util.Random rnd = new java.util.Random(whole("seed"));
            List<SimResult.Failure> out = new ArrayList<>();
            int[] first = null;
            for (int e = 0; e < events; e++) {
                if (e > 0) {
                    at += randomTimes ? -every * Math.log(1 - rnd.nextDouble()) : every;
                }
                List<Integer> ids = new ArrayList<>();
                for (int i = 0; i < w; i++) {
                    ids.add(i);
                }
                java.util.Collections.shuffle(ids, rnd);
                int[] victims = same && first != null ? first : ids.subList(0, n).stream().mapToInt(Integer::intValue).sorted().toArray();
                first = first == null ? victims : first;
                int[] v = victims;
                int fallback = ids.stream().filter(i -> java.util.Arrays.stream(v).noneMatch(x -> x == i)).findFirst().orElse(-1);
                out.add(new SimResult.Failure(at * 1000, victims, holder, fallback));
            }
            return out;
        }

        private String choice(String k, String... allowed) {
            String v = raw(k);
            if (!List.of(allowed).contains(v)) {
                throw new BadValue(from(k) + ": key '" + k + "' must be " + String.join(" or ", allowed) + ", found '" + v + "'");
            }
            return v;
        }

        private double detectMs() {
            double d = number("detect_s");
            if (!(d >= 0)) {
                throw new BadValue(from("detect_s") + ": key 'detect_s' must be 0 or more, found " + d);
            }
            return d * 1000;
        }

        /** The preset's cost model, or with a GPU profile's measured figures when {@code gpu_profile} names one. */
        private ProfiledCostModel costModel(Preset p) {
            String hw = raw("hardware").isEmpty() ? p.hardware : raw("hardware");
            int tp = whole("tensor_parallel") == 0 ? p.tensorParallel : whole("tensor_parallel");
            ProfiledCostModel m;
            try {
                m = p.costModel(hw, tp);
            } catch (IllegalArgumentException e) {
                throw new BadValue(from(raw("hardware").isEmpty() ? "tensor_parallel" : "hardware") + ": keys 'hardware' and 'tensor_parallel': "
                        + e.getMessage());
            }
            double frac = number("kv_mem_fraction");
            if (!(frac > 0 && frac <= 1)) {
                throw new BadValue(from("kv_mem_fraction") + ": key 'kv_mem_fraction' must be above 0 and at most 1, found " + frac);
            }
            m = m.withKvMemFraction(frac);
            if (m.kvCapacityPositions() <= 0) {
                throw new BadValue(from("kv_mem_fraction") + ": " + p.model.name() + "'s weights (" + String.format(Locale.ROOT, "%.1f",
                        p.model.weightBytes() / 1e9) + " GB) leave no KV memory on " + tp + " x " + hw + " at kv_mem_fraction " + frac);
            }
            double full = number("full_load_s");
            double draft = number("draft_load_s");
            if (!(full >= 0) || !(draft >= 0)) {
                throw new BadValue(from(full >= 0 ? "draft_load_s" : "full_load_s") + ": keys 'full_load_s' and 'draft_load_s' must be 0 or more");
            }
            if (full > 0 || draft > 0) {
                ProfiledCostModel.Params q = m.params();
                m = m.with(q.withLoads(draft > 0 ? draft * 1000 : q.draftLoadMs(), full > 0 ? full * 1000 : q.fullLoadMs()));
            }
            String f = raw("gpu_profile");
            if (f.isEmpty()) {
                return m;
            }
            try {
                return GpuProfile.read(java.nio.file.Path.of(f)).applyTo(m, f);
            } catch (IllegalArgumentException e) {
                throw new BadValue(from("gpu_profile") + ": key 'gpu_profile': " + e.getMessage());
            }
        }

        /** Positions per KV page: the paged-attention block the paper streams and counts Eq. 4 and tau in. */
        public static final int PAGE_TOKENS = 16;
        /** The window before the first failure over which a relative theta's load is averaged, ms. */
        public static final double THETA_WINDOW_MS = 60_000;

        /**
         * The run of one policy. The keys are in the paper's units (loads in KV pages of
         * {@link #PAGE_TOKENS} positions, tau in pages) and are converted to the spec's, whose unit
         * is one position: Eq. 4's load is counted in positions, 16 per page, so {@code alpha} per
         * checkpointed page stays the weight per checkpointed position, {@code beta} and an
         * absolute {@code theta} in pages are multiplied by 16, and {@code tau} becomes tau * 16
         * positions. Every comparison of Eq. 4 and Eq. 6 is the same either way (both sides scale
         * by 16), and the weights stay whole numbers, as the TLC trace check needs. A theta
         * written {@code Nx} is N times the mean Eq. 4 load of the workers over the minute before
         * the first failure, measured on this policy's own run (the run is the same until then).
         */
        public Simulator.Options options(String policy) {
            Preset p = preset();
            long budget = (long) (number("budget_gb") * 1e9 / p.kvBytesPerToken());
            double alpha = number("alpha");
            double beta = number("beta");
            int tau = whole("tau");
            if (!(alpha >= 0) || !(beta >= 0) || tau < 0) {
                throw new BadValue(from(alpha >= 0 ? beta >= 0 ? "tau" : "beta" : "alpha") + ": keys 'alpha', 'beta' and 'tau' must be 0 or more");
            }
            if (whole("max_batch") < 0) {
                throw new BadValue(from("max_batch") + ": key 'max_batch' must be 0 (no cap but the KV pool) or more, found " + raw("max_batch"));
            }
            Config c0 = new Config(policy, workers(), alpha, beta * PAGE_TOKENS, 0, tau * PAGE_TOKENS, budget, PAGE_TOKENS, whole("k"));
            Simulator.Options o = new Simulator.Options(c0, costModel(p), whole("chunk_tokens"), whole("max_batch"), number("draft_acceptance"),
                    number("draft_acceptance_cold"), number("draft_warmup_proposals"), detectMs(), whole("seed"));
            String th = raw("theta").trim();
            double theta;
            if (th.endsWith("x")) {
                double mult = parse("theta", th.substring(0, th.length() - 1).trim());
                if (!(mult >= 0)) {
                    throw new BadValue(from("theta") + ": key 'theta' must be 0 or more times the pre-failure load, found '" + th + "'");
                }
                // only Eq. 6 reads theta; the others' runs keep the multiple as given
                theta = !c0.recoveryPolicy().eq6Routing() ? mult : mult * preFailureLoads.computeIfAbsent(policy, q -> {
                    double at = number("fail_at_s") * 1000;
                    return new Simulator(o, null).meanLoadBefore(arrivals(), at - THETA_WINDOW_MS, at);
                });
            } else {
                theta = number("theta") * PAGE_TOKENS;
            }
            Config c = new Config(policy, c0.workers(), c0.alpha(), c0.beta(), theta, c0.tau(), budget, PAGE_TOKENS, c0.k());
            return new Simulator.Options(c, o.cost(), o.chunkTokens(), o.maxBatch(), o.draftAcceptance(), o.coldAcceptance(), o.warmupProposals(),
                    o.detectMs(), o.seed());
        }

        private double parse(String k, String v) {
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException ex) {
                throw new BadValue(from(k) + ": key '" + k + "' must be a number or a multiple such as 2x, found '" + raw(k) + "'");
            }
        }
    }
}
