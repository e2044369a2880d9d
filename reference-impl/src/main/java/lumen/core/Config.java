package lumen.core;

/**
 * The constants of the spec that a run fixes, as the trace header carries them. Every length is
 * in the spec's unit, one context position ("page" in the spec); {@code pageTokens} is the
 * runtime's physical page, the granularity it streams and restores in.
 *
 * @param policy     the recovery policy's key in {@link Policies}
 * @param workers    |W|; workers are numbered 0..workers-1
 * @param alpha      Eq. 4 weight of checkpointed positions
 * @param beta       Eq. 4 weight of queue depth
 * @param theta      Eq. 6 load threshold
 * @param tau        Eq. 6 prefix-length threshold, in positions
 * @param budget     Eq. 5 M_budget: positions one holder may store
 * @param pageTokens positions per physical KV page
 * @param k          draft length: tokens a draft proposes at most
 * @param readings   the paper's readings where it is ambiguous ({@link Readings})
 */
public record Config(String policy, int workers, double alpha, double beta, double theta, int tau,
                     long budget, int pageTokens, int k, Readings readings) {

    /** A config under the default readings. */
    public Config(String policy, int workers, double alpha, double beta, double theta, int tau,
                  long budget, int pageTokens, int k) {
        this(policy, workers, alpha, beta, theta, tau, budget, pageTokens, k, Readings.DEFAULT);
    }

    public Config {
        require(policy != null && Policies.find(policy) != null, "policy", "unknown policy '" + policy + "'; known: " + Policies.keys());
        require(workers >= 2, "workers", "at least 2 workers are needed, got " + workers);
        require(alpha >= 0 && Double.isFinite(alpha), "alpha", "must be a finite number >= 0, got " + alpha);
        require(beta >= 0 && Double.isFinite(beta), "beta", "must be a finite number >= 0, got " + beta);
        require(!Double.isNaN(theta), "theta", "must be a number");
        require(tau >= 0, "tau", "must be >= 0, got " + tau);
        require(budget >= 0, "budget", "must be >= 0, got " + budget);
        require(pageTokens >= 1, "pageTokens", "must be >= 1, got " + pageTokens);
        require(k >= 1, "k", "must be >= 1, got " + k);
        require(readings != null, "readings", "must be given");
    }

    private static void require(boolean ok, String field, String message) {
        if (!ok) {
            throw new IllegalArgumentException(field + ": " + message);
        }
    }

    /** The defaults of the runtime and of the named scenarios. */
    public static Config defaults(String policy) {
        return new Config(policy, 4, 1.0, 1.0, 64.0, 32, 4096, 16, 4);
    }

    public Config withPolicy(String p) {
        return new Config(p, workers, alpha, beta, theta, tau, budget, pageTokens, k, readings);
    }

    public Config withWorkers(int w) {
        return new Config(policy, w, alpha, beta, theta, tau, budget, pageTokens, k, readings);
    }

    public Config withReadings(Readings rd) {
        return new Config(policy, workers, alpha, beta, theta, tau, budget, pageTokens, k, rd);
    }

    public RecoveryPolicy recoveryPolicy() {
        return Policies.find(policy);
    }
}
