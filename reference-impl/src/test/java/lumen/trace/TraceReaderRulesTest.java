package lumen.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import lumen.validate.ValidationResult;
import lumen.validate.Validator;
import lumen.validate.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The reader is exactly as strict as docs/trace-format.md: each rule there is an accepted or a
 * refused trace here, refused with a located error (never another exception) on the right line.
 */
class TraceReaderRulesTest {
    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\","
            + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}";
    static final String ARRIVE = "{\"type\":\"Arrive\",\"t\":1.5,\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}";
    static final String PLACE = "{\"type\":\"Place\",\"t\":2.0,\"req\":0,\"holder\":1}";

    static ValidationResult validate(byte[] trace) throws Exception {
        return Validator.validate(new ByteArrayInputStream(trace), "x.jsonl");
    }

    static ValidationResult validate(String trace) throws Exception {
        return validate(trace.getBytes(StandardCharsets.UTF_8));
    }

    static void accepted(String trace) throws Exception {
        ValidationResult r = validate(trace);
        assertThat(r.verdict()).as("%s -> %s", trace, r.error()).isEqualTo(Verdict.ACCEPTED);
    }

    static TraceFormatException malformed(byte[] trace, long line, String fragment) throws Exception {
        ValidationResult r = validate(trace);
        assertThat(r.verdict()).as(new String(trace, StandardCharsets.UTF_8)).isEqualTo(Verdict.MALFORMED);
        assertThat(r.error().getMessage()).startsWith("x.jsonl:" + line + ": ").contains(fragment);
        assertThat(r.error().line()).isEqualTo(line);
        return r.error();
    }

    static TraceFormatException malformed(String trace, long line, String fragment) throws Exception {
        return malformed(trace.getBytes(StandardCharsets.UTF_8), line, fragment);
    }

    static String lines(String... ls) {
        return String.join("\n", ls) + "\n";
    }

    /** Eq. 5 reserves the declared maximum output (maxOut), which no placement can see past; without it, the reference's length. */
    @Test
    void aDeclaredMaximumOutputIsWhatAPlacementReserves() throws Exception {
        // promptLen 4 + ref 2 = 6 fits the budget of 40; promptLen 4 + maxOut 40 does not
        accepted(lines(HEADER, ARRIVE, PLACE));
        String declared = ARRIVE.replace("\"ref\":[11,12]}", "\"ref\":[11,12],\"maxOut\":40}");
        ValidationResult r = validate(lines(HEADER, declared, PLACE));
        assertThat(r.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(r.divergence().finding().property()).isEqualTo(lumen.core.PropertyId.A1);
        assertThat(r.divergence().line()).isEqualTo(3);
        accepted(lines(HEADER, declared, PLACE.replace("\"holder\":1", "\"holder\":null")));
        accepted(lines(HEADER, ARRIVE.replace("\"ref\":[11,12]}", "\"ref\":[11,12],\"maxOut\":2}"), PLACE));
        malformed(lines(HEADER, ARRIVE.replace("\"ref\":[11,12]}", "\"ref\":[11,12],\"maxOut\":1}")), 2,
                "maxOut, the request's declared maximum output, must be at least the length of ref (2), found 1");
        malformed(lines(HEADER, PLACE.replace("\"holder\":1", "\"holder\":1,\"maxOut\":3")), 2, "Place: unexpected field 'maxOut'");
        // the writer writes maxOut only when the arrival declared one, and the reader reads it back
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, r.config())) {
            w.write(new lumen.core.Event.Arrive(0, 0, 4, new int[] {11, 12}, 40), 1.5);
            w.write(new lumen.core.Event.Arrive(1, 1, 4, new int[] {11, 12}), 1.5);
        }
        String written = buf.toString(StandardCharsets.UTF_8);
        assertThat(written).contains("\"ref\":[11,12],\"maxOut\":40}").containsOnlyOnce("maxOut");
    }

    @Test
    void readingsAreOptionalNamedAndCheckedAndRoundTrip() throws Exception {
        String withReadings = HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"queue\":\"waiting\",\"rebackup\":true}}");
        ValidationResult r = validate(lines(withReadings, ARRIVE));
        assertThat(r.verdict()).as("%s", r.error()).isEqualTo(Verdict.ACCEPTED);
        assertThat(r.config().readings().queue()).isEqualTo(lumen.core.Readings.QueueDepth.WAITING);
        assertThat(r.config().readings().rebackup()).isTrue();
        assertThat(r.config().readings().ringFallThrough()).isFalse();
        assertThat(validate(lines(HEADER, ARRIVE)).config().readings()).isEqualTo(lumen.core.Readings.DEFAULT);
        malformed(lines(HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"queue\":\"all\"}}")), 1,
                "field 'config.readings.queue' must be one of [run, waiting], found \"all\"");
        malformed(lines(HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"queueDepth\":\"run\"}}")), 1,
                "unknown reading 'queueDepth'; known: queue, ringDirection, ringFallThrough, rebackup, assistTarget, routeLoads, budget, citedLoads");
        malformed(lines(HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"rebackup\":\"yes\"}}")), 1,
                "'config.readings.rebackup' must be true or false");
        malformed(lines(HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":[]}")), 1, "config.readings must be an object");
        // the writer writes every reading once one differs from the default, and the reader reads them back
        lumen.core.Config c = r.config();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(buf, c)) {
            w.flush();
        }
        String written = buf.toString(StandardCharsets.UTF_8);
        assertThat(written).contains("\"readings\":{\"queue\":\"waiting\",\"ringDirection\":\"next\",\"ringFallThrough\":false,\"rebackup\":true,\"assistTarget\":\"session\",\"routeLoads\":\"recompute\",\"budget\":\"reserve\",\"citedLoads\":\"exact\",\"arrival\":\"shortest\"}");
        assertThat(validate(written).config()).isEqualTo(c);
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(plain, c.withReadings(lumen.core.Readings.DEFAULT))) {
            w.flush();
        }
        assertThat(plain.toString(StandardCharsets.UTF_8)).doesNotContain("readings");
    }

    @Test
    void integersAre32BitIntegerLiteralsWithinTheirRange() throws Exception {
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":99999999999999999999999")), 2, "must be an integer in 0..2147483647");
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":2147483648")), 2, "found 2147483648");
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":-1")), 2, "must be an integer in 0..2147483647");
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":0.0")), 2, "must be an integer, found 0.0");
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":1e2")), 2, "must be an integer, found 1e2");
        malformed(lines(HEADER, ARRIVE.replace("[11,12]", "[11,1.5]")), 2, "integers only, found 1.5");
        malformed(lines(HEADER, ARRIVE.replace("[11,12]", "[11,18446744073709551616]")), 2, "outside 0..2147483647");
        malformed(lines(HEADER, ARRIVE, "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[-2147483648]}"), 3,
                "outside -2147483647..2147483647");
        accepted(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":2147483647"), PLACE.replace("\"req\":0", "\"req\":2147483647")));
        malformed(lines(HEADER, ARRIVE.replace("\"promptLen\":4", "\"promptLen\":2147483647")), 2, "context, promptLen + the length of ref");
        malformed(lines(HEADER, ARRIVE.replace("\"promptLen\":4", "\"promptLen\":16777215")), 2, "at most 16777216 positions, found 16777217");
        accepted(lines(HEADER, ARRIVE.replace("\"promptLen\":4", "\"promptLen\":16777214")));
        malformed(lines(HEADER.replace("\"version\":1", "\"version\":1.0")), 1, "must be an integer");
    }

    @Test
    void numbersAreFinite() throws Exception {
        malformed(lines(HEADER, ARRIVE.replace("1.5", "1e999")), 2, "field 't' must be a finite number, found 1e999");
        malformed(lines(HEADER, ARRIVE.replace("1.5", "-1e999")), 2, "finite number");
        malformed(lines(HEADER.replace("\"alpha\":1", "\"alpha\":1" + "0".repeat(400))), 1, "'config.alpha' must be a finite number");
        malformed(lines(HEADER.replace("\"theta\":5", "\"theta\":1e400")), 1, "'config.theta' must be a finite number");
        for (String token : new String[] {"NaN", "Infinity", "-Infinity"}) {
            malformed(lines(HEADER, ARRIVE.replace("1.5", token)), 2, "not valid JSON");
        }
        malformed(lines(HEADER, PLACE.replace("}", ",\"loads\":[0,1e999,0]}"), ARRIVE), 2, "finite numbers");
        malformed(lines(HEADER, ARRIVE.replace("\"t\":1.5", "\"t\":" + "1".repeat(1001))), 2, "over the reader's limits");
        accepted(lines(HEADER, ARRIVE.replace("1.5", "1e-999")));
    }

    @Test
    void theHeadersSizesHaveLimits() throws Exception {
        long t0 = System.nanoTime();
        malformed(lines(HEADER.replace("\"workers\":3", "\"workers\":10000000")), 1, "'config.workers' must be an integer in 2..4096");
        malformed(lines(HEADER.replace("\"workers\":3", "\"workers\":2147483647")), 1, "2..4096");
        assertThat((System.nanoTime() - t0) / 1e9).as("refused at once, with nothing allocated per claimed worker").isLessThan(1.0);
        malformed(lines(HEADER.replace("\"workers\":3", "\"workers\":4097")), 1, "2..4096");
        malformed(lines(HEADER.replace("\"k\":3", "\"k\":65")), 1, "'config.k' must be an integer in 1..64");
        malformed(lines(HEADER.replace("\"pageTokens\":4", "\"pageTokens\":65537")), 1, "1..65536");
        malformed(lines(HEADER.replace("\"budget\":40", "\"budget\":2147483648")), 1, "'config.budget' must be an integer in 0..2147483647");
        malformed(lines(HEADER.replace("\"tau\":3", "\"tau\":-1")), 1, "0..2147483647");
        accepted(lines(HEADER.replace("\"workers\":3", "\"workers\":4096").replace("\"k\":3", "\"k\":64")
                .replace("\"pageTokens\":4", "\"pageTokens\":65536").replace("\"budget\":40", "\"budget\":2147483647")));
    }

    @Test
    void oneObjectOnEveryLineAndNoBlankLines() throws Exception {
        malformed(lines(HEADER, "", ARRIVE), 2, "a blank line");
        malformed(lines(HEADER, "   \t", ARRIVE), 2, "a blank line");
        malformed(lines("", HEADER, ARRIVE), 1, "a blank line");
        malformed(lines(HEADER, ARRIVE, ""), 3, "a blank line");
        malformed(lines(HEADER, ARRIVE) + "  ", 3, "a blank line");
        malformed("\n", 1, "a blank line");
        malformed(lines(HEADER, ARRIVE.replace(",\"req\"", ",\n\"req\"")), 2, "does not end on it");
        malformed(lines(HEADER, ARRIVE.replace("}", "\n}")), 2, "does not end on it (it ends on line 3)");
        malformed(lines(HEADER, ARRIVE.substring(0, ARRIVE.indexOf("\"promptLen\"")), PLACE), 2, "does not end on it");
        malformed(lines(HEADER, ARRIVE + ARRIVE), 2, "two JSON values on one line");
        // after the header too: a second value on line 1 is named there, not on the line after it (the line scan, which
        // reads the common lines, took line 2 while the parser still held the rest of line 1)
        for (String tail : new String[] {"null", " 5", " \"x\"", "[]", "{}", " " + ARRIVE}) {
            malformed(lines(HEADER + tail, ARRIVE, PLACE), 1, "");
        }
        accepted(HEADER + "\n" + ARRIVE);
        accepted(lines("  " + HEADER + " ", "\t" + ARRIVE.replace(",", " , ").replace(":", " : ") + "   "));
    }

    @Test
    void crlfEndsALineButALoneCrIsAnError() throws Exception {
        accepted(HEADER + "\r\n" + ARRIVE + "\r\n" + PLACE + "\r\n");
        accepted(HEADER + "\r\n" + ARRIVE);
        malformed(HEADER + "\r\n" + ARRIVE + "\r" + PLACE + "\n", 2, "carriage return (CR) not followed by a line feed");
        malformed(HEADER + "\n" + ARRIVE + "\r", 2, "carriage return");
        malformed(HEADER + "\r\n\r\n" + ARRIVE + "\r\n", 2, "a blank line");
        malformed(HEADER + "\r\r\n" + ARRIVE, 1, "carriage return");
    }

    @Test
    void utf8WithoutAByteOrderMark() throws Exception {
        byte[] header = lines(HEADER, ARRIVE).getBytes(StandardCharsets.UTF_8);
        malformed(concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, header), 1, "byte-order mark (BOM)");
        malformed(concat(new byte[] {(byte) 0xFE, (byte) 0xFF}, lines(HEADER).getBytes(StandardCharsets.UTF_16BE)), 1, "UTF-16");
        malformed(lines(HEADER).getBytes(StandardCharsets.UTF_16LE), 1, "NUL byte");
        malformed(lines(HEADER, ARRIVE.replace("Arrive", "Arr\u0000ive")), 2, "NUL byte");
        String ext = ARRIVE.replace("}", ",\"ext\":{\"note\":\"@\"}}");
        accepted(lines(HEADER, ext.replace("@", "caf\u00e9 \u4e2d \ud83d\ude00")));
        for (byte[] bad : new byte[][] {{(byte) 0x80}, {(byte) 0xC3}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82}}) {
            String[] parts = lines(HEADER, ext).split("@");
            byte[] trace = concat(concat(parts[0].getBytes(StandardCharsets.UTF_8), bad), parts[1].getBytes(StandardCharsets.UTF_8));
            malformed(trace, 2, "not UTF-8");
        }
    }

    @Test
    void duplicateKeysAreErrorsAtEveryLevel() throws Exception {
        malformed(lines(HEADER, ARRIVE.replace("\"req\":0", "\"req\":0,\"req\":5")), 2, "Duplicate field 'req'");
        malformed(lines(HEADER.replace("\"k\":3", "\"k\":3,\"k\":4")), 1, "Duplicate field 'k'");
        malformed(lines(HEADER.replace("\"version\":1", "\"version\":1,\"version\":1")), 1, "Duplicate field");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":{\"a\":1,\"a\":1}}")), 2, "Duplicate field 'a'");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":{},\"ext\":{}}")), 2, "Duplicate field 'ext'");
    }

    @Test
    void extIsAnyObjectTheKitIgnoresAndEveryOtherUnknownFieldIsAnError() throws Exception {
        String deep = "{\"a\":".repeat(20) + "[1,2.5,null,true,\"s\",{}]" + "}".repeat(20);
        accepted(lines(HEADER.replace("}}", "},\"ext\":{\"vendor\":\"acme\",\"run\":{\"id\":[1,2,3]}}}"),
                ARRIVE.replace("}", ",\"ext\":" + deep + "}"), "{\"ext\":{},\"type\":\"Place\",\"req\":0,\"holder\":1}"));
        accepted(lines(HEADER, ARRIVE.replace("}", ",\"ext\":{\"big\":[" + "1,".repeat(100_000) + "1],\"ints\":1e999}}")));
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":[1]}")), 2, "field 'ext' must be a JSON object, found an array");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":\"x\"}")), 2, "found a string");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":null}")), 2, "found null");
        malformed(lines(HEADER.replace("\"k\":3", "\"k\":3,\"ext\":{}")), 1, "unknown config field 'ext'");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"colour\":1}")), 2, "unknown field 'colour'");
        malformed(lines(HEADER.replace("}}", "},\"colour\":1}")), 1, "header: unknown field 'colour'");
        malformed(lines(HEADER, ARRIVE.replace("}", ",\"ext\":" + "{\"a\":".repeat(70) + "1" + "}".repeat(70) + "}")), 2, "nesting depth");
    }

    @Test
    void timeNeverGoesBackwards() throws Exception {
        String arrive1 = ARRIVE.replace("\"req\":0", "\"req\":1").replace("1.5", "7.25");
        malformed(lines(HEADER, arrive1, PLACE.replace("\"req\":0", "\"req\":1").replace("2.0", "7.0")), 3,
                "time goes backwards: t=7.0 after t=7.25 at line 2");
        malformed(lines(HEADER, arrive1, "{\"type\":\"Place\",\"req\":1,\"holder\":1}", ARRIVE), 4, "after t=7.25 at line 2");
        accepted(lines(HEADER, ARRIVE, "{\"type\":\"Place\",\"req\":0,\"holder\":1}", "{\"type\":\"Prefill\",\"t\":1.5,\"req\":0,\"worker\":0,\"tokens\":[11]}",
                "{\"type\":\"Decode\",\"t\":9,\"req\":0,\"worker\":0,\"tokens\":[12]}"));
        accepted(lines(HEADER, ARRIVE.replace("1.5", "-3"), PLACE.replace("2.0", "-2.5")));
    }

    @Test
    void echoedInputIsCut() throws Exception {
        String huge = "T".repeat(10 << 20);
        TraceFormatException e = malformed(lines(HEADER, "{\"type\":\"" + huge + "\",\"worker\":0}"), 2, "unknown event type");
        assertThat(e.getMessage()).hasSizeLessThan(1000).contains("... (10485760 bytes)");
        e = malformed(lines(HEADER, "{\"" + "f".repeat(40_000) + "\":1}"), 2, "unknown field");
        assertThat(e.getMessage()).hasSizeLessThan(1000).contains("... (40000 bytes)");
        e = malformed(lines(HEADER.replace("\"lumen\"", "\"" + "p".repeat(5000) + "\"")), 1, "unknown policy");
        assertThat(e.getMessage()).hasSizeLessThan(1000);
        e = malformed(lines(HEADER, "{\"type\":\"Route\",\"req\":0,\"mode\":\"" + "M".repeat(300) + "\",\"worker\":1,\"resumed\":0,\"freed\":0}"), 2, "mode must be");
        assertThat(e.getMessage()).hasSizeLessThan(1000);
        e = malformed(lines(HEADER, "{\"type\":\"Restart\",\"worker\":0,\"ext\":{\"" + "a".repeat(5000) + "\":1,\"" + "a".repeat(5000) + "\":1}}"), 2, "Duplicate");
        assertThat(e.getMessage()).hasSizeLessThan(1000);
        assertThat(Echo.cut("\u00e9".repeat(150))).startsWith("\u00e9".repeat(100) + "...").endsWith("(300 bytes)");
        assertThat(Echo.cut("short")).isEqualTo("short");
    }

    @Test
    void theKitsOwnWriterSatisfiesEveryRule() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TraceWriter w = new TraceWriter(b, new lumen.core.Config("lumen", 4096, 1, 1, 1e6, 2147483647, 2147483647, 65536, 64))) {
            w.write(new lumen.core.Event.Arrive(2147483647, 0, 1, new int[] {0, 2147483647}), 0.0);
        }
        assertThat(validate(b.toByteArray()).verdict()).isEqualTo(Verdict.ACCEPTED);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
