package lumen.gpu;

import java.util.Optional;
import lumen.runtime.KvGeometry;

/**
 * The JCuda backend: {@link KernelBackend} on CUDA device 0, through the driver API.
 * {@link #probe()} says why it is unavailable where it is: no kernels (nvcc was absent at build
 * time), no driver, or no device.
 */
public final class CudaBackend extends KernelBackend {
    static final String PTX = CudaDevice.PTX;

    /** The GPU's model name. */
    final String device;

    /** A pool of {@code capacityPages} pages of geometry {@code g} on device 0. */
    public CudaBackend(KvGeometry g, int capacityPages) {
        super(CudaDevice::new, g, capacityPages);
        this.device = dev.model();
    }

    /** Why the JCuda backend cannot run on this machine, or empty when it can. */
    public static Optional<String> probe() {
        return CudaDevice.probe();
    }
}
