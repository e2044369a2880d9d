package lumen.conform.sut;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A system that misbehaves at the protocol level, to show the kit gives a verdict and never
 * hangs: {@code hang} stops answering, {@code crash} dies mid-reply, {@code garbage} prints
 * text that is not JSON, {@code flood} prints events without end, {@code refuse} answers every
 * command with an error.
 */
public final class Misbehaving {
    private Misbehaving() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        String how = args.length == 0 ? "hang" : args[0];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"init\"")) {
                out.println("{\"type\":\"ack\",\"t\":0,\"idle\":true}");
                out.flush();
                continue;
            }
            switch (how) {
                case "hang" -> Thread.sleep(Long.MAX_VALUE);
                case "crash" -> {
                    out.print("{\"type\":\"Arr");
                    out.flush();
                    System.err.println("panic: index out of range in scheduler");
                    System.exit(3);
                }
                case "garbage" -> out.println("INFO scheduler: routed request 3 to worker 1");
                case "flood" -> {
                    while (!out.checkError()) {
                        out.println("{\"type\":\"Restart\",\"worker\":0}");
                    }
                    return;
                }
                default -> {
                    out.println("{\"type\":\"ack\",\"error\":\"unsupported command\"}");
                    out.flush();
                    continue;
                }
            }
            out.println("{\"type\":\"ack\",\"t\":0,\"idle\":true}");
            out.flush();
        }
    }
}
