// The LUMEN GPU harness kernels: the paged KV pool, its streaming and restore, a decode-like
// reader of the pool, and speculative verification. Every kernel has a CPU twin in
// lumen.gpu.CpuBackend that computes the same bytes and the same integers; the float kernels are
// compiled without FMA contraction (-fmad=false) and with IEEE division, so that the twin's float
// arithmetic, done in the same order, gives the same tokens.
//
// Layout: the pool is `slots` pages of pageBytes bytes; a request's page i lives in slot
// table[i]. Within a page, position p (1-based) and layer l start at
// ((p - 1) % pageTokens * layers + l) * bytesPerTokenLayer (lumen.runtime.KvGeometry.offset).

typedef unsigned long long u64;
typedef unsigned int u32;

__device__ __forceinline__ u64 mix(u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

extern "C" {

// The true KV bytes of positions from..to of one request (lumen.runtime.PageBytes.fill), one
// thread per (position, layer).
__global__ void fill_kv(unsigned char* pool, const int* table, long long seed, int from, int to,
                        int pageTokens, int layers, int bytesPerTokenLayer) {
    long long idx = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long count = (long long) (to - from + 1) * layers;
    if (idx >= count) return;
    int pos = from + (int) (idx / layers);
    int layer = (int) (idx % layers);
    int page = (pos - 1) / pageTokens;
    long long pageBytes = (long long) pageTokens * layers * bytesPerTokenLayer;
    unsigned char* out = pool + (long long) table[page] * pageBytes
            + ((long long) ((pos - 1) % pageTokens) * layers + layer) * bytesPerTokenLayer;
    u64 h = mix((u64) seed * 0x9E3779B97F4A7C15ULL + ((u64) layer << 32) + (u64) pos);
    for (int i = 0; i < bytesPerTokenLayer; i++) {
        if ((i & 7) == 0 && i > 0) h = mix(h + (u64) i);
        out[i] = (unsigned char) (h >> ((i & 7) * 8));
    }
}

// Zeroes n pages (slots[0..n)), 16 bytes per thread, grid-stride: a page a request is given starts
// as zeros, so its bytes past the request's last position are zeros on every backend.
__global__ void zero_pages(uint4* pool, const int* slots, int n, long long pageWords) {
    long long total = (long long) n * pageWords;
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        pool[(long long) slots[i / pageWords] * pageWords + i % pageWords] = make_uint4(0, 0, 0, 0);
    }
}

// Copies n pages (slots[0..n)) into a contiguous staging buffer, 16 bytes per thread, grid-stride.
__global__ void gather_pages(const uint4* pool, const int* slots, int n, long long pageWords, uint4* staging) {
    long long total = (long long) n * pageWords;
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        long long page = i / pageWords;
        long long w = i % pageWords;
        staging[i] = pool[(long long) slots[page] * pageWords + w];
    }
}

// The inverse: a staging buffer of n pages into slots[0..n) (a restore).
__global__ void scatter_pages(uint4* pool, const int* slots, int n, long long pageWords, const uint4* staging) {
    long long total = (long long) n * pageWords;
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        long long page = i / pageWords;
        long long w = i % pageWords;
        pool[(long long) slots[page] * pageWords + w] = staging[i];
    }
}

// The checksum of each of n pages: the sum mod 2^64 of mix(word_i ^ (i * golden)) over its 8-byte
// words; the sum is order-free, so threads add in any order and the CPU twin gets the same value.
// Pages go along y (grid-stride, so n may exceed the grid's y limit), words along x.
__global__ void page_checksum(const u64* pool, const int* slots, int n, long long pageWords8, u64* out) {
    for (int page = blockIdx.y; page < n; page += gridDim.y) {
        const u64* p = pool + (long long) slots[page] * pageWords8;
        u64 acc = 0;
        for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < pageWords8; i += (long long) gridDim.x * blockDim.x) {
            acc += mix(p[i] ^ ((u64) i * 0x9E3779B97F4A7C15ULL));
        }
        atomicAdd(out + page, acc);
    }
}

// A decode step's memory traffic: for each of the n requests of the batch (along y, grid-stride),
// read every KV byte of its first positions[b] positions through its page table, as attention
// reads K and V, and reduce them against a query pattern to one 32-bit value (sum mod 2^32 of
// byte * (1 + (index & 15))); the blocks along x share a request's bytes. tables: the batch's page
// tables, concatenated; tableStart[b], positions[b] per request.
__global__ void decode_attend(const unsigned char* pool, const int* tables, const int* tableStart, const int* positions, int n,
                              int pageTokens, int layers, int bytesPerTokenLayer, u32* out) {
    long long pageBytes = (long long) pageTokens * layers * bytesPerTokenLayer;
    long long tokenBytes = (long long) layers * bytesPerTokenLayer;
    long long stride = (long long) gridDim.x * blockDim.x * 4;
    for (int b = blockIdx.y; b < n; b += gridDim.y) {
        long long bytes = (long long) positions[b] * tokenBytes;
        const int* table = tables + tableStart[b];
        u32 acc = 0;
        for (long long i = ((long long) blockIdx.x * blockDim.x + threadIdx.x) * 4; i < bytes; i += stride) {
            long long pos0 = i / tokenBytes;
            long long within = i % tokenBytes;
            long long page = pos0 / pageTokens;
            long long off = (pos0 % pageTokens) * tokenBytes + within;
            const unsigned char* p = pool + (long long) table[page] * pageBytes + off;
            // tokenBytes is a multiple of 4, so the 4 bytes stay in one position's row
            uchar4 v = *reinterpret_cast<const uchar4*>(p);
            acc += (u32) v.x * (1u + (u32) ((i + 0) & 15)) + (u32) v.y * (1u + (u32) ((i + 1) & 15))
                 + (u32) v.z * (1u + (u32) ((i + 2) & 15)) + (u32) v.w * (1u + (u32) ((i + 3) & 15));
        }
        atomicAdd(out + b, acc);
    }
}

// Greedy verification of a batch: row b keeps the longest prefix of its k draft tokens that agrees
// with the target's tokens, then one target token; emitted[b] is how many tokens it emits (the
// target's first emitted[b] tokens).
__global__ void verify_greedy(const int* draft, const int* target, int k, int rows, int* emitted) {
    for (long long b = (long long) blockIdx.x * blockDim.x + threadIdx.x; b < rows; b += (long long) gridDim.x * blockDim.x) {
        int n = 0;
        while (n < k && draft[b * k + n] == target[b * (k + 1) + n]) n++;
        emitted[b] = n + 1;
    }
}

}

// One row of rejection-sampling verification; returns how many tokens it emits.
__device__ int verify_row(const float* p, const float* q, const int* draft, const float* uAccept, const float* uSample,
                          int k, int v, long long b, int* out) {
    for (int i = 0; i < k; i++) {
        const float* pi = p + (b * (k + 1) + i) * v;
        const float* qi = q + (b * k + i) * v;
        int x = draft[b * k + i];
        if (qi[x] == 0.0f || uAccept[b * k + i] * qi[x] < pi[x]) {
            out[b * (k + 1) + i] = x;
            continue;
        }
        float sum = 0.0f;
        for (int t = 0; t < v; t++) sum += fmaxf(0.0f, pi[t] - qi[t]);
        float u = uSample[b * (k + 1) + i] * sum;
        float acc = 0.0f;
        int pick = -1;
        for (int t = 0; t < v; t++) {
            acc += fmaxf(0.0f, pi[t] - qi[t]);
            if (pick < 0 && u < acc) pick = t;
        }
        for (int t = v - 1; pick < 0 && t >= 0; t--) {
            if (fmaxf(0.0f, pi[t] - qi[t]) > 0.0f) pick = t;
        }
        out[b * (k + 1) + i] = pick;
        return i + 1;
    }
    const float* pk = p + (b * (k + 1) + k) * v;
    float sum = 0.0f;
    for (int t = 0; t < v; t++) sum += pk[t];
    float u = uSample[b * (k + 1) + k] * sum;
    float acc = 0.0f;
    int pick = -1;
    for (int t = 0; t < v; t++) {
        acc += pk[t];
        if (pick < 0 && u < acc) pick = t;
    }
    for (int t = v - 1; pick < 0 && t >= 0; t--) {
        if (pk[t] > 0.0f) pick = t;
    }
    out[b * (k + 1) + k] = pick;
    return k + 1;
}

extern "C" {

// Rejection-sampling verification (Leviathan et al. 2023), one thread per row (grid-stride),
// vocabulary v: draft token x_i (drawn from q_i) is kept when uAccept_i * q_i(x) < p_i(x) (that is,
// with probability min(1, p/q)); at the first rejection a token is drawn from norm(max(0, p_i - q_i))
// with uSample_i, and the row stops; when all k are kept, one more is drawn from p_k with
// uSample_k. out[b * (k + 1) ..] gets the emitted tokens, emitted[b] their count.
__global__ void verify_rejection(const float* p, const float* q, const int* draft, const float* uAccept, const float* uSample,
                                 int k, int v, int rows, int* out, int* emitted) {
    for (long long b = (long long) blockIdx.x * blockDim.x + threadIdx.x; b < rows; b += (long long) gridDim.x * blockDim.x) {
        emitted[b] = verify_row(p, q, draft, uAccept, uSample, k, v, b, out);
    }
}

}
