package lumen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lumen history} from the command line, on the histories {@code lumen scenarios --out} writes. */
class HistoryCliTest {
    @TempDir
    Path tmp;

    @Test
    void theScenariosHistoriesAreAcceptedAndAnAnswerGivenTwiceIsRejected() throws Exception {
        CliRun sc = CliRun.of("scenarios", "--out", tmp.toString(), "single-failure-restore");
        assertThat(sc.exit()).as(sc.out() + sc.err()).isEqualTo(ExitCodes.OK);
        Path h = tmp.resolve("single-failure-restore.history.jsonl");
        assertThat(h).exists();

        CliRun ok = CliRun.of("history", h.toString());
        assertThat(ok.exit()).as(ok.out() + ok.err()).isEqualTo(ExitCodes.OK);
        assertThat(ok.out()).contains("ACCEPTED (10 requests, 1 fault)").contains("in flight at the fault").contains("needs --baseline");

        // the last finishing chunk arrives a second time: the request is answered twice
        List<String> lines = Files.readAllLines(h);
        String finish = lines.stream().filter(l -> l.contains("\"finish_reason\":\"length\"")).reduce((a, b) -> b).orElseThrow();
        Path twice = tmp.resolve("twice.jsonl");
        Files.writeString(twice, String.join("\n", lines) + "\n" + finish + "\n");
        CliRun bad = CliRun.of("history", "--json", twice.toString());
        assertThat(bad.exit()).isEqualTo(ExitCodes.DISAGREEMENT);
        JsonNode j = new ObjectMapper().readTree(bad.out()).get("histories").get(0);
        assertThat(j.get("verdict").asText()).isEqualTo("REJECTED");
        assertThat(j.get("property").asText()).isEqualTo("S2");
        assertThat(j.get("line").asLong()).isEqualTo(lines.size() + 1);

        // the run against itself as the reference history, and as its own baseline
        CliRun self = CliRun.of("history", "--reference", h.toString(), h.toString());
        assertThat(self.exit()).as(self.out()).isEqualTo(ExitCodes.OK);
        assertThat(self.out()).contains("the reference history").contains("recovery: ");
    }

    @Test
    void badInputIsLocatedAndNamed() throws Exception {
        Path bad = tmp.resolve("bad.jsonl");
        Files.writeString(bad, "{\"object\":\"request\",\"request\":\"a\",\"t\":0,\"max_tokens\":2,\"seed\":1}\n"
                + "{\"object\":\"text_completion\",\"request\":\"a\",\"t\":1,\"choices\":[{\"text\":\"hi\"}]}\n");
        CliRun r = CliRun.of("history", bad.toString(), tmp.resolve("absent.jsonl").toString());
        assertThat(r.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(r.out()).contains("bad.jsonl:2: MALFORMED").contains("token_ids");
        assertThat(r.err()).contains("absent.jsonl: UNREADABLE: no such file");
        CliRun noRef = CliRun.of("history", "--reference", tmp.resolve("absent.jsonl").toString(), bad.toString());
        assertThat(noRef.exit()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(noRef.err()).contains("--reference").contains("no such file");
    }
}
