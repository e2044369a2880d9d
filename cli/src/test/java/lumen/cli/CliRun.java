package lumen.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One in-process run of {@code lumen}: its exit status and what it printed. */
record CliRun(int exit, String out, String err) {

    static CliRun of(String... args) {
        CommandLine cl = Lumen.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new CliRun(exit, out.toString(), err.toString());
    }
}
