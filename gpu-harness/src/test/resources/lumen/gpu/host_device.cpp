// A device for tests: runs the kernels of lumen_kernels.cu on the host, compiled by a C++
// compiler, one thread at a time (block by block, thread by thread, in index order). The kernels
// use no shared memory and no barriers, and their atomics are plain additions here, so the
// sequential run computes what any interleaving on a GPU computes. Built with AddressSanitizer
// and UndefinedBehaviorSanitizer where the compiler has them, so a kernel that reads or writes
// outside its buffers, or reads misaligned, stops with a report instead of passing.
//
// Protocol, little-endian, on stdin and stdout (lumen.gpu.HostDevice speaks the other side):
//   request: u8 op, then per op
//     1 alloc  i64 id, i64 bytes          (filled with 0xA5: nothing may rely on fresh memory being zero)
//     2 free   i64 id
//     3 zero   i64 id, i64 bytes
//     4 write  i64 id, i64 offset, i64 n, n bytes
//     5 read   i64 id, i64 offset, i64 n
//     6 launch u16 n, n bytes of name, i32 blocksX, i32 blocksY, i32 threads, i32 argc,
//              argc x (u8 tag 'P' | 'L' | 'I', i64 value; 'P' values are allocation ids)
//     0 quit
//   reply: u8 0, then for read its n bytes; or u8 1, u32 n, n bytes of the error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <string>
#include <unordered_map>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline

struct dim3 {
    unsigned int x, y, z;
};
static dim3 blockIdx, threadIdx, blockDim, gridDim;

struct alignas(16) uint4 {
    unsigned int x, y, z, w;
};
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
    return uint4{x, y, z, w};
}
struct alignas(4) uchar4 {
    unsigned char x, y, z, w;
};

static inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
    unsigned long long old = *a;
    *a = old + v;
    return old;
}
static inline unsigned int atomicAdd(unsigned int* a, unsigned int v) {
    unsigned int old = *a;
    *a = old + v;
    return old;
}

#include "lumen_kernels.cu"

namespace {

struct Buf {
    unsigned char* p;
    int64_t n;
};
std::unordered_map<int64_t, Buf> bufs;

void in(void* dst, size_t n) {
    if (n > 0 && fread(dst, 1, n, stdin) != n) {
        exit(0);  // the other side went away
    }
}
template <typename T> T get() {
    T v;
    in(&v, sizeof v);
    return v;
}
void out(const void* src, size_t n) {
    fwrite(src, 1, n, stdout);
}
void ok() {
    uint8_t s = 0;
    out(&s, 1);
}
void fail(const std::string& why) {
    uint8_t s = 1;
    uint32_t n = (uint32_t) why.size();
    out(&s, 1);
    out(&n, 4);
    out(why.data(), n);
}

Buf* find(int64_t id, std::string& err) {
    auto it = bufs.find(id);
    if (it == bufs.end()) {
        err = "no allocation " + std::to_string(id);
        return nullptr;
    }
    return &it->second;
}

bool range(Buf* b, int64_t off, int64_t n, std::string& err) {
    if (off < 0 || n < 0 || off + n > b->n) {
        err = "bytes " + std::to_string(off) + ".." + std::to_string(off + n) + " are outside an allocation of " + std::to_string(b->n);
        return false;
    }
    return true;
}

struct Arg {
    char tag;
    int64_t v;
};

template <typename F> void grid(int bx, int by, int threads, F kernel) {
    gridDim = {(unsigned) bx, (unsigned) by, 1};
    blockDim = {(unsigned) threads, 1, 1};
    for (int y = 0; y < by; y++) {
        for (int x = 0; x < bx; x++) {
            for (int t = 0; t < threads; t++) {
                blockIdx = {(unsigned) x, (unsigned) y, 0};
                threadIdx = {(unsigned) t, 0, 0};
                kernel();
            }
        }
    }
}

// Each kernel's parameters, by tag: 'P' a pointer, 'L' a 64-bit integer, 'I' a 32-bit integer.
const std::unordered_map<std::string, std::string> signatures = {
    {"fill_kv", "PPLIIIII"},
    {"zero_pages", "PPIL"},
    {"gather_pages", "PPILP"},
    {"scatter_pages", "PPILP"},
    {"page_checksum", "PPILP"},
    {"decode_attend", "PPPPIIIIP"},
    {"verify_greedy", "PPIIP"},
    {"verify_rejection", "PPPPPIIIPP"},
};

std::string launch(const std::string& name, int bx, int by, int threads, const std::vector<Arg>& a) {
    auto sig = signatures.find(name);
    if (sig == signatures.end()) return "no kernel " + name;
    if (sig->second.size() != a.size()) return name + " takes " + std::to_string(sig->second.size()) + " parameters";
    std::vector<void*> ptr(a.size(), nullptr);
    for (size_t i = 0; i < a.size(); i++) {
        if (a[i].tag != sig->second[i]) return name + " parameter " + std::to_string(i) + " has the wrong type";
        if (a[i].tag == 'P') {
            std::string err;
            Buf* b = find(a[i].v, err);
            if (!b) return name + " parameter " + std::to_string(i) + ": " + err;
            ptr[i] = b->p;
        }
    }
    if (bx < 1 || by < 1 || threads < 1 || by > 65535 || threads > 1024) return name + ": a grid CUDA would refuse";
#define P(i, T) ((T*) ptr[i])
#define L(i) ((long long) a[i].v)
#define I(i) ((int) a[i].v)
    if (name == "fill_kv") grid(bx, by, threads, [&] { fill_kv(P(0, unsigned char), P(1, const int), L(2), I(3), I(4), I(5), I(6), I(7)); });
    else if (name == "zero_pages") grid(bx, by, threads, [&] { zero_pages(P(0, uint4), P(1, const int), I(2), L(3)); });
    else if (name == "gather_pages") grid(bx, by, threads, [&] { gather_pages(P(0, const uint4), P(1, const int), I(2), L(3), P(4, uint4)); });
    else if (name == "scatter_pages") grid(bx, by, threads, [&] { scatter_pages(P(0, uint4), P(1, const int), I(2), L(3), P(4, const uint4)); });
    else if (name == "page_checksum") grid(bx, by, threads, [&] { page_checksum(P(0, const u64), P(1, const int), I(2), L(3), P(4, u64)); });
    else if (name == "decode_attend")
        grid(bx, by, threads, [&] { decode_attend(P(0, const unsigned char), P(1, const int), P(2, const int), P(3, const int), I(4), I(5), I(6), I(7), P(8, u32)); });
    else if (name == "verify_greedy") grid(bx, by, threads, [&] { verify_greedy(P(0, const int), P(1, const int), I(2), I(3), P(4, int)); });
    else if (name == "verify_rejection")
        grid(bx, by, threads, [&] {
            verify_rejection(P(0, const float), P(1, const float), P(2, const int), P(3, const float), P(4, const float), I(5), I(6), I(7), P(8, int), P(9, int));
        });
    return "";
}

}  // namespace

int main() {
    for (;;) {
        uint8_t op = get<uint8_t>();
        std::string err;
        if (op == 0) {
            return 0;
        } else if (op == 1) {
            int64_t id = get<int64_t>(), n = get<int64_t>();
            void* p = nullptr;
            if (n < 1 || posix_memalign(&p, 256, (size_t) n) != 0) {
                fail("cannot allocate " + std::to_string(n) + " bytes");
            } else {
                memset(p, 0xA5, (size_t) n);
                bufs[id] = Buf{(unsigned char*) p, n};
                ok();
            }
        } else if (op == 2) {
            int64_t id = get<int64_t>();
            Buf* b = find(id, err);
            if (b) {
                free(b->p);
                bufs.erase(id);
                ok();
            } else {
                fail(err);
            }
        } else if (op == 3) {
            int64_t id = get<int64_t>(), n = get<int64_t>();
            Buf* b = find(id, err);
            if (b && range(b, 0, n, err)) {
                memset(b->p, 0, (size_t) n);
                ok();
            } else {
                fail(err);
            }
        } else if (op == 4 || op == 5) {
            int64_t id = get<int64_t>(), off = get<int64_t>(), n = get<int64_t>();
            Buf* b = find(id, err);
            bool good = b && range(b, off, n, err);
            if (op == 4) {
                std::vector<unsigned char> data((size_t) n);
                in(data.data(), (size_t) n);
                if (good) memcpy(b->p + off, data.data(), (size_t) n);
            }
            if (!good) {
                fail(err);
            } else {
                ok();
                if (op == 5) out(b->p + off, (size_t) n);
            }
        } else if (op == 6) {
            uint16_t len = get<uint16_t>();
            std::string name(len, '\0');
            in(&name[0], len);
            int32_t bx = get<int32_t>(), by = get<int32_t>(), threads = get<int32_t>(), argc = get<int32_t>();
            std::vector<Arg> args((size_t) argc);
            for (auto& x : args) {
                x.tag = (char) get<uint8_t>();
                x.v = get<int64_t>();
            }
            err = launch(name, bx, by, threads, args);
            if (err.empty()) ok(); else fail(err);
        } else {
            fail("unknown request " + std::to_string(op));
        }
        fflush(stdout);
    }
}
