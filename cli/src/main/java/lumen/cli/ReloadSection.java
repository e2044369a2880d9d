package lumen.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;
import lumen.plots.SimPlots;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;

/**
 * The reload-time section of docs/reproduction.md: LUMEN's gains against Stop-and-Restart and
 * Fixed-Checkpointing as the full model's reload grows from seconds to the paper's 10 to 12
 * minutes, in a table and a figure with the calibrated reload marked.
 */
final class ReloadSection {
    private ReloadSection() {}

    private static final String SR = "stop-and-restart";
    private static final String FC = "fixed-checkpointing";
    private static final String LUMEN = "lumen";

    static void render(StringBuilder b, ReproductionDoc.Runs runs, Path figs, String rel) throws Exception {
        int seeds = runs.reloads().values().iterator().next().size();
        b.append(String.format(Locale.ROOT, "## Reload time, from seconds to the paper's minutes (4-worker prototype, load %.0f%%)%n%n", 100 * runs.p4().load()));
        b.append(String.format(Locale.ROOT, "The full model's reload sets how long the survivors carry the failed worker's share, and how long the "
                + "recovering worker's draft can assist (it is ready 4.5 s after the failure: restart 3 s, draft load 1.5 s). The paper's notes "
                + "put a full reload at 10 to 12 minutes; the calibration chose %.0f s (marked). Runs of %s s of arrivals, so that a 12-minute "
                + "reload ends inside the run; %d seeds per reload, each drawing the failure moment between 100 and 400 s. Changes are the mean "
                + "over seeds of each seed's paired change; a recovery change is over the seeds where both policies recover.%n%n",
                runs.p4().reloadS(), ReproduceCommand.RELOAD_DURATION_S, seeds));
        b.append("| reload | TTFT S&R / FC / LUMEN (s) | LUMEN vs S&R TTFT | LUMEN vs FC TTFT | recovery S&R / FC / LUMEN (s, the paper's) "
                + "| recovery S&R / FC / LUMEN (s, noise-aware) | LUMEN vs S&R recovery (noise-aware) | LUMEN vs FC recovery (noise-aware) |\n"
                + "|---|---|---|---|---|---|---|---|\n");
        Map<String, List<double[]>> pts = SimPlots.ordered();
        for (String k : List.of("LUMEN vs S&R, TTFT", "LUMEN vs FC, TTFT", "LUMEN vs S&R, recovery", "LUMEN vs FC, recovery")) {
            pts.put(k, new ArrayList<>());
        }
        ToDoubleFunction<SimMetrics.Summary> ttft = x -> x.ttftAll().mean();
        for (Map.Entry<String, List<Map<String, Future<SimResult>>>> e : runs.reloads().entrySet()) {
            double reload = Double.parseDouble(e.getKey());
            List<Map<String, SimMetrics.Summary>> s = ReproduceCommand.summarizeAll(e.getValue());
            boolean chosen = reload == runs.p4().reloadS();
            b.append("| ").append(chosen ? "**" + e.getKey() + " s** (calibrated)" : e.getKey() + " s").append(" | ");
            for (String p : new String[] {SR, FC, LUMEN}) {
                b.append(p.equals(SR) ? "" : " / ").append(ReproduceCommand.cell(s, p, ttft, 1000, "%.2f"));
            }
            b.append(" | ").append(ReproductionDoc.change(s, LUMEN, SR, ttft)).append(" | ").append(ReproductionDoc.change(s, LUMEN, FC, ttft)).append(" | ");
            for (String p : new String[] {SR, FC, LUMEN}) {
                b.append(p.equals(SR) ? "" : " / ").append(ReproductionDoc.recovery(s, p, SimMetrics.Summary::paperRecoveryMs));
            }
            b.append(" | ");
            for (String p : new String[] {SR, FC, LUMEN}) {
                b.append(p.equals(SR) ? "" : " / ").append(ReproductionDoc.recovery(s, p));
            }
            b.append(" | ").append(ReproductionDoc.change(s, LUMEN, SR, SimMetrics.Summary::recoveryMs)).append(" | ")
                    .append(ReproductionDoc.change(s, LUMEN, FC, SimMetrics.Summary::recoveryMs)).append(" |\n");
            point(pts.get("LUMEN vs S&R, TTFT"), reload, ReproductionDoc.changes(s, LUMEN, SR, ttft));
            point(pts.get("LUMEN vs FC, TTFT"), reload, ReproductionDoc.changes(s, LUMEN, FC, ttft));
            point(pts.get("LUMEN vs S&R, recovery"), reload, ReproductionDoc.changes(s, LUMEN, SR, SimMetrics.Summary::recoveryMs));
            point(pts.get("LUMEN vs FC, recovery"), reload, ReproductionDoc.changes(s, LUMEN, FC, SimMetrics.Summary::recoveryMs));
        }
        SimPlots.xy(pts, "full model reload (s, log scale)", "change (%; negative: LUMEN better)", true, runs.p4().reloadS(), figs, "reload-gains");
        b.append("\n![LUMEN's gains by reload time](").append(rel).append("/reload-gains.png)\n\n");
        b.append("\"never\": the policy did not recover within the run in any seed; \"n/a\": no seed where both recovered.\n\n");
    }

    /** The mean of a reload's changes, in percent, where there is one. */
    private static void point(List<double[]> series, double reload, double[] changes) {
        if (changes.length > 0) {
            series.add(new double[] {reload, 100 * java.util.Arrays.stream(changes).average().orElseThrow()});
        }
    }
}
