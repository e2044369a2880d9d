package lumen.props;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Bug;
import lumen.core.ClusterState;
import lumen.core.Config;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.SimpleCostModel;
import lumen.trace.TraceWriter;
import lumen.validate.Mirror;

/** Records the trace (contract v2) of one schedule run on the reference runtime, or on a mutant of it. */
public final class ScheduleTraces {
    private ScheduleTraces() {}

    public static byte[] record(Schedule sc) {
        return record(sc, null);
    }

    /**
     * The trace a mutant implementation ({@code bug}, null for none) reports for the schedule, as
     * its adapter writes it (placements citing their reservations).
     */
    public static byte[] record(Schedule sc, Bug bug) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Config cfg = sc.config();
        if (bug != null) {
            bug.reset();
        }
        try (TraceWriter w = new TraceWriter(buf, cfg)) {
            w.flush();
            // the state the events reported so far describe, for the bug's rewrites
            Mirror seen = new Mirror(cfg, 0);
            ClusterRuntime[] self = {null};
            Config run = Bug.running(bug, cfg);
            ClusterRuntime rt = new ClusterRuntime(run, Bug.deciding(bug, run), SimpleCostModel.fastReload(),
                    bug == null ? sc.options() : bug.options(sc.options()), (e, t) -> {
                        ClusterState before = seen.state();
                        for (lumen.core.Event shown : bug == null ? java.util.List.of(e) : bug.rewriteAll(before, e, cfg)) {
                            buf.writeBytes((Adapter.line(shown, t, seen.state(), self[0].before(), bug, cfg) + "\n").getBytes(StandardCharsets.UTF_8));
                            seen.step(shown, 0, self[0].before().citedFor(shown));
                        }
                    });
            self[0] = rt;
            rt.run(sc.arrivals(), sc.faults());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return buf.toByteArray();
    }
}
