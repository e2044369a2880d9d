// The kernels of lumen_kernels.cu compiled for the host, and a grid runner for them, shared by
// host_device.cpp (the test device lumen.gpu.HostDevice speaks to) and stand_in_cuda.cpp (a
// stand-in for the CUDA driver library under JCuda). A grid runs one thread at a time, block by
// block, thread by thread, in index order. The kernels use no shared memory and no barriers, and
// their atomics are plain additions here, so the sequential run computes what any interleaving on
// a GPU computes.
#pragma once
#include <cstdint>
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

namespace host_kernels {

// Each kernel's parameters, by tag: 'P' a pointer, 'L' a 64-bit integer, 'I' a 32-bit integer.
static const std::unordered_map<std::string, std::string> signatures = {
    {"fill_kv", "PPLIIIII"},
    {"zero_pages", "PPIL"},
    {"gather_pages", "PPILP"},
    {"scatter_pages", "PPILP"},
    {"page_checksum", "PPILP"},
    {"decode_attend", "PPPPIIIIP"},
    {"verify_greedy", "PPIIP"},
    {"verify_rejection", "PPPPPIIIPP"},
};

template <typename F> void grid(unsigned bx, unsigned by, unsigned threads, F kernel) {
    gridDim = {bx, by, 1};
    blockDim = {threads, 1, 1};
    for (unsigned y = 0; y < by; y++) {
        for (unsigned x = 0; x < bx; x++) {
            for (unsigned t = 0; t < threads; t++) {
                blockIdx = {x, y, 0};
                threadIdx = {t, 0, 0};
                kernel();
            }
        }
    }
}

// Runs kernel `name` on a grid; params[i] points at parameter i's bytes (8 for 'P' and 'L', 4 for
// 'I'), as CUDA's kernelParams do. Returns "" or why it refused.
static std::string run(const std::string& name, unsigned bx, unsigned by, unsigned threads, void* const* params) {
    auto sig = signatures.find(name);
    if (sig == signatures.end()) return "no kernel " + name;
    if (bx < 1 || by < 1 || threads < 1 || by > 65535 || threads > 1024) return name + ": a grid CUDA would refuse";
    const std::string& tags = sig->second;
    std::vector<void*> ptr(tags.size(), nullptr);
    std::vector<long long> lng(tags.size(), 0);
    std::vector<int> in(tags.size(), 0);
    for (size_t i = 0; i < tags.size(); i++) {
        if (tags[i] == 'P') memcpy(&ptr[i], params[i], 8);
        else if (tags[i] == 'L') memcpy(&lng[i], params[i], 8);
        else memcpy(&in[i], params[i], 4);
    }
#define P(i, T) ((T*) ptr[i])
#define L(i) (lng[i])
#define I(i) (in[i])
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
#undef P
#undef L
#undef I
    return "";
}

}  // namespace host_kernels
