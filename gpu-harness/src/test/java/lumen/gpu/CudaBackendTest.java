package lumen.gpu;

import lumen.runtime.KvGeometry;

/** The kernel backend suites on the GPU; skipped, with the reason, where there is no GPU. */
@RequiresGpu
class CudaBackendTest extends KernelBackendContract {

    @Override
    Backend open(KvGeometry g, int pages) {
        return new CudaBackend(g, pages);
    }
}
