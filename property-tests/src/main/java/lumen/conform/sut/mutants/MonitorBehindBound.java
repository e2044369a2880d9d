package lumen.conform.sut.mutants;

import java.io.IOException;
import lumen.conform.sut.Adapter;
import lumen.conform.sut.Mutants;

/** Mutant implementation {@link Mutants#MONITOR_BEHIND_BOUND}, as its own program on the adapter protocol. */
public final class MonitorBehindBound {
    private MonitorBehindBound() {}

    public static void main(String[] args) throws IOException {
        Adapter.serve(System.in, System.out, Mutants.MONITOR_BEHIND_BOUND);
    }
}
