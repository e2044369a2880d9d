package lumen.spec.tlc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs TLC on one model in a fresh JVM, as TLC's authors require, and returns a typed result.
 *
 * <p>Each run gets its own {@code java.io.tmpdir} (where TLC unpacks its standard modules) and its
 * own {@code -metadir} (where it writes states), so runs never share either. The spec directory is
 * put on TLC's module path ({@code TLA-Library}) so that models in sub-folders, such as the mutants,
 * can extend the models of the spec directory.
 *
 * <p>TLC writes a checkpoint into the metadir every 30 minutes; a run that was stopped can be resumed
 * from it ({@link Request#recoverFrom()}).
 */
public final class TlcRunner {

    /** One request to check a model. */
    public record Request(
            Path module,
            Path config,
            Path specDir,
            Path runDir,
            int workers,
            Duration timeout,
            String singleTemporal,
            Path recoverFrom) {

        public Request {
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be at least 1");
            }
        }
    }

    private final String javaBin;
    private final String tlaToolsClasspath;

    public TlcRunner(String javaBin, String tlaToolsClasspath) {
        this.javaBin = javaBin;
        this.tlaToolsClasspath = tlaToolsClasspath;
    }

    /** A runner that uses this JVM's java and the TLA+ tools on this JVM's class path. */
    public static TlcRunner fromCurrentJvm() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new TlcRunner(java.toString(), TlaTools.classpath());
    }

    public List<String> command(Request r) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin);
        cmd.add("-XX:+UseParallelGC");
        cmd.add("-Xss16m");
        cmd.add("-Djava.io.tmpdir=" + r.runDir().resolve("tmp"));
        cmd.add("-DTLA-Library=" + r.specDir().toAbsolutePath());
        cmd.add("-cp");
        cmd.add(tlaToolsClasspath);
        cmd.add("tlc2.TLC");
        cmd.add("-tool");
        cmd.add("-fp");
        cmd.add("1");
        cmd.add("-workers");
        cmd.add(Integer.toString(r.workers()));
        cmd.add("-metadir");
        cmd.add(r.runDir().resolve("states").toString());
        if (r.recoverFrom() != null) {
            cmd.add("-recover");
            cmd.add(r.recoverFrom().toString());
        }
        cmd.add("-config");
        cmd.add(r.config().toAbsolutePath().toString());
        cmd.add(r.module().toAbsolutePath().toString());
        return cmd;
    }

    /**
     * Checks the model. The raw output is kept in {@code runDir/tlc.out}.
     *
     * @param onMessage sees every message as it arrives (progress display); may be a no-op
     */
    public TlcResult run(Request r, Consumer<TlcMessage> onMessage) {
        try {
            Files.createDirectories(r.runDir().resolve("tmp"));
            TlcResultBuilder builder = new TlcResultBuilder();
            TlcToolParser parser = new TlcToolParser(m -> {
                builder.accept(m);
                onMessage.accept(m);
            });
            ProcessBuilder pb = new ProcessBuilder(command(r))
                    .directory(r.module().toAbsolutePath().getParent().toFile())
                    .redirectErrorStream(true);
            long start = System.nanoTime();
            Process p = pb.start();
            Path log = r.runDir().resolve(r.recoverFrom() == null ? "tlc.out" : "tlc-resumed.out");
            Thread pump = new Thread(() -> pump(p, parser, log), "tlc-output");
            pump.setDaemon(true);
            pump.start();
            boolean finished = p.waitFor(r.timeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor();
            }
            pump.join(10_000);
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            if (!finished) {
                TlcResult partial = builder.build(-1, elapsed, parser.freeText(), r.singleTemporal());
                return new TlcResult(TlcResult.Status.TIMEOUT, null, partial.statesGenerated(),
                        partial.distinctStates(), partial.depth(), elapsed, List.of(), -1,
                        "stopped after " + r.timeout().toSeconds() + " s");
            }
            return builder.build(p.exitValue(), elapsed, parser.freeText(), r.singleTemporal());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while TLC was running", e);
        }
    }

    private static void pump(Process p, TlcToolParser parser, Path log) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             var w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                w.write(line);
                w.newLine();
                w.flush();   // so that a long run can be followed with tail -f
                parser.feed(line);
            }
        } catch (IOException e) {
            parser.feed("@!@!@STARTMSG 1000:1 @!@!@");
            parser.feed("reading TLC's output failed: " + e.getMessage());
            parser.feed("@!@!@ENDMSG 1000 @!@!@");
        }
    }
}
