// A stand-in for the CUDA driver library (libcuda.so.1), for tests of the JCuda layer where there
// is no GPU: JCuda's own native library loads it as it would the driver, and lumen.gpu.CudaDevice
// runs unchanged on top. It implements the driver calls CudaDevice makes, strictly: every call
// but cuInit, cuDriverGetVersion and the device queries needs a current context; device memory is
// host memory, and a copy, a memset or a kernel parameter that names an address outside every live
// allocation is refused (CUDA_ERROR_INVALID_VALUE); a kernel is looked up by name in the module,
// whose PTX must declare it; grids are checked against CUDA's limits. Kernels run at once on the
// host (host_kernels.h), so every stream's work is done when its call returns, and events read
// the host's clock. What it cannot show is what only a GPU does: PTX compilation by the driver,
// real concurrency between streams, and real timings.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "host_kernels.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef void* CUevent;

namespace {

const CUresult OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_DEVICE = 101, INVALID_IMAGE = 200,
               INVALID_CONTEXT = 201, INVALID_HANDLE = 400, NOT_FOUND = 500;

bool initialized = false;
int retained = 0;
char primary;  // the primary context's identity
void* current = nullptr;
std::map<uintptr_t, size_t> device;  // live device allocations: start, bytes
std::set<void*> pinned;
std::set<void*> streams;
std::map<void*, std::set<std::string>> modules;  // module: the kernels its PTX declares
std::map<void*, double> events;                   // event: the time recorded, or -1

CUresult refuse(CUresult r, const std::string& why) {
    if (getenv("LUMEN_STAND_IN_TRACE")) fprintf(stderr, "stand-in driver: %s\n", why.c_str());
    return r;
}

CUresult need_context() {
    if (!initialized) return NOT_INITIALIZED;
    return current == &primary && retained > 0 ? OK : refuse(INVALID_CONTEXT, "no current context");
}

// Whether [p, p + n) lies in one live allocation.
bool inside(uintptr_t p, size_t n) {
    auto it = device.upper_bound(p);
    if (it == device.begin()) return false;
    --it;
    return p >= it->first && p + n <= it->first + it->second;
}

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
    if (flags != 0) return INVALID_VALUE;
    initialized = true;
    return OK;
}

CUresult cuDriverGetVersion(int* v) {
    *v = 12060;
    return OK;
}

CUresult cuDeviceGetCount(int* n) {
    if (!initialized) return NOT_INITIALIZED;
    *n = 1;
    return OK;
}

CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    if (!initialized) return NOT_INITIALIZED;
    if (ordinal != 0) return INVALID_DEVICE;
    *d = 0;
    return OK;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
    if (d != 0) return INVALID_DEVICE;
    snprintf(name, (size_t) len, "%s", "lumen stand-in driver (host)");
    return OK;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
    if (d != 0) return INVALID_DEVICE;
    retained++;
    *c = &primary;
    return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    if (d != 0) return INVALID_DEVICE;
    if (retained == 0) return refuse(INVALID_CONTEXT, "released a primary context not retained");
    retained--;
    return OK;
}

CUresult cuCtxSetCurrent(CUcontext c) {
    if (c != &primary && c != nullptr) return refuse(INVALID_CONTEXT, "not a context");
    current = c;
    return OK;
}

CUresult cuModuleLoadData(CUmodule* m, const void* image) {
    if (CUresult r = need_context()) return r;
    std::string ptx((const char*) image);
    std::set<std::string> names;
    const std::string entry = ".entry ";
    for (size_t at = ptx.find(entry); at != std::string::npos; at = ptx.find(entry, at + 1)) {
        size_t end = ptx.find('(', at);
        names.insert(ptx.substr(at + entry.size(), end - at - entry.size()));
    }
    if (ptx.find(".version") == std::string::npos || names.empty()) return refuse(INVALID_IMAGE, "not PTX with kernels");
    void* handle = malloc(1);
    modules[handle] = names;
    *m = handle;
    return OK;
}

CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    if (CUresult r = need_context()) return r;
    auto it = modules.find(m);
    if (it == modules.end()) return INVALID_HANDLE;
    if (!it->second.count(name) || !host_kernels::signatures.count(name)) return refuse(NOT_FOUND, std::string("no kernel ") + name);
    *f = (void*) &host_kernels::signatures.find(name)->first;
    return OK;
}

CUresult cuModuleUnload(CUmodule m) {
    if (CUresult r = need_context()) return r;
    if (!modules.erase(m)) return INVALID_HANDLE;
    free(m);
    return OK;
}

CUresult cuStreamCreate(CUstream* s, unsigned flags) {
    if (CUresult r = need_context()) return r;
    if (flags > 1) return INVALID_VALUE;
    void* h = malloc(1);
    streams.insert(h);
    *s = h;
    return OK;
}

CUresult cuStreamDestroy_v2(CUstream s) {
    if (CUresult r = need_context()) return r;
    if (!streams.erase(s)) return INVALID_HANDLE;
    free(s);
    return OK;
}

CUresult cuStreamSynchronize(CUstream s) {
    if (CUresult r = need_context()) return r;
    return s == nullptr || streams.count(s) ? OK : INVALID_HANDLE;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
    if (CUresult r = need_context()) return r;
    if (n == 0) return INVALID_VALUE;
    void* m = nullptr;
    if (posix_memalign(&m, 256, n) != 0) return OUT_OF_MEMORY;
    memset(m, 0xA5, n);
    device[(uintptr_t) m] = n;
    *p = (CUdeviceptr) (uintptr_t) m;
    return OK;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
    if (CUresult r = need_context()) return r;
    if (!device.erase((uintptr_t) p)) return refuse(INVALID_VALUE, "freed an address that is no allocation's start");
    free((void*) (uintptr_t) p);
    return OK;
}

CUresult cuMemAllocHost_v2(void** p, size_t n) {
    if (CUresult r = need_context()) return r;
    void* m = malloc(n);
    if (!m) return OUT_OF_MEMORY;
    pinned.insert(m);
    *p = m;
    return OK;
}

CUresult cuMemFreeHost(void* p) {
    if (CUresult r = need_context()) return r;
    if (!pinned.erase(p)) return refuse(INVALID_VALUE, "freed host memory not allocated by cuMemAllocHost");
    free(p);
    return OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
    if (CUresult r = need_context()) return r;
    if (!inside(dst, n)) return refuse(INVALID_VALUE, "host-to-device copy outside every allocation");
    memcpy((void*) (uintptr_t) dst, src, n);
    return OK;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
    if (CUresult r = need_context()) return r;
    if (!inside(src, n)) return refuse(INVALID_VALUE, "device-to-host copy outside every allocation");
    memcpy(dst, (const void*) (uintptr_t) src, n);
    return OK;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
    if (s != nullptr && !streams.count(s)) return INVALID_HANDLE;
    return cuMemcpyHtoD_v2(dst, src, n);
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream s) {
    if (s != nullptr && !streams.count(s)) return INVALID_HANDLE;
    return cuMemcpyDtoH_v2(dst, src, n);
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
    if (CUresult r = need_context()) return r;
    if (!inside(p, n)) return refuse(INVALID_VALUE, "memset outside every allocation");
    memset((void*) (uintptr_t) p, v, n);
    return OK;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        CUstream s, void** params, void** extra) {
    if (CUresult r = need_context()) return r;
    if (s != nullptr && !streams.count(s)) return INVALID_HANDLE;
    const std::string& name = *(const std::string*) f;
    if (gz != 1 || by != 1 || bz != 1 || shared != 0 || extra != nullptr || params == nullptr) {
        return refuse(INVALID_VALUE, name + ": a launch shape the kernels do not use");
    }
    if (gx < 1 || gx > 2147483647u || gy < 1 || gy > 65535 || bx < 1 || bx > 1024) return refuse(INVALID_VALUE, name + ": a grid beyond CUDA's limits");
    const std::string& tags = host_kernels::signatures.find(name)->second;
    for (size_t i = 0; i < tags.size(); i++) {
        if (tags[i] == 'P') {
            uintptr_t p;
            memcpy(&p, params[i], 8);
            if (!inside(p, 1)) return refuse(INVALID_VALUE, name + " parameter " + std::to_string(i) + " is not device memory");
        }
    }
    std::string err = host_kernels::run(name, gx, gy, bx, params);
    return err.empty() ? OK : refuse(INVALID_VALUE, err);
}

CUresult cuEventCreate(CUevent* e, unsigned flags) {
    if (CUresult r = need_context()) return r;
    void* h = malloc(1);
    events[h] = -1;
    *e = h;
    return OK;
}

CUresult cuEventRecord(CUevent e, CUstream s) {
    if (CUresult r = need_context()) return r;
    if (!events.count(e) || (s != nullptr && !streams.count(s))) return INVALID_HANDLE;
    events[e] = now_ms();
    return OK;
}

CUresult cuEventSynchronize(CUevent e) {
    if (CUresult r = need_context()) return r;
    return events.count(e) ? OK : INVALID_HANDLE;
}

CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
    if (CUresult r = need_context()) return r;
    if (!events.count(a) || !events.count(b)) return INVALID_HANDLE;
    if (events[a] < 0 || events[b] < 0) return refuse(INVALID_HANDLE, "an event not recorded");
    *ms = (float) (events[b] - events[a]);
    return OK;
}

CUresult cuEventDestroy_v2(CUevent e) {
    if (CUresult r = need_context()) return r;
    if (!events.erase(e)) return INVALID_HANDLE;
    free(e);
    return OK;
}

}  // extern "C"
