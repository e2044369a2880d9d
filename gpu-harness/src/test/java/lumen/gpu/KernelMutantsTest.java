package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import lumen.runtime.KvGeometry;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * One seeded bug per kernel, in the kernel source itself, compiled for the host: each makes a
 * suite of {@link KernelBackendContract} fail, so the suites check the kernels and not only the
 * Java around them. Skipped, with the reason, where there is no C++ compiler.
 */
class KernelMutantsTest {

    @BeforeAll
    static void compiler() {
        HostDevice.assumeBuildable();
    }

    /** {@code from} replaced by {@code to} in the kernel source, where it occurs exactly once. */
    static UnaryOperator<String> replace(String from, String to) {
        return src -> {
            int at = src.indexOf(from);
            assertThat(at >= 0 && src.indexOf(from, at + 1) < 0).as("the mutation's text occurs exactly once in lumen_kernels.cu: " + from).isTrue();
            return src.replace(from, to);
        };
    }

    /**
     * The suite fails on the backends {@code device} gives: an assertion fails, the restore check
     * refuses ("not bit-exact"), or the sanitizers stop the host device on a read or write outside a
     * buffer. Any other outcome, a mutant that does not compile included, fails the test. Returns what
     * the suite failed with.
     */
    static Throwable caught(Supplier<Device> device, Function<KernelBackendContract, Executable> suite) {
        KernelBackendContract s = new KernelBackendContract() {
            @Override
            Backend open(KvGeometry g, int pages) {
                return new KernelBackend(device, g, pages);
            }
        };
        try {
            suite.apply(s).execute();
        } catch (AssertionError e) {
            System.out.println("caught: " + e.getMessage().lines().filter(l -> !l.isBlank()).findFirst().orElse(""));
            return e;
        } catch (IllegalStateException e) {
            if (!e.getMessage().contains("not bit-exact") && !e.getMessage().startsWith("the host device stopped")) {
                fail("the suite failed on the mutant, but with an unexpected " + e);
            }
            System.out.println("caught: " + e.getMessage().lines().limit(3).reduce((a, b) -> a + " | " + b).orElse(""));
            return e;
        } catch (Throwable e) {
            fail("the suite failed on the mutant, but with an unexpected " + e);
        }
        return fail("the suite passed on a mutant");
    }

    /** The same, on the kernel source after {@code mutant}, compiled for the host. */
    private static Throwable caught(UnaryOperator<String> mutant, Function<KernelBackendContract, Executable> suite) {
        return caught(() -> HostDevice.start(mutant), suite);
    }

    @Test
    void fillKvWritingOnePositionAlongFailsTheReferenceDigest() {
        caught(replace("+ ((long long) ((pos - 1) % pageTokens) * layers + layer)", "+ ((long long) (pos % pageTokens) * layers + layer)"),
                s -> s::aRestoreIsBitExactAndMatchesTheReferenceDataPlane);
    }

    @Test
    void zeroPagesThatZeroesNothingFailsThePageContent() {
        caught(replace("pool[(long long) slots[i / pageWords] * pageWords + i % pageWords] = make_uint4(0, 0, 0, 0);", ""),
                s -> s::aPageHoldsItsPositionsThenZerosWhateverItsSlotHeldBefore);
    }

    @Test
    void scatterPagesIntoTheFirstSlotFailsTheRestoreCheck() {
        Throwable e = caught(replace("pool[(long long) slots[page] * pageWords + w] = staging[i];", "pool[(long long) slots[0] * pageWords + w] = staging[i];"),
                s -> s::aRestoreIsBitExactAndMatchesTheReferenceDataPlane);
        assertThat(e.getMessage()).contains("not bit-exact");
    }

    @Test
    void gatherPagesReadingPastItsSlotsIsStoppedByTheSanitizers() {
        Assumptions.assumeTrue(HostDevice.flags().startsWith("with AddressSanitizer"), "the host compiler has no sanitizers");
        Throwable e = caught(replace("long long total = (long long) n * pageWords;\n    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {\n        long long page = i / pageWords;\n        long long w = i % pageWords;\n        staging[i]",
                "long long total = (long long) n * pageWords;\n    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i <= total; i += (long long) gridDim.x * blockDim.x) {\n        long long page = i / pageWords;\n        long long w = i % pageWords;\n        staging[i]"),
                s -> s::aRestoreIsBitExactAndMatchesTheReferenceDataPlane);
        assertThat(e.getMessage().contains("the host device stopped") && e.getMessage().contains("AddressSanitizer")).as(e.getMessage()).isTrue();
    }

    @Test
    void pageChecksumWithoutTheWordIndexFailsTheCpuTwin() {
        caught(replace("acc += mix(p[i] ^ ((u64) i * 0x9E3779B97F4A7C15ULL));", "acc += mix(p[i]);"), s -> s::checksumsAndDecodeEqualTheCpuTwins);
    }

    @Test
    void decodeAttendSkippingTheLastWordFailsTheReadCheck() {
        caught(replace("i < bytes; i += stride", "i + 4 < bytes; i += stride"), s -> s::aDecodeStepReadsExactlyTheComputedBytes);
    }

    @Test
    void verifyGreedyEmittingNoBonusTokenFailsTheTargetsOutput() {
        caught(replace("emitted[b] = n + 1;", "emitted[b] = n;"), s -> s::greedyVerificationIsTheTargetsOutputTokenForToken);
    }

    @Test
    void verifyRejectionResamplingFromTheTargetFailsTheDistributionTest() {
        UnaryOperator<String> fromP = replace("for (int t = 0; t < v; t++) sum += fmaxf(0.0f, pi[t] - qi[t]);", "for (int t = 0; t < v; t++) sum += pi[t];");
        UnaryOperator<String> both = src -> replace("            acc += fmaxf(0.0f, pi[t] - qi[t]);", "            acc += pi[t];").apply(fromP.apply(src));
        caught(both, s -> s::rejectionSamplingKeepsTheTargetsDistribution);
    }

    @Test
    void aMutationThatChangesNothingIsRefused() {
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> HostDevice.start(UnaryOperator.identity())).actual();
        assertThat(e.getMessage()).isEqualTo("the mutation changed nothing in lumen_kernels.cu");
    }
}
