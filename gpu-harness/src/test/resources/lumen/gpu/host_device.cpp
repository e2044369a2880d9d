// A device for tests: runs the kernels of lumen_kernels.cu on the host (host_kernels.h), compiled
// by a C++ compiler, one thread at a time. Built with AddressSanitizer
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
#include <string>
#include <unordered_map>
#include <vector>

#include "host_kernels.h"

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

std::string launch(const std::string& name, int bx, int by, int threads, const std::vector<Arg>& a) {
    auto sig = host_kernels::signatures.find(name);
    if (sig == host_kernels::signatures.end()) return "no kernel " + name;
    if (sig->second.size() != a.size()) return name + " takes " + std::to_string(sig->second.size()) + " parameters";
    std::vector<int64_t> slot(a.size());
    std::vector<void*> params(a.size());
    for (size_t i = 0; i < a.size(); i++) {
        if (a[i].tag != sig->second[i]) return name + " parameter " + std::to_string(i) + " has the wrong type";
        slot[i] = a[i].v;
        if (a[i].tag == 'P') {
            std::string err;
            Buf* b = find(a[i].v, err);
            if (!b) return name + " parameter " + std::to_string(i) + ": " + err;
            void* p = b->p;
            memcpy(&slot[i], &p, 8);
        } else if (a[i].tag == 'I') {
            int32_t v = (int32_t) a[i].v;
            memcpy(&slot[i], &v, 4);
        }
        params[i] = &slot[i];
    }
    if (bx < 1 || by < 1 || threads < 1) return name + ": a grid CUDA would refuse";
    return host_kernels::run(name, (unsigned) bx, (unsigned) by, (unsigned) threads, params.data());
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
