package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The kernels the build compiled and the launches the Java side makes agree, checked without a
 * GPU: every kernel of the PTX is declared in {@link Device#SIGNATURES} with its parameter
 * sizes, and a launch with a wrong argument is refused before it reaches the driver.
 */
class KernelSignaturesTest {

    /** Kernel name to parameter sizes, read from the built PTX. */
    static Map<String, int[]> fromPtx(String ptx) {
        Map<String, int[]> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile("\\.visible \\.entry (\\w+)\\(([^)]*)\\)").matcher(ptx);
        while (m.find()) {
            Matcher p = Pattern.compile("\\.param \\.([usbf])(\\d+) ").matcher(m.group(2));
            java.util.List<Integer> sizes = new java.util.ArrayList<>();
            while (p.find()) {
                sizes.add(Integer.parseInt(p.group(2)) / 8);
            }
            out.put(m.group(1), sizes.stream().mapToInt(Integer::intValue).toArray());
        }
        return out;
    }

    @Test
    void theBuiltPtxHasEveryKernelWithTheParametersTheJavaSidePasses() throws IOException {
        InputStream in = CudaBackend.class.getResourceAsStream(CudaBackend.PTX);
        Assumptions.assumeTrue(in != null, "the PTX was not built (no nvcc when the kit was built)");
        Map<String, int[]> ptx;
        try (in) {
            ptx = fromPtx(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        }
        assertThat(ptx.keySet()).as("the kernels of lumen_kernels.cu and those the backend launches").isEqualTo(Device.SIGNATURES.keySet());
        for (Map.Entry<String, int[]> e : Device.SIGNATURES.entrySet()) {
            assertThat(e.getValue()).as(e.getKey() + "'s parameter sizes").isEqualTo(ptx.get(e.getKey()));
        }
    }

    /**
     * The PTX as built, and the same PTX at ISA 7.8 (what the backend gives a driver older than the
     * compiler), both assemble for the H200's sm_90 with ptxas, as the driver's JIT would; ptxas
     * comes with nvcc, so this runs where the PTX was built.
     */
    @Test
    void thePtxAndItsFallbackAssembleForSm90() throws IOException, InterruptedException {
        InputStream in = CudaBackend.class.getResourceAsStream(CudaBackend.PTX);
        Assumptions.assumeTrue(in != null, "the PTX was not built (no nvcc when the kit was built)");
        String ptx;
        try (in) {
            ptx = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("lumen-ptxas");
        String lowered = CudaDevice.lowered(ptx);
        assertThat(lowered.contains("\n.version 7.8\n") && !lowered.equals(ptx)).as("the fallback changes the ISA version only").isTrue();
        for (String[] v : new String[][] {{"built", ptx}, {"isa78", lowered}}) {
            java.nio.file.Path f = dir.resolve(v[0] + ".ptx");
            java.nio.file.Files.writeString(f, v[1]);
            Process p;
            try {
                p = new ProcessBuilder("ptxas", "-arch=sm_90", "-o", dir.resolve(v[0] + ".cubin").toString(), f.toString())
                        .redirectErrorStream(true).start();
            } catch (IOException e) {
                Assumptions.abort("no ptxas on this machine");
                return;
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(v[0] + " PTX for sm_90: " + out).isEqualTo(0);
        }
    }

    @Test
    void aLaunchWithAWrongArgumentIsRefused() {
        Device.Ptr d = new Device.Ptr(0);
        Device.check("verify_greedy", d, d, 4, 10, d);
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> Device.check("verify_greedy", d, d, 4L, 10, d)).actual();
        assertThat(e.getMessage()).isEqualTo("verify_greedy parameter 2 takes 4 bytes; launched with 8");
        e = assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> Device.check("verify_greedy", d, d, 4, 10)).actual();
        assertThat(e.getMessage()).contains("takes 5 parameters; launched with 4");
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> Device.check("no_such_kernel"));
    }

    @Test
    void theParserReadsSizesFromPtx() {
        Map<String, int[]> m = fromPtx(".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .f32 k_param_2\n)\n{");
        assertThat(m.get("k")).containsExactly(8, 4, 4);
    }
}
