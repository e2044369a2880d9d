package lumen.gpu;

import lumen.runtime.KvGeometry;

class CpuBackendTest extends BackendContract {
    @Override
    Backend open(KvGeometry g, int pages) {
        return new CpuBackend(g, pages);
    }
}
