package lumen.conform;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the kit sent and got in one run of one schedule, numbered by step: step 1 is the run's
 * {@code init}, step 2 the command after it, and so on, counted again from 1 in every run. It
 * keeps each step's command and ack and, for every trace line, the step whose reply held it;
 * the trace itself stays with the run.
 */
public final class Session {

    /** The longest command a report shows in full; a longer one is cut, with its length. */
    public static final int SHOWN_BYTES = 200;

    /**
     * One command of a run.
     *
     * @param n   its number in the run: 1 is the init
     * @param cmd the command line the kit sent
     */
    public record Step(int n, String cmd) {
        /** The command, cut to about {@value Session#SHOWN_BYTES} bytes if it is longer. */
        public String shownCmd() {
            byte[] b = cmd.getBytes(StandardCharsets.UTF_8);
            if (b.length <= SHOWN_BYTES) {
                return cmd;
            }
            int end = SHOWN_BYTES;
            while (end > 0 && (b[end] & 0xC0) == 0x80) {
                end--;   // not inside a UTF-8 sequence
            }
            return new String(b, 0, end, StandardCharsets.UTF_8) + "... (" + b.length + " bytes)";
        }

        /** "step 4 of the schedule: {...}". */
        public String describe() {
            return "step " + n + " of the schedule: " + shownCmd();
        }
    }

    private final List<String> commands = new ArrayList<>();
    private final List<String> acks = new ArrayList<>();
    private int[] stepOfLine = new int[256];
    private int lines;

    Session() {
        line(0);   // trace line 1, the header, is the kit's own
    }

    /** Records the next command sent; returns its step. */
    Step send(String cmd) {
        commands.add(cmd);
        return current();
    }

    /** Records the current step's ack line. */
    void ack(String line) {
        acks.add(line);
    }

    /** Records that the next trace line came in the reply to the current step. */
    void event() {
        line(commands.size());
    }

    private void line(int step) {
        if (lines == stepOfLine.length) {
            stepOfLine = Arrays.copyOf(stepOfLine, 2 * lines);
        }
        stepOfLine[lines++] = step;
    }

    /** The commands sent. */
    public int steps() {
        return commands.size();
    }

    /** Step {@code n} (1 = init). */
    public Step step(int n) {
        return new Step(n, commands.get(n - 1));
    }

    /** The latest step sent, or null before the init. */
    public Step current() {
        return commands.isEmpty() ? null : step(commands.size());
    }

    /** The ack of step {@code n}, or null when none came (the step misbehaved). */
    public String ack(int n) {
        return n <= acks.size() ? acks.get(n - 1) : null;
    }

    /** The trace lines recorded, the header included. */
    public int lines() {
        return lines;
    }

    /** The step whose reply held trace line {@code line} (1 = the header: none), or null. */
    public Step stepOfLine(long line) {
        if (line < 2 || line > lines) {
            return null;
        }
        return step(stepOfLine[(int) line - 1]);
    }
}
