package lumen.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped JSON Schema and the reader enforce the same contract: every line the runtime
 * writes passes both, and each of a set of malformed lines is refused by both.
 */
class TraceSchemaTest {
    static Schema schema;

    @BeforeAll
    static void load() throws Exception {
        try (InputStream in = TraceSchemaTest.class.getResourceAsStream(TraceFormat.SCHEMA_RESOURCE)) {
            assertThat(in).as("the schema is on the classpath").isNotNull();
            schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
        }
    }

    static List<Error> check(String line) {
        return schema.validate(line, InputFormat.JSON);
    }

    @Test
    void everyLineOfTheReferenceTracesPassesTheSchema() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/scenarios"))) {
            files = s.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        java.util.Set<String> types = new java.util.TreeSet<>();
        for (Path f : files) {
            int n = 0;
            for (String line : Files.readAllLines(f)) {
                n++;
                List<Error> errors = check(line);
                int lineNo = n;
                assertThat(errors).as(() -> f + ":" + lineNo + ": " + errors).isEmpty();
                types.add(line.replaceAll("^\\{\"type\":\"([A-Za-z]+)\".*$", "$1"));
            }
        }
        assertThat(types).as("the traces show the header and every event type: " + types).hasSize(lumen.core.Action.values().length + 1);
    }

    @Test
    void everyLineOfAPartialTracePassesTheSchema() throws Exception {
        byte[] full = Files.readAllBytes(Path.of("src/test/resources/scenarios/single-failure-restore.jsonl"));
        String partial = new String(Observe.at(full, Observation.LEAST), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(partial).contains("\"observes\":{").contains("\"batch\":[");
        int n = 0;
        for (String line : partial.split("\n")) {
            n++;
            List<Error> errors = check(line);
            int lineNo = n;
            assertThat(errors).as(() -> "line " + lineNo + ": " + errors).isEmpty();
        }
        // a batch entry with a field the reader refuses is refused by the schema too
        assertThat(check("{\"type\":\"Decode\",\"worker\":0,\"batch\":[{\"req\":1,\"tokens\":[2],\"request\":1}]}")).isNotEmpty();
        assertThat(check(HEADER.replace("}}", "},\"observes\":{\"Place\":\"sometimes\"}}"))).isNotEmpty();
    }

    static final String HEADER = "{\"type\":\"header\",\"format\":\"lumen-trace\",\"version\":1,\"config\":{\"policy\":\"lumen\","
            + "\"workers\":3,\"alpha\":1,\"beta\":1,\"theta\":5,\"tau\":3,\"budget\":40,\"pageTokens\":4,\"k\":3}}";

    @Test
    void theSchemaAndTheReaderRefuseTheSameBadLines() throws Exception {
        String[] bad = {
            "{\"type\":\"Teleport\",\"worker\":0}",
            "{\"type\":\"Restart\",\"worker\":0,\"colour\":1}",
            "{\"type\":\"Restart\"}",
            "{\"type\":\"Restart\",\"worker\":\"w0\"}",
            "{\"type\":\"Restart\",\"worker\":-1}",
            "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":0,\"ref\":[1]}",
            "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":2,\"ref\":[]}",
            "{\"type\":\"Route\",\"req\":0,\"mode\":\"TELEPORT\",\"worker\":1,\"resumed\":0,\"freed\":0}",
            "{\"type\":\"Decode\",\"req\":0,\"worker\":0,\"tokens\":[]}",
            "{\"type\":\"Place\",\"req\":0}",
        };
        String arrive = "{\"type\":\"Arrive\",\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}";
        assertThat(check(HEADER)).isEmpty();
        assertThat(check(arrive)).isEmpty();
        assertThat(check("{\"type\":\"Place\",\"req\":0,\"holder\":null}")).isEmpty();
        for (String line : bad) {
            assertThat(check(line)).as("schema accepts " + line).isNotEmpty();
            String trace = HEADER + "\n" + arrive + "\n" + line + "\n";
            TraceReader r = new TraceReader(new ByteArrayInputStream(trace.getBytes(StandardCharsets.UTF_8)), "x");
            r.next();
            TraceFormatException ex = assertThatExceptionOfType(TraceFormatException.class).as("reader accepts " + line).isThrownBy(r::next).actual();
            assertThat(ex.line()).isEqualTo(3);
        }
        assertThat(check(HEADER.replace("\"version\":1", "\"version\":2"))).isEmpty();
        assertThat(check(HEADER.replace("\"version\":1", "\"version\":3"))).isNotEmpty();
        assertThat(check(HEADER.replace("\"workers\":3", "\"workers\":1"))).isNotEmpty();
        // readings: the schema and the reader agree on what a header may declare (docs/readings.md)
        for (String rd : new String[] {"{\"queue\":\"waiting\"}", "{\"rebackup\":true,\"ringDirection\":\"previous\"}", "{}"}) {
            String h = HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":" + rd + "}");
            assertThat(check(h)).as(h).isEmpty();
            assertThat(readerAccepts(h, null)).as(h).isTrue();
        }
        // every reading the kit knows, with every value it allows, is in the schema too
        for (String name : lumen.core.Readings.NAMES) {
            for (String v : lumen.core.Readings.examples(name)) {
                String value = lumen.core.Readings.isBoolean(name) ? v : "\"" + v + "\"";
                String h = HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":{\"" + name + "\":" + value + "}}");
                assertThat(check(h)).as(h).isEmpty();
                assertThat(readerAccepts(h, null)).as(h).isTrue();
            }
        }
        for (String rd : new String[] {"{\"queue\":\"all\"}", "{\"queueDepth\":\"run\"}", "{\"rebackup\":\"yes\"}", "[]",
            "{\"citedLoads\":\"stale\"}", "{\"citedLoads\":\"stale:0\"}", "{\"citedLoads\":\"stale:0ms\"}", "{\"citedLoads\":\"stale:007\"}",
            "{\"citedLoads\":\"stale:1.5\"}", "{\"citedLoads\":\"stale:-2\"}", "{\"citedLoads\":3}"}) {
            String h = HEADER.replace("\"k\":3}", "\"k\":3,\"readings\":" + rd + "}");
            assertThat(check(h)).as("schema accepts " + h).isNotEmpty();
            assertThat(readerAccepts(h, null)).as("reader accepts " + h).isFalse();
        }
    }

    static boolean readerAccepts(String header, String line) throws Exception {
        String arrive = "{\"type\":\"Arrive\",\"t\":0,\"req\":0,\"worker\":0,\"promptLen\":4,\"ref\":[11,12]}";
        String trace = header + "\n" + arrive + "\n" + (line == null ? "" : line + "\n");
        try (TraceReader r = new TraceReader(new ByteArrayInputStream(trace.getBytes(StandardCharsets.UTF_8)), "x")) {
            while (r.next() != null) {
                // read to the end
            }
            return true;
        } catch (TraceFormatException ex) {
            return false;
        }
    }

    @Test
    void extObjectsAndTheDocumentedLimitsAreTheSameInTheSchemaAndTheReader() throws Exception {
        String place = "{\"type\":\"Place\",\"req\":0,\"holder\":1";
        String[] good = {place + ",\"ext\":{}}", place + ",\"ext\":{\"vendor\":{\"deep\":[1,{\"x\":null}]}}}",
            "{\"type\":\"Restart\",\"worker\":2,\"ext\":{\"why\":\"test\"}}"};
        String[] bad = {place + ",\"ext\":[]}", place + ",\"ext\":\"x\"}", place + ",\"ext\":null}", place + ",\"ext\":1}",
            place.replace("\"req\":0", "\"req\":2147483648") + "}", "{\"type\":\"Restart\",\"worker\":4096}",
            "{\"type\":\"Prefill\",\"req\":0,\"worker\":0,\"tokens\":[-2147483648]}"};
        for (String line : good) {
            assertThat(check(line)).as(line).isEmpty();
            assertThat(readerAccepts(HEADER, line)).as(line).isTrue();
        }
        for (String line : bad) {
            assertThat(check(line)).as(line).isNotEmpty();
            assertThat(readerAccepts(HEADER, line)).as(line).isFalse();
        }
        String withExt = HEADER.substring(0, HEADER.length() - 1) + ",\"ext\":{\"run\":\"r1\"}}";
        assertThat(check(withExt)).isEmpty();
        assertThat(readerAccepts(withExt, null)).isTrue();
        String[][] limits = {{"\"workers\":3", "\"workers\":4097"}, {"\"k\":3", "\"k\":65"}, {"\"pageTokens\":4", "\"pageTokens\":65537"},
            {"\"budget\":40", "\"budget\":2147483648"}, {"\"tau\":3", "\"tau\":2147483648"}, {"}}", "},\"ext\":[]}"}};
        for (String[] l : limits) {
            String h = HEADER.replace(l[0], l[1]);
            assertThat(check(h)).as(h).isNotEmpty();
            assertThat(readerAccepts(h, null)).as(h).isFalse();
        }
        String atLimits = HEADER.replace("\"workers\":3", "\"workers\":4096").replace("\"k\":3", "\"k\":64")
                .replace("\"budget\":40", "\"budget\":2147483647");
        assertThat(check(atLimits)).isEmpty();
        assertThat(readerAccepts(atLimits, null)).isTrue();
    }
}
