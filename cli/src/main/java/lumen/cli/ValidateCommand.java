package lumen.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import lumen.spec.io.AtomicFiles;
import lumen.validate.ValidationReport;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code lumen validate TRACE...}: is each trace a behaviour of the composed spec? */
@Command(name = "validate",
        mixinStandardHelpOptions = true,
        description = {"Replays each trace (trace contract v1, JSON Lines) on the Java mirror of the spec and gives a verdict.",
            "On rejection: the first diverging event with its line, the property it breaks, expected versus actual,"
                + " and the mirrored spec state just before it.",
            "Exit status: 0 all accepted, 1 some rejected, 2 some unreadable (not JSON Lines, schema violation,"
                + " unknown worker or request)."})
final class ValidateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "TRACE", arity = "1..*", description = "trace files (JSON Lines); - reads standard input")
    List<String> traces;

    @Option(names = "--json", description = "print a machine-readable report instead of text")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the JSON report to FILE (atomically)")
    Path report;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        List<Object> rows = new ArrayList<>();
        int worst = ExitCodes.OK;
        for (String t : traces) {
            ValidationResult r = validate(t);
            rows.add(ValidationReport.json(r));
            if (!json) {
                out.print(ValidationReport.text(r));
                out.flush();
            }
            int code = switch (r.verdict()) {
                case ACCEPTED -> ExitCodes.OK;
                case REJECTED -> ExitCodes.DISAGREEMENT;
                case MALFORMED -> ExitCodes.BAD_INPUT;
            };
            worst = Math.max(worst, code);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("accepted", rows.stream().filter(m -> "ACCEPTED".equals(((Map<?, ?>) m).get("verdict"))).count());
        doc.put("total", rows.size());
        doc.put("traces", rows);
        String text = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc);
        if (json) {
            out.println(text);
            out.flush();
        }
        if (report != null) {
            AtomicFiles.writeString(report, text + "\n");
        }
        return worst;
    }

    private ValidationResult validate(String t) throws IOException {
        if (t.equals("-")) {
            return Validator.validate(System.in, "<stdin>");
        }
        Path p = Path.of(t);
        if (Files.isDirectory(p)) {
            throw new UserError(t + ": is a folder, not a trace file");
        }
        try (InputStream in = Files.newInputStream(p)) {
            return Validator.validate(new java.io.BufferedInputStream(in, 1 << 16), t);
        } catch (NoSuchFileException ex) {
            throw new UserError(t + ": no such file");
        }
    }

}
