package lumen.props;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.SimpleCostModel;
import lumen.trace.TraceWriter;

/** Records the trace (contract v1) of one schedule run on the reference runtime. */
public final class ScheduleTraces {
    private ScheduleTraces() {}

    public static byte[] record(Schedule sc) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, sc.config())) {
            ClusterRuntime rt = new ClusterRuntime(sc.config(), SimpleCostModel.fastReload(), sc.options(), (e, t) -> {
                try {
                    w.write(e, Math.round(t * 1000) / 1000.0);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
            rt.run(sc.arrivals(), sc.faults());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return buf.toByteArray();
    }
}
