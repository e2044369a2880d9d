package lumen.trace;

import static org.junit.jupiter.api.Assertions.*;

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
            assertNotNull(in, "the schema is on the classpath");
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
        assertFalse(files.isEmpty());
        java.util.Set<String> types = new java.util.TreeSet<>();
        for (Path f : files) {
            int n = 0;
            for (String line : Files.readAllLines(f)) {
                n++;
                List<Error> errors = check(line);
                int lineNo = n;
                assertTrue(errors.isEmpty(), () -> f + ":" + lineNo + ": " + errors);
                types.add(line.replaceAll("^\\{\"type\":\"([A-Za-z]+)\".*$", "$1"));
            }
        }
        assertEquals(13, types.size(), "the traces show the header and all 12 event types: " + types);
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
        assertTrue(check(HEADER).isEmpty());
        assertTrue(check(arrive).isEmpty());
        assertTrue(check("{\"type\":\"Place\",\"req\":0,\"holder\":null}").isEmpty());
        for (String line : bad) {
            assertFalse(check(line).isEmpty(), "schema accepts " + line);
            String trace = HEADER + "\n" + arrive + "\n" + line + "\n";
            TraceReader r = new TraceReader(new ByteArrayInputStream(trace.getBytes(StandardCharsets.UTF_8)), "x");
            r.next();
            TraceFormatException ex = assertThrows(TraceFormatException.class, r::next, "reader accepts " + line);
            assertEquals(3, ex.line());
        }
        assertTrue(check(HEADER.replace("\"version\":1", "\"version\":2")).isEmpty());
        assertFalse(check(HEADER.replace("\"version\":1", "\"version\":3")).isEmpty());
        assertFalse(check(HEADER.replace("\"workers\":3", "\"workers\":1")).isEmpty());
    }
}
