package lumen.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import lumen.core.Config;
import lumen.core.Event;
import org.junit.jupiter.api.Test;

/**
 * The reader's line scan ({@code TraceReader.scanLine}) reads every line it takes as the JSON
 * parser reads it, and leaves every other line to the parser, so a trace reads alike with and
 * without it: the same events, fields, times, cited loads and line numbers, and the same error on
 * the same line. Checked on the kit's own traces, on hand-made lines at the edges of the scan's
 * grammar, and on thousands of random mutations of real lines.
 */
class LineScanTest {
    /** Everything a reader gives for a trace, event by event, and how it ends; and how many lines the scan took. */
    record Read(List<String> out, long scanned) {}

    static Read read(byte[] trace, boolean scan) {
        List<String> out = new ArrayList<>();
        long scanned = 0;
        try (TraceReader r = new TraceReader(new ByteArrayInputStream(trace), "x.jsonl", scan)) {
            out.add("header " + r.config() + " v" + r.version() + " " + r.observation());
            Event e;
            while ((e = r.next()) != null) {
                out.add(r.line() + " " + TraceWriter.toJson(e, r.citedLoads(), r.citedReserved()) + " t=" + r.time() + " " + r.entry()
                        + " pages=" + Arrays.toString(r.pages()));
            }
            out.add("end");
            scanned = r.scanned();
        } catch (TraceFormatException ex) {
            out.add("error " + ex.getMessage());
        } catch (IOException ex) {
            out.add("io " + ex);
        }
        return new Read(out, scanned);
    }

    /** Reads the trace both ways; asserts they agree; returns the scanning read. */
    static Read same(byte[] trace) {
        Read scanned = read(trace, true);
        Read parsed = read(trace, false);
        assertThat(scanned.out()).as(new String(trace, StandardCharsets.UTF_8)).containsExactlyElementsOf(parsed.out());
        assertThat(parsed.scanned()).isZero();
        return scanned;
    }

    static Read same(String trace) {
        return same(trace.getBytes(StandardCharsets.UTF_8));
    }

    static final String V2 = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":2,\"config\":{\"policy\":\"lumen\","
            + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":400,\"pageTokens\":4,\"k\":3}}";

    static String lines(String... ls) {
        return String.join("\n", ls) + "\n";
    }

    /** A synthetic trace of the kit's writer, with times, as the simulator writes them. */
    static byte[] synthetic(int workers, long events, boolean times) throws IOException {
        Config c = new Config("lumen", workers, 1, 1, 64, 32, 1 << 20, 16, 4);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, c)) {
            long[] n = {0};
            SyntheticTrace.generate(new SyntheticTrace.Spec(c, events, 4, 64, 48, 400, 7), e -> {
                if (times) {
                    w.write(e, n[0]++ * 0.25);
                } else {
                    w.write(e);
                }
            });
        }
        return buf.toByteArray();
    }

    @Test
    void theKitsOwnTracesReadAlikeAndTheScanTakesTheirCommonLines() throws Exception {
        for (boolean times : new boolean[] {false, true}) {
            byte[] t = synthetic(4, 3_000, times);
            Read r = same(t);
            long events = r.out().size() - 2;
            // every line of these shapes but the failures' and the reroutes' (mode is the parser's)
            assertThat(r.scanned()).as("times %s", times).isGreaterThan(events * 9 / 10);
        }
        for (String name : new String[] {"single-failure-restore", "failure-during-handover"}) {
            byte[] t = lumen.runtime.ScenarioRun.run(lumen.runtime.Scenarios.find(name)).trace();
            Read r = same(t);
            assertThat(r.scanned()).as(name).isGreaterThan(0);
        }
    }

    @Test
    void linesAtTheEdgesOfTheScansGrammarReadAsTheParserReadsThem() {
        String arrive = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12,13]}";
        String place = "{\"type\":\"Place\",\"req\":0,\"holder\":1}";
        String prefill = "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[11],\"pages\":[[1,4,\"00000000000000aa\"],[5,1,\"00000000000000bb\"]]}";
        String decode = "{\"type\":\"Decode\",\"req\":0,\"worker\":0,\"tokens\":[12],\"pages\":[[5,2,\"00000000000000CC\"]]}";
        assertThat(same(lines(V2, arrive, place, prefill, decode)).scanned()).isEqualTo(4);
        String[] variants = {
            decode.replace("[12]", "[-1]"), decode.replace("[12]", "[-0]"), decode.replace("[12]", "[012]"), decode.replace("[12]", "[12.0]"),
            decode.replace("[12]", "[1e1]"), decode.replace("[12]", "[]"), decode.replace("[12]", "[1234567890]"), decode.replace("[12]", "[123456789]"),
            decode.replace("\"req\":0", "\"req\":00"), decode.replace("\"req\":0", "\"req\":-1"), decode.replace("\"req\":0", "\"req\":0,\"req\":0"),
            decode.replace("\"req\":0", "\"req\" : 0"), decode.replace("\"req\":0", "\"re\\u0071\":0"), decode.replace("\"worker\":0", "\"worker\":7"),
            decode.replace("\"Decode\"", "\"Dec\\u006fde\""), decode.replace("\"Decode\"", "\"decode\""), decode.replace("CC\"", "C\""),
            decode.replace("CC\"", "CG\""), decode.replace("[[5,2", "[[4,2"), decode.replace("[[5,2", "[[5,5"), decode.replace("[[5,2", "[[5,0"),
            decode.replace("}", " }"), decode + " ", decode.replace("{", "{ "), decode.replace("\"pages\":[[5,2,\"00000000000000CC\"]]", "\"pages\":[]"),
            decode.replace("\"pages\"", "\"t\":1.5,\"pages\""), decode.replace("\"pages\"", "\"t\":-0,\"pages\""), decode.replace("\"pages\"", "\"t\":-0.0,\"pages\""),
            decode.replace("\"pages\"", "\"t\":1e999,\"pages\""), decode.replace("\"pages\"", "\"t\":1E+2,\"pages\""), decode.replace("\"pages\"", "\"t\":.5,\"pages\""),
            decode.replace("\"pages\"", "\"t\":12345678901234567890,\"pages\""), decode.replace("\"pages\"", "\"t\":\"1\",\"pages\""),
            decode.replace("\"pages\"", "\"ext\":{\"a\":1},\"pages\""), decode.replace("\"pages\"", "\"mode\":\"RESTORE\",\"pages\""),
            place.replace("1}", "null}"), place.replace("1}", "nul}"), place.replace("\"req\":0", "\"req\":0,\"backup\":null"),
            place.replace("\"holder\":1", "\"holder\":null,\"loads\":[1,2,3]"), arrive.replace("[11,12,13]", "[11,12,13],\"maxOut\":3"),
            "{\"req\":0,\"worker\":0,\"tokens\":[12],\"type\":\"Decode\",\"pages\":[[5,2,\"00000000000000cc\"]]}",
            decode.replace("\"type\":\"Decode\",", ""), "", "  ", "[]", "{}", decode.substring(0, 40),
        };
        for (String v : variants) {
            same(lines(V2, arrive, place, prefill, v));
            same(lines(V2, arrive, place, prefill, v, decode.replace("[12]", "[13]").replace("5,2,", "5,3,")));
        }
        // line ends: CR LF, no line break at the end, a blank line at the end, a lone CR
        same((V2 + "\r\n" + arrive + "\r\n" + place + "\r\n").getBytes(StandardCharsets.UTF_8));
        same(V2 + "\n" + arrive + "\n" + place);
        same(V2 + "\n" + arrive + "\n" + place + "\n\n");
        same(V2 + "\n" + arrive + "\r" + place + "\n");
        // a v1 trace carries no pages
        same(lines(V2.replace("\"version\":2", "\"version\":1"), arrive, place, prefill));
    }

    @Test
    void aLineLongerThanTheScansBufferGoesToTheParserAndTheScanResumesAfterIt() throws Exception {
        StringBuilder ref = new StringBuilder();
        for (int i = 0; i < 300_000; i++) {
            ref.append(i == 0 ? "" : ",").append(1000 + i % 7);
        }
        String huge = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[" + ref + "]}";
        assertThat(huge.length()).isGreaterThan(Lines.MAX_SCANNED);
        String place = "{\"type\":\"Place\",\"req\":0,\"holder\":1}";
        Read r = same(lines(V2.replace("\"budget\":400", "\"budget\":4000000"), huge, place));
        assertThat(r.scanned()).isEqualTo(1);
        assertThat(r.out()).hasSize(4);
    }

    /** Random edits of real lines, each read both ways: most go to the parser, a good share the scan still takes. */
    @Test
    void randomMutationsOfRealLinesReadAlike() throws Exception {
        String[] real = new String(synthetic(3, 400, true), StandardCharsets.UTF_8).split("\n");
        SplittableRandom rnd = new SplittableRandom(11);
        String alphabet = "0123456789-+.eE\"',:[]{} \t\r\nnulltruefalse\\abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\u00e9\u0000";
        int scannedSome = 0;
        int errors = 0;
        int mutants = 4_000;
        for (int i = 0; i < mutants; i++) {
            int from = 1 + rnd.nextInt(real.length - 12);
            List<String> ls = new ArrayList<>(List.of(real[0]));
            ls.addAll(Arrays.asList(real).subList(from, from + 10));
            int k = 1 + rnd.nextInt(10);
            StringBuilder line = new StringBuilder(ls.get(k));
            for (int edits = 1 + rnd.nextInt(2); edits > 0 && line.length() > 0; edits--) {
                int at = rnd.nextInt(line.length());
                char c = alphabet.charAt(rnd.nextInt(alphabet.length()));
                char was = line.charAt(at);
                switch (rnd.nextInt(6)) {
                    // an edit that keeps the line in the scan's grammar more often than not: a digit for a digit, a letter for a letter
                    case 4, 5 -> line.setCharAt(at, Character.isDigit(was) ? (char) ('0' + rnd.nextInt(10))
                            : Character.isLetter(was) ? "abcdefABCDEFxyz".charAt(rnd.nextInt(15)) : c);
                    case 0 -> line.setCharAt(at, c);
                    case 1 -> line.insert(at, c);
                    case 2 -> line.deleteCharAt(at);
                    default -> line.insert(at, line.substring(at, Math.min(line.length(), at + 1 + rnd.nextInt(12))));
                }
            }
            long before = read((String.join("\n", ls) + "\n").getBytes(StandardCharsets.UTF_8), true).scanned();
            ls.set(k, line.toString());
            Read r = same(String.join("\n", ls) + "\n");
            // the edited line still one the scan takes (a digit for a digit, say): the scan read it, and read it as the parser does
            scannedSome += r.scanned() == before && !r.out().get(r.out().size() - 1).startsWith("error") ? 1 : 0;
            errors += r.out().get(r.out().size() - 1).startsWith("error") ? 1 : 0;
        }
        // the mutants reach both sides: edited lines the scan still takes, and errors the parser reports
        assertThat(scannedSome).isGreaterThan(mutants / 20);
        assertThat(errors).isGreaterThan(mutants / 4);
    }
}
