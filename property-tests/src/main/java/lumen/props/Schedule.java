package lumen.props;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import lumen.core.Config;
import lumen.runtime.Arrival;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.Fault;

/**
 * One generated test case: a cluster configuration, a workload, the failures to inject, and the
 * draft's agreement with the target. Plain data, so any property-testing framework can generate,
 * shrink and print it.
 */
public record Schedule(Config config, double draftAgreement, List<Arrival> arrivals, List<Fault> faults, String workload) {

    public Schedule {
        arrivals = List.copyOf(arrivals);
        faults = List.copyOf(faults);
    }

    public ClusterRuntime.Options options() {
        return ClusterRuntime.Options.defaults(config.pageTokens()).withDraftAgreement(draftAgreement);
    }

    public Schedule withArrivals(List<Arrival> a) {
        return new Schedule(config, draftAgreement, a, faults, workload);
    }

    public Schedule withFaults(List<Fault> f) {
        return new Schedule(config, draftAgreement, arrivals, f, workload);
    }

    /** A size for shrinking: fewer requests, faults and tokens is smaller. */
    public long size() {
        long s = 1000L * faults.size() + 100L * arrivals.size() + config.workers();
        for (Arrival a : arrivals) {
            s += a.promptLen() + a.outLen();
        }
        for (Fault f : faults) {
            // a gray failure is bigger than a crash, and a partition than a pause: the shrinker makes them plainer
            s += (long) f.afterMs() + (f.paused() ? 500 : 0) + (f.partitioned() ? 250 : 0);
        }
        return s;
    }

    /** The schedule as a readable timeline. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "policy %s, %d workers, alpha %s beta %s theta %s tau %d budget %d, page %d, k %d, %s, draft agreement %.2f, lengths %s%n",
                config.policy(), config.workers(), config.alpha(), config.beta(), config.theta(), config.tau(), config.budget(),
                config.pageTokens(), config.k(), config.readings().describe(), draftAgreement, workload));
        List<String> lines = new ArrayList<>();
        for (Arrival a : arrivals) {
            lines.add(String.format(Locale.ROOT, "%10.1f ms  request %d arrives: prompt %d, output %d tokens", a.atMs(), a.id(), a.promptLen(), a.outLen()));
        }
        for (Fault f : faults) {
            lines.add(String.format(Locale.ROOT, "%10.1f ms  worker %d %s %s", f.afterMs(), f.worker(),
                    f.partitioned() ? String.format(Locale.ROOT, "is cut off from the gateway for %.1f ms (declared failed, it works on as a zombie;"
                            + " its tokens and acks %s)", f.pauseMs(), f.partition() == Fault.Partition.LOST ? "lost" : "delayed to the heal")
                    : f.paused() ? String.format(Locale.ROOT, "pauses for %.1f ms (declared failed, it wakes a zombie)", f.pauseMs()) : "fails",
                    f.point() == Fault.Point.AT_TIME ? "" : "(at the first " + f.point().name().toLowerCase(Locale.ROOT).replace('_', '-') + " from then)"));
        }
        lines.sort(null);
        for (String l : lines) {
            b.append(l).append(System.lineSeparator());
        }
        return b.toString();
    }
}
