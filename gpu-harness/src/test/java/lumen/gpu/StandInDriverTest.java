package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jcuda.CudaException;
import lumen.runtime.KvGeometry;
import lumen.sim.GpuProfile;
import lumen.sim.Preset;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JCuda layer ({@link CudaDevice}, JCuda's own native library, and {@link CudaBackend} above
 * them) on a stand-in for the CUDA driver library, {@code stand_in_cuda.cpp}: a strict host
 * implementation of the driver calls the backend makes, running the kernels on the host. Every
 * kernel-backend suite, the reference scenarios and the benchmark's code then go through the real
 * JNI marshalling, parameter blocks, pinned buffers, contexts, streams and events, where there is
 * no GPU. What only a GPU shows (the driver compiling the PTX, streams really overlapping, real
 * timings) stays for a GPU.
 *
 * <p>The build runs this class alone in its own JVM (the {@code stand-in-driver} execution of the
 * gpu-harness pom), whose library path leads JCuda to {@code target/stand-in-driver/libcuda.so.1},
 * compiled here before JCuda first loads. Run any other way, it is skipped.
 */
class StandInDriverTest extends KernelBackendContract {

    @BeforeAll
    static void driver() throws IOException, InterruptedException {
        String dir = System.getProperty("lumen.standInDriver");
        Assumptions.assumeTrue(dir != null, "run by the build's stand-in-driver execution only (its JVM's library path finds the stand-in)");
        Path d = Path.of(dir);
        Files.createDirectories(d);
        for (String name : List.of("stand_in_cuda.cpp", "host_kernels.h", "lumen_kernels.cu")) {
            try (InputStream in = StandInDriverTest.class.getResourceAsStream("/lumen/gpu/" + name)) {
                Files.write(d.resolve(name), in.readAllBytes());
            }
        }
        Process p;
        try {
            p = new ProcessBuilder("g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-ffp-contract=off", "-Wl,-soname,libcuda.so.1",
                    "-o", "libcuda.so.1", "stand_in_cuda.cpp").directory(d.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("no C++ compiler (g++) on this machine: " + e.getMessage());
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("the stand-in driver compiles:\n" + out).isEqualTo(0);
        CudaBackend.probe().ifPresent(r -> Assumptions.abort("JCuda did not load the stand-in driver: " + r));
        try (CudaBackend b = new CudaBackend(SMALL, 1)) {
            Assumptions.assumeTrue(CudaDevice.STAND_IN.equals(b.device), "JCuda loaded another driver: " + b.device);
        }
    }

    @Override
    Backend open(KvGeometry g, int pages) {
        return new CudaBackend(g, pages);
    }

    @Test
    void everyReferenceScenarioPassesThroughJCuda() {
        List<String> bad = RuntimeOnBackendTest.failures(g -> new CudaBackend(g, 512));
        assertThat(bad).as(String.join("\n", bad)).isEmpty();
    }

    @Test
    void theBenchmarkCompletesThroughJCudaAndItsFiguresAreRefused() {
        StringWriter text = new StringWriter();
        GpuProfile p = GpuBench.kernels(new PrintWriter(text, true), KernelBenchOnHostTest.SMOKE, CudaBackend::new);
        assertThat(p.backend()).as(text.toString()).isEqualTo("jcuda-on-stand-in-driver");
        assertThat(p.device()).isEqualTo(CudaDevice.STAND_IN);
        assertThat(p.stream().size()).isEqualTo(GpuBench.GEOMETRIES.size() * GpuBench.PAGE_TOKENS.length);
        assertThat(p.stream().stream().allMatch(s -> s.gbps() > 0) && p.decodeAloneMs() > 0 && p.verify().rejectionRowsPerS() > 0)
                .as(text.toString()).isTrue();
        IllegalArgumentException e = assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> p.applyTo(Preset.LLAMA3_70B.costModel(), "stand-in")).actual();
        assertThat(e.getMessage()).contains("the cost model takes GPU measurements only");
    }

    @Test
    void theStandInRefusesACopyPastAnAllocation() {
        try (CudaDevice dev = new CudaDevice()) {
            Device.Ptr p = dev.alloc(16);
            CudaException e = assertThatExceptionOfType(CudaException.class).isThrownBy(() -> dev.read(p, new int[5])).actual();
            assertThat(e.getMessage()).contains("CUDA_ERROR_INVALID_VALUE");
            dev.read(p, new int[4]);
        }
    }

    /** The suites fail with a seeded bug in the JCuda layer itself: they check the real driver calls, not only the kernels. */
    @Test
    void aChecksumReadOfHalfTheBytesFailsTheCpuTwin() {
        KernelMutantsTest.caught(() -> new CudaDevice() {
            @Override
            public void read(Device.Ptr p, long[] dst) {
                jcuda.driver.JCudaDriver.cuMemcpyDtoH(jcuda.Pointer.to(dst), at(p), (long) dst.length * jcuda.Sizeof.INT);
            }
        }, s -> s::checksumsAndDecodeEqualTheCpuTwins);
    }

    @Test
    void aStreamingCopyShortOfTheLastWordFailsBitExactness() {
        KernelMutantsTest.caught(() -> new CudaDevice() {
            @Override
            public void toHost(Device.Staging st, long bytes, int stream) {
                CudaStaging c = (CudaStaging) st;
                jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync(c.host, at(c.device), bytes - 16, stream(stream));
            }
        }, s -> s::aRestoreIsBitExactAndMatchesTheReferenceDataPlane);
    }
}
