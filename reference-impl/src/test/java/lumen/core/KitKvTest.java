package lumen.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import lumen.runtime.Arrival;
import lumen.runtime.ClusterRuntime;
import lumen.runtime.PageBytes;
import lumen.runtime.Scenario;
import lumen.runtime.Scenarios;
import org.junit.jupiter.api.Test;

/**
 * The kit's KV content model: its test vectors (docs/conformance.md, also computed by an independent
 * implementation in Python), and that the reference runtime's pages are the model's, so that the
 * reference adapter reports exactly the digests the kit predicts.
 */
class KitKvTest {

    @Test
    void theDocumentedTestVectors() {
        assertThat(KitKv.digest(0, 1, 1)).isEqualTo(0x772ab66cb3320138L);
        assertThat(KitKv.digest(0, 1, 16)).isEqualTo(0xfe25c0a2475a8e1eL);
        assertThat(KitKv.digest(7, 17, 8)).isEqualTo(0x53bf8270a658944dL);
        assertThat(KitKv.digest(-1, 1, 16)).isEqualTo(0x2dff94752c3d8e90L);
        assertThat(KitKv.digest(1234567890123L, 33, 3)).isEqualTo(0x276a63c1aae00301L);
    }

    @Test
    void theModelIsTheBytesTheRuntimeWritesAndTheDigestItTakes() {
        long seed = 1234567890123L;
        int b = KitKv.BYTES_PER_TOKEN_LAYER;
        for (int first : new int[] {1, 17, 33}) {
            for (int count = 1; count <= 16; count += 5) {
                byte[] page = new byte[count * KitKv.LAYERS * b];
                for (int i = 0; i < count; i++) {
                    for (int layer = 0; layer < KitKv.LAYERS; layer++) {
                        PageBytes.fill(seed, layer, first + i, page, (i * KitKv.LAYERS + layer) * b, b);
                    }
                }
                assertThat(KitKv.digest(seed, first, count)).as("positions %d..%d", first, first + count - 1)
                        .isEqualTo(PageBytes.pageDigest(page, 0, page.length));
            }
        }
        // a page's digest depends on its bytes: another request's, another position's, one position fewer
        assertThat(KitKv.digest(seed, 1, 16)).isNotEqualTo(KitKv.digest(seed + 1, 1, 16))
                .isNotEqualTo(KitKv.digest(seed, 17, 16)).isNotEqualTo(KitKv.digest(seed, 1, 15));
    }

    @Test
    void everyPageTheReferenceRuntimeReportsIsTheModels() {
        for (Scenario sc : Scenarios.all()) {
            if (!sc.expectsAcceptance() || sc.options().flipRestoredBit()
                    || !sc.options().geometry().equals(lumen.runtime.KvGeometry.small(sc.config().pageTokens()))) {
                continue;
            }
            Map<Integer, Long> seeds = new HashMap<>();
            for (Arrival a : sc.workload()) {
                seeds.put(a.id(), a.seed());
            }
            int[] checked = {0};
            new ClusterRuntime(sc.config(), sc.cost(), sc.options(), (e, t) -> {
                PageDigest[] pages = e instanceof Event.Prefill p ? p.pages() : e instanceof Event.Decode d ? d.pages()
                        : e instanceof Event.StreamPage s ? s.pages() : e instanceof Event.Route r ? r.pages() : null;
                for (PageDigest p : pages == null ? new PageDigest[0] : pages) {
                    assertThat(p.digest()).as("%s: %s of request %d", sc.name(), e.action(), e.req()).isEqualTo(KitKv.digest(seeds.get(e.req()), p));
                    checked[0]++;
                }
            }).run(sc.workload(), sc.faults());
            assertThat(checked[0]).as(sc.name()).isPositive();
        }
    }
}
