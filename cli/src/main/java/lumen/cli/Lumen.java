package lumen.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The kit's command line: {@code lumen check}, {@code validate}, {@code scenarios}, {@code verify}. */
@Command(name = "lumen",
        mixinStandardHelpOptions = true,
        version = "lumen 0.1.0",
        description = "The LUMEN verification kit: model-check LUMEN's TLA+ specs, validate traces, run the reference scenarios, verify the kit.",
        subcommands = {CheckCommand.class, ValidateCommand.class, HistoryCommand.class, ScenariosCommand.class, FuzzCommand.class, ConformCommand.class, ServeCommand.class, SimulateCommand.class, ReproduceCommand.class, VerifyCommand.class,
            BenchCommand.class,
            CommandLine.HelpCommand.class})
public final class Lumen {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        // the help of --reading lists every reading the kit knows, from lumen.core.Readings
        System.setProperty("lumen.readings", String.join(", ", lumen.core.Readings.NAMES.stream()
                .map(n -> n + "=" + String.join("|", lumen.core.Readings.values(n))).toList()));
        CommandLine cl = new CommandLine(new Lumen());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof UserError u) {
                cmd.getErr().println("lumen: " + u.getMessage());
                return ExitCodes.BAD_INPUT;
            }
            throw ex;
        });
        return cl;
    }
}
