package lumen.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import lumen.runtime.KvGeometry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kernel backend suites with the kernel source compiled for the host ({@link HostDevice}):
 * the whole GPU path but the CUDA driver, the kernels' indexing and arithmetic included, checked
 * against the CPU twins on machines without a GPU. Skipped, with the reason, where there is no
 * C++ compiler.
 */
class KernelsOnHostTest extends KernelBackendContract {

    @BeforeAll
    static void compiler() {
        HostDevice.assumeBuildable();
        System.out.println("kernels on the host, built " + HostDevice.flags());
    }

    @Override
    Backend open(KvGeometry g, int pages) {
        return new KernelBackend(HostDevice::start, g, pages);
    }

    @Test
    void everyReferenceScenarioPassesWithTheKernelsAsTheDataPlane() {
        List<String> bad = RuntimeOnBackendTest.failures(g -> new KernelBackend(HostDevice::start, g, 512));
        assertThat(bad).as(String.join("\n", bad)).isEmpty();
    }
}
