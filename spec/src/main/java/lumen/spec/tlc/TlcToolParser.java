package lumen.spec.tlc;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits TLC's {@code -tool} output, fed line by line, into {@link TlcMessage}s. Lines outside any
 * message (SANY's parse output, Java exceptions) are kept as free text, since they carry the detail
 * of parse errors.
 */
public final class TlcToolParser {

    private static final Pattern START = Pattern.compile("^@!@!@STARTMSG (\\d+):(\\d+) @!@!@$");
    private static final Pattern END = Pattern.compile("^@!@!@ENDMSG (\\d+) @!@!@$");

    private final Consumer<TlcMessage> sink;
    private final List<String> freeText = new ArrayList<>();
    private StringBuilder body;
    private int code;
    private int severity;

    public TlcToolParser(Consumer<TlcMessage> sink) {
        this.sink = sink;
    }

    public void feed(String line) {
        Matcher start = START.matcher(line);
        if (start.matches()) {
            code = Integer.parseInt(start.group(1));
            severity = Integer.parseInt(start.group(2));
            body = new StringBuilder();
            return;
        }
        if (body != null && END.matcher(line).matches()) {
            String text = body.toString();
            if (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            sink.accept(new TlcMessage(code, severity, text));
            body = null;
            return;
        }
        if (body != null) {
            body.append(line).append('\n');
        } else {
            freeText.add(line);
        }
    }

    /** Output lines that were not inside any message. */
    public List<String> freeText() {
        return List.copyOf(freeText);
    }
}
