package lumen.spec.manifest;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One model of the manifest: a TLC run and the result it must give.
 *
 * @param name           the model's name, unique in the manifest ("MCLumen", "MutHolderIsServer")
 * @param module         the root module, relative to spec/
 * @param config         the TLC config, relative to spec/
 * @param tier           "ci" (checked by the build, on every change), "full" (the full-size models,
 *                       before a release: {@code lumen check --full}) or "large" (on demand,
 *                       {@code lumen check --large}, which includes the full tier)
 * @param mode           "exhaustive" (breadth-first, every reachable state)
 * @param expect         "pass"; "violation" for a mutant (a seeded bug the property must catch);
 *                       "witness" for a scenario that must be reachable (TLC must refute the
 *                       property that claims it never happens)
 * @param property       for a mutant or witness, the operator TLC must report violated
 * @param overrides      for a mutant, the one definition its config overrides
 * @param distinctStates for a passing model, the distinct states TLC must find
 * @param depth          for a passing model, the depth TLC must reach
 * @param statesGenerated for a passing model, the states TLC generated at the last recorded run
 *                       (informational: the build compares distinct states and depth only)
 * @param seconds        the wall time of the last recorded run ({@code lumen check --update-manifest},
 *                       2 TLC workers on the machine that recorded it; informational, times vary)
 * @param description    what the model checks, in words
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"name", "module", "config", "tier", "mode", "expect", "property", "overrides",
        "distinctStates", "depth", "statesGenerated", "seconds", "description"})
public record ModelEntry(
        String name,
        String module,
        String config,
        String tier,
        String mode,
        String expect,
        String property,
        String overrides,
        Long distinctStates,
        Integer depth,
        Long statesGenerated,
        Double seconds,
        String description) {

    /** An entry with no recorded run. */
    public ModelEntry(String name, String module, String config, String tier, String mode, String expect, String property,
                      String overrides, Long distinctStates, Integer depth, String description) {
        this(name, module, config, tier, mode, expect, property, overrides, distinctStates, depth, null, null, description);
    }

    @JsonIgnore
    public boolean expectsPass() {
        return "pass".equals(expect);
    }

    @JsonIgnore
    public boolean isMutant() {
        return "violation".equals(expect);
    }

    @JsonIgnore
    public boolean isWitness() {
        return "witness".equals(expect);
    }

    /** A mutant or a witness: TLC must report {@link #property()} violated. */
    @JsonIgnore
    public boolean expectsViolation() {
        return isMutant() || isWitness();
    }

    @JsonIgnore
    public boolean isLarge() {
        return "large".equals(tier);
    }

    /** In the tier the build checks on every change. */
    @JsonIgnore
    public boolean isCi() {
        return "ci".equals(tier);
    }

    @JsonIgnore
    public boolean isFull() {
        return "full".equals(tier);
    }

    /** Whether a run that asked for the full tier ({@code full}) and the large one ({@code large}) checks this model. */
    public boolean selectedBy(boolean full, boolean large) {
        return isCi() || (isFull() && (full || large)) || (isLarge() && large);
    }

    public ModelEntry withCounts(long distinct, int searchDepth) {
        return new ModelEntry(name, module, config, tier, mode, expect, property, overrides,
                distinct, searchDepth, statesGenerated, seconds, description);
    }

    /** This entry with a run recorded: states generated (passing models; null otherwise) and wall time. */
    public ModelEntry withRun(Long generated, double wallSeconds) {
        return new ModelEntry(name, module, config, tier, mode, expect, property, overrides,
                distinctStates, depth, generated, Math.round(wallSeconds * 10) / 10.0, description);
    }
}
