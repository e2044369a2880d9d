package lumen.fuzz;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The kinds of input the kit reads, each fuzzed with rules of its own: whole atomic traces, traces
 * with begin and end forms, partial traces, per-process logs, and client histories.
 */
public enum InputKind {
    /** A whole trace, one atomic event per spec action (docs/trace-format.md). */
    ATOMIC("atomic", "whole traces of atomic events"),
    /** A trace whose header declares {@code "steps":"begin-end"} (docs/trace-format.md, Begin and end). */
    BEGIN_END("begin-end", "traces with begin, chunk and end lines"),
    /** A trace whose header declares what the system {@code "observes"} (docs/trace-format.md, Partial traces). */
    PARTIAL("partial", "partial traces"),
    /** One run's per-process logs with vector or Lamport clocks (docs/trace-format.md, Per-process logs). */
    PROCESS_LOGS("per-process", "per-process logs with clocks"),
    /** A client history (docs/history-format.md). */
    HISTORY("history", "client histories");

    private final String label;
    private final String words;

    InputKind(String label, String words) {
        this.label = label;
        this.words = words;
    }

    /** The name {@code --kind} takes and the report prints. */
    public String label() {
        return label;
    }

    /** What the kind is, in words. */
    public String words() {
        return words;
    }

    /** The kind a label names. */
    public static InputKind of(String label) {
        for (InputKind k : values()) {
            if (k.label.equals(label.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown input kind '" + label + "'; choose " + labels());
    }

    /** Every kind's label, in order, comma-separated. */
    public static String labels() {
        return String.join(", ", Arrays.stream(values()).map(InputKind::label).toList());
    }

    /** Every kind. */
    public static List<InputKind> all() {
        return List.of(values());
    }
}
