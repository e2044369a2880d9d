package lumen.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import lumen.spec.check.ModelOutcome;
import lumen.spec.tlc.TlcMessage;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows which model is being checked and how far TLC has got. On a terminal it is a live line with
 * the elapsed time and the distinct states found so far (TLC reports them once a minute);
 * elsewhere (CI, pipes) one line when each model starts and ends.
 */
final class Progress {

    private static final Pattern DISTINCT = Pattern.compile("([\\d,]+) distinct states found");

    private final PrintStream err;
    private final boolean live;

    Progress(PrintStream err, boolean live) {
        this.err = err;
        this.live = live;
    }

    static Progress forConsole(boolean quiet) {
        return new Progress(System.err, !quiet && System.console() != null);
    }

    Task start(String model, int index, int total) {
        String label = String.format(Locale.ROOT, "[%d/%d] %s", index, total, model);
        if (!live) {
            err.println(label + " ...");
            return new Task(label, null);
        }
        ProgressBar bar = new ProgressBarBuilder()
                .setTaskName(label)
                .setInitialMax(-1)
                .setUnit(" distinct states", 1)
                .hideEta()
                .continuousUpdate()
                .setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(err))
                .setUpdateIntervalMillis(500)
                .build();
        return new Task(label, bar);
    }

    final class Task {
        private final String label;
        private final ProgressBar bar;

        Task(String label, ProgressBar bar) {
            this.label = label;
            this.bar = bar;
        }

        void message(TlcMessage m) {
            if (bar == null) {
                return;
            }
            Matcher d = DISTINCT.matcher(m.text());
            if ((m.code() == TlcMessage.PROGRESS || m.code() == TlcMessage.STATS) && d.find()) {
                bar.stepTo(Long.parseLong(d.group(1).replace(",", "")));
            }
        }

        void done(ModelOutcome o) {
            if (bar != null) {
                bar.close();
            }
            err.println(label + ": " + ModelRuns.resultText(o.result()) + (o.agrees() ? "" : " (DISAGREES)"));
        }
    }
}
