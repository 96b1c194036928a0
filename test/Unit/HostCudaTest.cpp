//===- HostCudaTest.cpp - Tests of the host emulation of CUDA kernels -----===//
//
// The kernels below are written as CUDA C++ (__global__, __shared__,
// threadIdx, shuffles, ...) and run through fusec_host::launch, each with a
// small trampoline (a lambda object or a struct) as the launch context.
//
// Expected values never come from the code under test: they are computed
// by hand (the arithmetic is in a comment) or by simple sequential loops in
// this file that implement CUDA's documented rules directly (e.g. which
// thread of a grid-stride loop owns element i, which lane a shuffle reads:
// "__shfl_up_sync ... the lower delta lanes will be unchanged", "__shfl_xor
// ... accessing later groups returns the caller's own value").
//
// The diagnostics of HostCuda.h (deadlock, bad masks and widths, misuse
// outside a launch, bad launch configurations, no address space for the
// stacks) each have a death test.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "fusec/Runtime/Host/HostCuda.h"

namespace {

/// Launches a callable (the trampoline: it unpacks its captures and calls
/// the __global__ function) on every thread of a 1-D grid.
template <typename F> void run(unsigned grid, unsigned block, F &&f) {
  using Fn = std::remove_reference_t<F>;
  fusec_host::launch(
      grid, block, [](void *p) { (*static_cast<Fn *>(p))(); }, &f);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

__global__ void gridStrideCount(int *__restrict__ count,
                                int *__restrict__ owner, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    count[i] += 1;
    owner[i] = blockIdx.x * blockDim.x + threadIdx.x;
  }
}

struct Builtins {
  unsigned tid[3], bid[3], bdim[3], gdim[3];
  int warp;
};

__global__ void recordBuiltins(Builtins *out) {
  Builtins &b = out[blockIdx.x * blockDim.x + threadIdx.x];
  b = Builtins{{threadIdx.x, threadIdx.y, threadIdx.z},
               {blockIdx.x, blockIdx.y, blockIdx.z},
               {blockDim.x, blockDim.y, blockDim.z},
               {gridDim.x, gridDim.y, gridDim.z},
               warpSize};
}

// Five phases; in each, every thread writes its slot and counts itself in
// shared memory, then after a barrier checks that all threads of the block
// have arrived and that its neighbour's slot holds this phase's value; a
// second barrier keeps the next phase's writes after all reads.
__global__ void barrierPhases(int *errors) {
  __shared__ int slots[1024];
  __shared__ int arrived;
  unsigned t = threadIdx.x;
  if (t == 0)
    arrived = 0;
  __syncthreads();
  int bad = 0;
  for (int p = 0; p < 5; ++p) {
    slots[t] = p * 10000 + static_cast<int>(t + blockIdx.x * 1000);
    atomicAdd(&arrived, 1);
    __syncthreads();
    if (arrived != (p + 1) * static_cast<int>(blockDim.x))
      ++bad;
    unsigned nb = (t + 1) % blockDim.x;
    if (slots[nb] != p * 10000 + static_cast<int>(nb + blockIdx.x * 1000))
      ++bad;
    __syncthreads();
  }
  errors[blockIdx.x * blockDim.x + t] = bad;
}

// Threads below `stay` exchange values through shared memory across a
// barrier; the others return first. The barrier waits only for the threads
// that have not exited.
__global__ void barrierAfterExits(int *out, unsigned stay, bool lowStay) {
  __shared__ int vals[1024];
  unsigned t = threadIdx.x;
  bool stays = lowStay ? t < stay : t >= blockDim.x - stay;
  if (!stays)
    return;
  vals[t] = static_cast<int>(t) * 3;
  __syncthreads();
  unsigned first = lowStay ? 0 : blockDim.x - stay;
  unsigned nb = first + (t - first + 1) % stay;
  out[t] = vals[nb];
}

__global__ void barrierVotes(int *out) {
  unsigned t = threadIdx.x;
  int *o = out + 5 * t;
  o[0] = __syncthreads_count(t % 3 == 0);
  o[1] = __syncthreads_and(t < 1000);
  o[2] = __syncthreads_and(t != 57);
  o[3] = __syncthreads_or(t == 57);
  o[4] = __syncthreads_or(0);
}

// Sums in[0..n) with a grid-stride loop; each block writes its sum and adds
// it to *total. Warps reduce with __shfl_down_sync over the lanes that exist
// (mask from __ballot_sync, guarded adds, so partial warps are exact), then
// warp 0 combines the warps' sums from shared memory with __shfl_xor_sync.
__global__ void blockSum(const int *__restrict__ in, int n,
                         long long *__restrict__ blockSums,
                         unsigned long long *total) {
  __shared__ long long warpSums[32];
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned nwarps = (blockDim.x + 31) / 32;
  long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += in[i];
  unsigned lanes = __ballot_sync(0xffffffffu, 1);
  unsigned nl = static_cast<unsigned>(__popc(lanes));
  for (unsigned o = 16; o > 0; o >>= 1) {
    long long other = __shfl_down_sync(lanes, s, o);
    if (lane + o < nl)
      s += other;
  }
  if (lane == 0)
    warpSums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < nwarps ? warpSums[lane] : 0;
    for (int o = 16; o > 0; o >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) {
      blockSums[blockIdx.x] = s;
      atomicAdd(total, static_cast<unsigned long long>(s));
    }
  }
}

__global__ void warpTreeSums(const float *in, float *downSum, float *xorSum) {
  float v = in[threadIdx.x];
  float d = v, x = v;
  for (int o = 16; o > 0; o >>= 1)
    d += __shfl_down_sync(0xffffffffu, d, o);
  for (int o = 16; o > 0; o >>= 1)
    x += __shfl_xor_sync(0xffffffffu, x, o);
  downSum[threadIdx.x] = d;
  xorSum[threadIdx.x] = x;
}

struct ShuffleOut {
  int up, down, idx, bfly;
};

__global__ void shuffles(int width, int delta, int srcLane, ShuffleOut *out) {
  int v = 100 + static_cast<int>(threadIdx.x);
  ShuffleOut &o = out[threadIdx.x];
  o.up = __shfl_up_sync(0xffffffffu, v, static_cast<unsigned>(delta), width);
  o.down =
      __shfl_down_sync(0xffffffffu, v, static_cast<unsigned>(delta), width);
  o.idx = __shfl_sync(0xffffffffu, v, srcLane, width);
  o.bfly = __shfl_xor_sync(0xffffffffu, v, delta, width);
}

template <typename T> __global__ void shuffleType(T *data) {
  T v = data[threadIdx.x];
  data[threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 1);
}

struct PartialOut {
  unsigned active, ballotAll;
  int down8, idx3;
};

__global__ void partialWarp(PartialOut *out) {
  int v = 10 * static_cast<int>(threadIdx.x);
  PartialOut &o = out[threadIdx.x];
  o.active = __activemask();
  o.ballotAll = __ballot_sync(0xffffffffu, 1);
  o.down8 = __shfl_down_sync(0xffffffffu, v, 8);
  o.idx3 = __shfl_sync(0xffffffffu, v, 3);
}

struct MaskOut {
  int halves, down;
  unsigned ballot;
};

__global__ void partialMasks(MaskOut *out) {
  unsigned lane = threadIdx.x % 32;
  int v = 1000 + static_cast<int>(lane);
  MaskOut &o = out[threadIdx.x];
  // The halves of the warp shuffle independently: the lower one reverses
  // its lanes, the upper one swaps neighbours.
  if (lane < 16)
    o.halves = __shfl_sync(0x0000ffffu, v, 15 - static_cast<int>(lane));
  else
    o.halves = __shfl_xor_sync(0xffff0000u, v, 1);
  // Even and odd lanes vote separately.
  if (lane % 2 == 0)
    o.ballot = __ballot_sync(0x55555555u, lane % 4 == 0);
  else
    o.ballot = __ballot_sync(0xaaaaaaaau, 1);
  // Only lanes 0..7 take part; lane 7's source, lane 8, does not.
  o.down = lane < 8 ? __shfl_down_sync(0x000000ffu, v, 1) : -1;
  __syncwarp(lane < 16 ? 0x0000ffffu : 0xffff0000u);
}

// Lanes from `first` on return at once; the others meet at __syncwarp, which
// completes when the last of the leavers exits, then read __activemask (and
// meet again, so that none exits before all have read it).
__global__ void activeAfterExits(unsigned *out, unsigned first) {
  if (threadIdx.x % 32 >= first)
    return;
  __syncwarp();
  unsigned active = __activemask();
  __syncwarp(active);
  out[threadIdx.x] = active;
}

struct VoteOut {
  unsigned ballot3, ballotHigh;
  int any17, anyNone, allTrue, allBut5;
};

__global__ void votes(VoteOut *out) {
  unsigned lane = threadIdx.x % 32;
  VoteOut &o = out[threadIdx.x];
  o.ballot3 = __ballot_sync(0xffffffffu, lane % 3 == 0);
  o.ballotHigh = __ballot_sync(0xffffffffu, threadIdx.x >= 40);
  o.any17 = __any_sync(0xffffffffu, lane == 17);
  o.anyNone = __any_sync(0xffffffffu, 0);
  o.allTrue = __all_sync(0xffffffffu, lane < 32);
  o.allBut5 = __all_sync(0xffffffffu, lane != 5);
}

// 128-bit loads and stores through reinterpret_cast, grid-stride.
__global__ void vectorCopy(const float *__restrict__ in,
                           float *__restrict__ out,
                           const unsigned *__restrict__ bits,
                           unsigned *__restrict__ bitsOut, int n4) {
  const float4 *in4 = reinterpret_cast<const float4 *>(in);
  float4 *out4 = reinterpret_cast<float4 *>(out);
  const uint4 *bits4 = reinterpret_cast<const uint4 *>(bits);
  uint4 *bitsOut4 = reinterpret_cast<uint4 *>(bitsOut);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += blockDim.x * gridDim.x) {
    float4 a = in4[i];
    out4[i] = make_float4(a.x * 2.0f, a.y + 1.0f, -a.z, a.w);
    uint4 b = bits4[i];
    bitsOut4[i] = make_uint4(b.w, b.z, b.y, b.x ^ 0xffffffffu);
  }
}

__global__ void logOrder(int *log, int *pos, float *sum, const float *vals) {
  unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  log[atomicAdd(pos, 1)] = static_cast<int>(t);
  atomicAdd(sum, vals[t]);
  __syncthreads();
  log[atomicAdd(pos, 1)] = 1000 + static_cast<int>(t);
  int v = __shfl_xor_sync(0xffffffffu, static_cast<int>(t), 1);
  atomicAdd(sum, vals[t] * 0.5f);
  log[atomicAdd(pos, 1)] = 2000 + v;
}

__global__ void atomics(int *count, unsigned *ucount, unsigned long long *big,
                        float *half, int *tickets) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(count, 1);
  atomicAdd(ucount, 2u);
  atomicAdd(big, 1ull << 33);
  atomicAdd(half, 0.5f);
  tickets[g] = atomicAdd(count + 1, 1);
}

// Each thread fills 8 KiB of its own stack, then checks it after barriers
// and a shuffle (other threads ran on their own stacks in between).
__global__ void stackIsolation(int *errors) {
  volatile int local[2048];
  int seed = static_cast<int>(threadIdx.x * 7919 + blockIdx.x * 104729);
  for (int i = 0; i < 2048; ++i)
    local[i] = seed + i;
  __syncthreads();
  int bad = 0;
  for (int i = 0; i < 2048; ++i)
    bad += local[i] != seed + i;
  for (int i = 0; i < 2048; ++i)
    local[i] = seed - i;
  (void)__shfl_down_sync(0xffffffffu, bad, 1);
  __syncthreads();
  for (int i = 0; i < 2048; ++i)
    bad += local[i] != seed - i;
  errors[blockIdx.x * blockDim.x + threadIdx.x] = bad;
}

__global__ void scaleAdd(float *out, const float *in, float a, int b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = in[i] * a + static_cast<float>(b);
}

// Kernels with bugs, for the diagnostics.
__global__ void divergentBarrier() {
  if (threadIdx.x < 16)
    __syncthreads();
  else
    __syncwarp();
}

__global__ void deadlockInBlock2() {
  if (blockIdx.x != 2)
    return;
  if (threadIdx.x == 0)
    (void)__shfl_sync(0x3u, 1, 1);
  else
    __syncthreads();
}

__global__ void laneNotInMask() { (void)__shfl_sync(0x1u, 7, 0); }

__global__ void overlappingMasks() {
  if (threadIdx.x == 0)
    __syncwarp(0x3u);
  else
    __syncwarp(0x7u);
}

__global__ void mismatchedCollectives() {
  if (threadIdx.x == 0)
    __syncwarp(0x3u);
  else
    (void)__ballot_sync(0x3u, 1);
}

__global__ void badWidth() { (void)__shfl_sync(0xffffffffu, 1.0f, 0, 12); }

__device__ __noinline__ int deepRecursion(int depth) {
  volatile char frame[1024];
  for (int k = 0; k < 1024; k += 128)
    frame[k] = static_cast<char>(depth + k);
  int below = depth > 0 ? deepRecursion(depth - 1) : 0;
  return below + frame[(depth * 129) & 1023];
}

// Thread 1 finishes the barrier and carries on, on its own stack above
// thread 0's (which is in use only at its top), and recurses in 1 KiB frames
// 8 KiB or more past its end: into its guard pages, not into thread 0's
// stack.
__global__ void stackOverflow(int *out) {
  __syncthreads();
  if (threadIdx.x == 1)
    *out = deepRecursion(FUSEC_HOST_STACK_SIZE / 1024 + 8);
}

__global__ void nestedLaunch() {
  run(1, 1, [] {});
}

//===----------------------------------------------------------------------===//
// Helpers for the expected values.
//===----------------------------------------------------------------------===//

std::vector<int> testInts(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<int>((i * 7919LL) % 2001) - 1000;
  return v;
}

} // namespace

//===----------------------------------------------------------------------===//
// Types and keywords
//===----------------------------------------------------------------------===//

// CUDA's vector_types.h sizes and alignments.
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "");
static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "");
static_assert(sizeof(longlong2) == 16 && alignof(longlong2) == 16, "");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "");
static_assert(sizeof(uint2) == 8 && alignof(uint2) == 8, "");
static_assert(sizeof(ushort4) == 8 && alignof(ushort4) == 8, "");
static_assert(sizeof(short4) == 8 && alignof(short4) == 8, "");
static_assert(sizeof(ushort2) == 4 && alignof(ushort2) == 4, "");
static_assert(sizeof(short2) == 4 && alignof(short2) == 4, "");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "");
static_assert(sizeof(uint3) == 12 && sizeof(dim3) == 12, "");
static_assert(warpSize == 32, "");

struct __align__(16) Aligned16 {
  float a;
};
static_assert(alignof(Aligned16) == 16, "");

TEST(HostCuda, VectorTypesAndMakeFunctions) {
  float4 f = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  EXPECT_EQ(f.x + f.y + f.z + f.w, 10.0f);
  uint2 u = make_uint2(7u, 9u);
  EXPECT_EQ(u.x * u.y, 63u);
  ushort4 s = make_ushort4(1, 2, 3, 65535);
  EXPECT_EQ(s.w, 65535);
  dim3 d(5);
  EXPECT_EQ(d.x, 5u);
  EXPECT_EQ(d.y, 1u);
  EXPECT_EQ(d.z, 1u);
}

TEST(HostCuda, MathAndBitIntrinsics) {
  EXPECT_EQ(min(3, -2), -2);
  EXPECT_EQ(max(3, -2), 3);
  // Mixed signedness compares as unsigned, as in CUDA: -1 -> 4294967295.
  EXPECT_EQ(max(-1, 2u), 4294967295u);
  EXPECT_EQ(min(5ull, 7ull), 5ull);
  EXPECT_EQ(min(2.5f, -1.0f), -1.0f);
  EXPECT_EQ(max(2.5, 1.0), 2.5);
  EXPECT_EQ(rsqrtf(4.0f), 0.5f);
  EXPECT_EQ(__saturatef(1.5f), 1.0f);
  EXPECT_EQ(__saturatef(-0.5f), 0.0f);
  EXPECT_EQ(__saturatef(NAN), 0.0f);
  EXPECT_EQ(__saturatef(0.25f), 0.25f);
  EXPECT_EQ(__fdividef(1.0f, 4.0f), 0.25f);
  EXPECT_EQ(__float_as_uint(1.0f), 0x3f800000u); // IEEE: 127 << 23
  EXPECT_EQ(__int_as_float(0x40000000), 2.0f);   // 128 << 23
  EXPECT_EQ(__popc(0xf0f0u), 8);
  EXPECT_EQ(__popcll(~0ull), 64);
  EXPECT_EQ(__clz(1), 31);
  EXPECT_EQ(__clz(0), 32);
  EXPECT_EQ(__ffs(0x8), 4);
  EXPECT_EQ(__ffs(0), 0);
  float x = 3.0f;
  EXPECT_EQ(__ldg(&x), 3.0f);
  EXPECT_EQ(__expf(0.0f), 1.0f);
}

//===----------------------------------------------------------------------===//
// Launches and built-in variables
//===----------------------------------------------------------------------===//

TEST(HostCuda, GridStrideLoopCoversEveryElementOnce) {
  struct Case {
    int n;
    unsigned grid, block;
  };
  for (Case c : {Case{1, 1, 1}, Case{37, 1, 32}, Case{1000, 3, 48},
                 Case{4099, 7, 96}, Case{10007, 5, 1024}, Case{333, 50, 17},
                 Case{100003, 13, 255}, Case{65, 2, 33}}) {
    SCOPED_TRACE(testing::Message()
                 << "n " << c.n << " grid " << c.grid << " block " << c.block);
    std::vector<int> count(static_cast<size_t>(c.n), 0),
        owner(static_cast<size_t>(c.n), -1);
    int *cp = count.data(), *op = owner.data();
    int n = c.n;
    run(c.grid, c.block, [=] { gridStrideCount(cp, op, n); });
    // Element i belongs to global thread i mod (grid * block).
    int threads = static_cast<int>(c.grid * c.block);
    for (int i = 0; i < c.n; ++i) {
      ASSERT_EQ(count[static_cast<size_t>(i)], 1) << "element " << i;
      ASSERT_EQ(owner[static_cast<size_t>(i)], i % threads) << "element " << i;
    }
  }
}

TEST(HostCuda, MillionElementLaunch) {
  // The size the emulation is meant for: 2^20 floats, blockDim 256, with one
  // element per thread (grid 4096) and with long grid-stride loops (grid 80).
  int n = 1 << 20;
  std::vector<float> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    in[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  for (unsigned grid : {4096u, 80u}) {
    std::fill(out.begin(), out.end(), -1.0f);
    float *o = out.data();
    const float *p = in.data();
    run(grid, 256, [=] { scaleAdd(o, p, 2.0f, 3, n); });
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[static_cast<size_t>(i)],
                static_cast<float>(i % 1000) * 2.0f + 3.0f)
          << "grid " << grid << " element " << i;
  }
}

TEST(HostCuda, BuiltinVariables) {
  unsigned grid = 3, block = 40;
  std::vector<Builtins> out(grid * block);
  Builtins *p = out.data();
  run(grid, block, [=] { recordBuiltins(p); });
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < block; ++t) {
      const Builtins &x = out[b * block + t];
      EXPECT_EQ(x.tid[0], t);
      EXPECT_EQ(x.tid[1], 0u);
      EXPECT_EQ(x.tid[2], 0u);
      EXPECT_EQ(x.bid[0], b);
      EXPECT_EQ(x.bid[1], 0u);
      EXPECT_EQ(x.bid[2], 0u);
      EXPECT_EQ(x.bdim[0], block);
      EXPECT_EQ(x.bdim[1], 1u);
      EXPECT_EQ(x.bdim[2], 1u);
      EXPECT_EQ(x.gdim[0], grid);
      EXPECT_EQ(x.gdim[1], 1u);
      EXPECT_EQ(x.gdim[2], 1u);
      EXPECT_EQ(x.warp, 32);
    }
}

TEST(HostCuda, LaunchWithContextStruct) {
  // The plain interface: a function pointer and a context the caller packs.
  struct Context {
    float *out;
    const float *in;
    int n;
    static void body(void *p) {
      Context *c = static_cast<Context *>(p);
      scaleAdd(c->out, c->in, 0.5f, -1, c->n);
    }
  };
  std::vector<float> in = {2.0f, 4.0f, 6.0f, 8.0f, 10.0f};
  std::vector<float> out(5, 0.0f);
  Context ctx{out.data(), in.data(), 5};
  fusec_host::launch(2, 2, &Context::body, &ctx);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f}));
}

TEST(HostCuda, LaunchKernelForwardsArguments) {
  std::vector<float> in = {1.0f, 2.0f, 3.0f};
  std::vector<float> out(3, 0.0f);
  fusec_host::launchKernel(1, 32, scaleAdd, out.data(), in.data(), 10.0f, 1, 3);
  EXPECT_EQ(out, (std::vector<float>{11.0f, 21.0f, 31.0f}));
}

//===----------------------------------------------------------------------===//
// __syncthreads
//===----------------------------------------------------------------------===//

TEST(HostCuda, SyncthreadsOrdersPhases) {
  for (unsigned block : {1u, 33u, 256u, 1024u}) {
    unsigned grid = 3;
    std::vector<int> errors(grid * block, -1);
    int *e = errors.data();
    run(grid, block, [=] { barrierPhases(e); });
    EXPECT_EQ(std::count(errors.begin(), errors.end(), 0),
              static_cast<long>(grid * block))
        << "block " << block;
  }
}

TEST(HostCuda, SyncthreadsWaitsOnlyForThreadsThatHaveNotExited) {
  // Low threads stay: they reach the barrier first, and it completes when
  // the last of the others exits. High threads stay: the barrier completes
  // when the last of them arrives.
  for (bool low : {true, false}) {
    unsigned block = 64, stay = 10;
    std::vector<int> out(block, -1);
    int *o = out.data();
    run(1, block, [=] { barrierAfterExits(o, stay, low); });
    unsigned first = low ? 0 : block - stay;
    for (unsigned t = 0; t < block; ++t) {
      bool stays = t >= first && t < first + stay;
      int expected =
          stays ? static_cast<int>(first + (t - first + 1) % stay) * 3 : -1;
      EXPECT_EQ(out[t], expected) << "low " << low << " thread " << t;
    }
  }
}

TEST(HostCuda, SyncthreadsCountAndOr) {
  unsigned block = 100;
  std::vector<int> out(5 * block, -1);
  int *o = out.data();
  run(1, block, [=] { barrierVotes(o); });
  for (unsigned t = 0; t < block; ++t) {
    EXPECT_EQ(out[5 * t + 0], 34); // t % 3 == 0 for t = 0, 3, ..., 99
    EXPECT_EQ(out[5 * t + 1], 1);
    EXPECT_EQ(out[5 * t + 2], 0);
    EXPECT_EQ(out[5 * t + 3], 1);
    EXPECT_EQ(out[5 * t + 4], 0);
  }
}

TEST(HostCuda, ThreadsKeepTheirOwnStacks) {
  unsigned grid = 2, block = 96;
  std::vector<int> errors(grid * block, -1);
  int *e = errors.data();
  run(grid, block, [=] { stackIsolation(e); });
  EXPECT_EQ(std::count(errors.begin(), errors.end(), 0),
            static_cast<long>(grid * block));
}

//===----------------------------------------------------------------------===//
// Reductions with shared memory and shuffles
//===----------------------------------------------------------------------===//

TEST(HostCuda, BlockReductionOfIntegers) {
  int n = 100003;
  std::vector<int> in = testInts(n);
  for (unsigned block : {32u, 48u, 256u, 1000u, 1024u})
    for (unsigned grid : {1u, 3u, 7u}) {
      std::vector<long long> sums(grid, 0);
      unsigned long long total = 0;
      const int *ip = in.data();
      long long *sp = sums.data();
      unsigned long long *tp = &total;
      run(grid, block, [=] { blockSum(ip, n, sp, tp); });
      // Element i is summed by global thread i mod (grid * block), in block
      // (i mod (grid * block)) / block.
      std::vector<long long> expected(grid, 0);
      long long all = 0;
      for (int i = 0; i < n; ++i) {
        expected[(static_cast<unsigned>(i) % (grid * block)) / block] +=
            in[static_cast<size_t>(i)];
        all += in[static_cast<size_t>(i)];
      }
      EXPECT_EQ(sums, expected) << "block " << block << " grid " << grid;
      EXPECT_EQ(static_cast<long long>(total), all)
          << "block " << block << " grid " << grid;
    }
}

TEST(HostCuda, WarpReductionFloatTreeOrder) {
  // in = [1e8, 1, -1e8, 1, 0, ..., 0]. Float spacing at 1e8 is 8, so the
  // order of the additions shows:
  //  - sequentially, ((1e8 + 1) + -1e8) + 1 = (1e8 + -1e8) + 1 = 1;
  //  - __shfl_down_sync tree (offsets 16, 8, 4 only add zeros to lanes
  //    0..3): offset 2 gives lane 0 1e8 + -1e8 = 0 and lane 1 1 + 1 = 2,
  //    offset 1 gives lane 0 0 + 2 = 2;
  //  - __shfl_xor_sync butterfly: after 16, 8, 4 lane l holds in[l % 4];
  //    xor 2 gives lanes 0, 2 mod 4: 1e8 + -1e8 = 0, lanes 1, 3: 2; xor 1
  //    gives every lane 0 + 2 = 2.
  std::vector<float> in(32, 0.0f);
  in[0] = 1e8f;
  in[1] = 1.0f;
  in[2] = -1e8f;
  in[3] = 1.0f;
  float seq = 0.0f;
  for (float v : in)
    seq += v;
  EXPECT_EQ(seq, 1.0f);
  std::vector<float> down(32), bfly(32);
  const float *ip = in.data();
  float *dp = down.data(), *bp = bfly.data();
  run(1, 32, [=] { warpTreeSums(ip, dp, bp); });
  EXPECT_EQ(down[0], 2.0f);
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(bfly[static_cast<size_t>(l)], 2.0f) << "lane " << l;
}

//===----------------------------------------------------------------------===//
// Shuffles, votes, masks
//===----------------------------------------------------------------------===//

TEST(HostCuda, ShuffleEdgeLanesAndWidths) {
  // Two warps, so that lanes are threadIdx.x % 32 and warps stay apart.
  for (int width : {32, 16, 8, 4, 2, 1})
    for (int delta = 0; delta < 32; ++delta)
      for (int srcLane : {delta, delta + 37, -1 - delta}) {
        std::vector<ShuffleOut> out(64);
        ShuffleOut *o = out.data();
        run(1, 64, [=] { shuffles(width, delta, srcLane, o); });
        for (int t = 0; t < 64; ++t) {
          int lane = t % 32, base = t - lane;
          int seg = lane / width * width; // first lane of the segment
          auto v = [&](int l) { return 100 + base + l; };
          // Documented rules: up/down do not wrap around the segment (the
          // caller keeps its value), idx takes srcLane modulo width, xor
          // may read earlier segments but not later ones.
          int up = lane - delta >= seg ? v(lane - delta) : v(lane);
          int down = lane + delta < seg + width ? v(lane + delta) : v(lane);
          int idx = v(seg + ((srcLane % width) + width) % width);
          int bfly = (lane ^ delta) < seg + width ? v(lane ^ delta) : v(lane);
          const ShuffleOut &r = out[static_cast<size_t>(t)];
          ASSERT_EQ(r.up, up)
              << "width " << width << " delta " << delta << " thread " << t;
          ASSERT_EQ(r.down, down)
              << "width " << width << " delta " << delta << " thread " << t;
          ASSERT_EQ(r.idx, idx)
              << "width " << width << " srcLane " << srcLane << " thread " << t;
          ASSERT_EQ(r.bfly, bfly)
              << "width " << width << " laneMask " << delta << " thread " << t;
        }
      }
}

TEST(HostCuda, ShuffleMovesAllBitsOfEachType) {
  // xor 1 swaps neighbours; values that need all 64 (or 32) bits.
  std::vector<double> d(32);
  std::vector<unsigned long long> u(32);
  std::vector<long long> ll(32);
  std::vector<float> f(32);
  std::vector<unsigned> ui(32);
  for (int l = 0; l < 32; ++l) {
    d[static_cast<size_t>(l)] = 1.0 + l * std::ldexp(1.0, -40);
    u[static_cast<size_t>(l)] = (0x0123456789abcdefull << (l % 8)) + l;
    ll[static_cast<size_t>(l)] = -(1ll << 40) - l;
    f[static_cast<size_t>(l)] = -0.5f - static_cast<float>(l);
    ui[static_cast<size_t>(l)] = 0xdeadbeefu ^ static_cast<unsigned>(l);
  }
  auto dIn = d;
  auto uIn = u;
  auto llIn = ll;
  auto fIn = f;
  auto uiIn = ui;
  double *dp = d.data();
  unsigned long long *up = u.data();
  long long *lp = ll.data();
  float *fp = f.data();
  unsigned *uip = ui.data();
  run(1, 32, [=] { shuffleType(dp); });
  run(1, 32, [=] { shuffleType(up); });
  run(1, 32, [=] { shuffleType(lp); });
  run(1, 32, [=] { shuffleType(fp); });
  run(1, 32, [=] { shuffleType(uip); });
  for (size_t l = 0; l < 32; ++l) {
    EXPECT_EQ(d[l], dIn[l ^ 1]);
    EXPECT_EQ(u[l], uIn[l ^ 1]);
    EXPECT_EQ(ll[l], llIn[l ^ 1]);
    EXPECT_EQ(f[l], fIn[l ^ 1]);
    EXPECT_EQ(ui[l], uiIn[l ^ 1]);
  }
}

TEST(HostCuda, PartialWarpOfBlockDim48) {
  std::vector<PartialOut> out(48);
  PartialOut *o = out.data();
  run(1, 48, [=] { partialWarp(o); });
  for (int t = 0; t < 48; ++t) {
    int lane = t % 32, base = t - lane;
    bool partial = t >= 32; // warp 1 has lanes 0..15 only
    unsigned lanes = partial ? 0x0000ffffu : 0xffffffffu;
    int nlanes = partial ? 16 : 32;
    const PartialOut &r = out[static_cast<size_t>(t)];
    EXPECT_EQ(r.active, lanes) << t;
    EXPECT_EQ(r.ballotAll, lanes) << t;
    // A source lane that does not exist gives the caller's own value.
    int src = lane + 8 < nlanes ? lane + 8 : lane;
    EXPECT_EQ(r.down8, 10 * (base + src)) << t;
    EXPECT_EQ(r.idx3, 10 * (base + 3)) << t;
  }
}

TEST(HostCuda, PartialMasksFormIndependentGroups) {
  std::vector<MaskOut> out(32);
  MaskOut *o = out.data();
  run(1, 32, [=] { partialMasks(o); });
  for (int l = 0; l < 32; ++l) {
    const MaskOut &r = out[static_cast<size_t>(l)];
    int halves = l < 16 ? 1000 + (15 - l) : 1000 + (l ^ 1);
    EXPECT_EQ(r.halves, halves) << l;
    // Even lanes: lanes 0, 4, ..., 28 vote true -> 0x11111111; odd: all.
    EXPECT_EQ(r.ballot, l % 2 == 0 ? 0x11111111u : 0xaaaaaaaau) << l;
    // Lane 7 reads lane 8, outside the mask: its own value.
    int down = l < 7 ? 1000 + l + 1 : l == 7 ? 1007 : -1;
    EXPECT_EQ(r.down, down) << l;
  }
}

TEST(HostCuda, WarpCollectiveCompletesWhenMissingLanesExit) {
  for (unsigned first : {20u, 1u}) {
    std::vector<unsigned> out(64, 0);
    unsigned *o = out.data();
    run(1, 64, [=] { activeAfterExits(o, first); });
    unsigned expected = (1u << first) - 1; // the lanes below `first`
    for (unsigned t = 0; t < 64; ++t)
      EXPECT_EQ(out[t], t % 32 < first ? expected : 0u)
          << "first " << first << " thread " << t;
  }
}

TEST(HostCuda, Votes) {
  for (unsigned block : {64u, 48u}) {
    std::vector<VoteOut> out(block);
    VoteOut *o = out.data();
    run(1, block, [=] { votes(o); });
    for (unsigned t = 0; t < block; ++t) {
      unsigned lanes = t < 32 || block == 64 ? 0xffffffffu : 0x0000ffffu;
      unsigned base = t / 32 * 32;
      unsigned b3 = 0, high = 0;
      for (unsigned l = 0; l < 32; ++l)
        if (lanes >> l & 1u) {
          b3 |= (l % 3 == 0 ? 1u : 0u) << l;
          high |= (base + l >= 40 ? 1u : 0u) << l;
        }
      const VoteOut &r = out[t];
      EXPECT_EQ(r.ballot3, b3) << t; // 0x49249249 for a full warp
      EXPECT_EQ(r.ballotHigh, high) << t;
      EXPECT_EQ(r.any17, (lanes >> 17 & 1u) ? 1 : 0) << t;
      EXPECT_EQ(r.anyNone, 0) << t;
      EXPECT_EQ(r.allTrue, 1) << t;
      EXPECT_EQ(r.allBut5, 0) << t;
    }
  }
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST(HostCuda, VectorLoadsOf128Bits) {
  int n4 = 1001;
  std::vector<float4> in(static_cast<size_t>(n4)), out(static_cast<size_t>(n4));
  std::vector<uint4> bits(static_cast<size_t>(n4)),
      bitsOut(static_cast<size_t>(n4));
  for (int i = 0; i < n4; ++i) {
    float b = static_cast<float>(4 * i);
    in[static_cast<size_t>(i)] = make_float4(b, b + 1, b + 2, b + 3);
    unsigned u = static_cast<unsigned>(i) * 0x9e3779b9u;
    bits[static_cast<size_t>(i)] = make_uint4(u, u + 1, u + 2, u + 3);
  }
  ASSERT_EQ(reinterpret_cast<uintptr_t>(in.data()) % 16, 0u);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(bits.data()) % 16, 0u);
  const float *ip = reinterpret_cast<const float *>(in.data());
  float *op = reinterpret_cast<float *>(out.data());
  const unsigned *bp = reinterpret_cast<const unsigned *>(bits.data());
  unsigned *bo = reinterpret_cast<unsigned *>(bitsOut.data());
  run(3, 64, [=] { vectorCopy(ip, op, bp, bo, n4); });
  for (int i = 0; i < n4; ++i) {
    float b = static_cast<float>(4 * i);
    const float4 &r = out[static_cast<size_t>(i)];
    EXPECT_EQ(r.x, b * 2.0f);
    EXPECT_EQ(r.y, b + 2.0f);
    EXPECT_EQ(r.z, -(b + 2.0f));
    EXPECT_EQ(r.w, b + 3.0f);
    unsigned u = static_cast<unsigned>(i) * 0x9e3779b9u;
    const uint4 &q = bitsOut[static_cast<size_t>(i)];
    EXPECT_EQ(q.x, u + 3);
    EXPECT_EQ(q.y, u + 2);
    EXPECT_EQ(q.z, u + 1);
    EXPECT_EQ(q.w, u ^ 0xffffffffu);
  }
}

TEST(HostCuda, AtomicAdd) {
  unsigned grid = 5, block = 70, threads = grid * block; // 350
  int count[2] = {0, 0};
  unsigned ucount = 1;
  unsigned long long big = 0;
  float half = 0.0f;
  std::vector<int> tickets(threads, -1);
  int *cp = count, *tp = tickets.data();
  unsigned *up = &ucount;
  unsigned long long *bp = &big;
  float *hp = &half;
  run(grid, block, [=] { atomics(cp, up, bp, hp, tp); });
  EXPECT_EQ(count[0], 350);
  EXPECT_EQ(ucount, 701u); // 1 + 2 * 350
  EXPECT_EQ(big, 350ull << 33);
  EXPECT_EQ(half, 175.0f);                   // 350 * 0.5, exact
  std::sort(tickets.begin(), tickets.end()); // old values: 0..349 once
  for (unsigned i = 0; i < threads; ++i)
    ASSERT_EQ(tickets[i], static_cast<int>(i));
}

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

TEST(HostCuda, ExecutionIsDeterministic) {
  unsigned grid = 2, block = 96, threads = grid * block;
  std::vector<float> vals(threads);
  for (unsigned i = 0; i < threads; ++i) // magnitudes make the order matter
    vals[i] =
        std::ldexp(1.0f + static_cast<float>(i % 7), static_cast<int>(i % 23));
  auto once = [&](std::vector<int> &log, float &sum) {
    log.assign(3 * threads, -1);
    int pos = 0;
    sum = 0.0f;
    int *lp = log.data(), *pp = &pos;
    float *sp = &sum;
    const float *vp = vals.data();
    run(grid, block, [=] { logOrder(lp, pp, sp, vp); });
    EXPECT_EQ(pos, static_cast<int>(3 * threads));
  };
  std::vector<int> log1, log2;
  float sum1, sum2;
  once(log1, sum1);
  once(log2, sum2);
  EXPECT_EQ(log1, log2);
  EXPECT_EQ(std::memcmp(&sum1, &sum2, sizeof(float)), 0);
  // Blocks run in order; within a block the threads start in order, and no
  // thread passes the barrier before all have reached it.
  for (unsigned b = 0; b < grid; ++b) {
    size_t at = 3 * b * block;
    for (unsigned t = 0; t < block; ++t)
      EXPECT_EQ(log1[at + t], static_cast<int>(b * block + t));
    for (unsigned k = block; k < 3 * block; ++k) {
      int e = log1[at + k];
      EXPECT_GE(e, 1000) << k;
      int id = e % 1000 - static_cast<int>(b * block);
      EXPECT_TRUE(id >= 0 && id < static_cast<int>(block)) << e;
    }
  }
}

TEST(HostCuda, LaunchesOfChangingSizesReuseStacks) {
  // Stacks and per-thread state are kept from one launch to the next and
  // regrown for larger blocks.
  int n = 5003;
  std::vector<int> in = testInts(n);
  long long all = 0;
  for (int v : in)
    all += v;
  for (unsigned block : {1024u, 32u, 64u, 1024u, 33u, 512u, 1024u}) {
    std::vector<long long> sums(2);
    unsigned long long total = 0;
    const int *ip = in.data();
    long long *sp = sums.data();
    unsigned long long *tp = &total;
    run(2, block, [=] { blockSum(ip, n, sp, tp); });
    EXPECT_EQ(static_cast<long long>(total), all) << "block " << block;
  }
}

TEST(HostCuda, LaunchesOnSeveralOsThreads) {
  // Each OS thread has its own scheduler and __shared__ memory.
  auto work = [](int seed, bool *ok) {
    int n = 20000 + seed;
    std::vector<int> in = testInts(n);
    long long all = 0;
    for (int v : in)
      all += v;
    *ok = true;
    for (int rep = 0; rep < 10; ++rep) {
      std::vector<long long> sums(4);
      unsigned long long total = 0;
      const int *ip = in.data();
      long long *sp = sums.data();
      unsigned long long *tp = &total;
      run(4, 128, [=] { blockSum(ip, n, sp, tp); });
      *ok = *ok && static_cast<long long>(total) == all;
    }
  };
  bool ok1 = false, ok2 = false;
  std::thread a(work, 1, &ok1), b(work, 2, &ok2);
  a.join();
  b.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

namespace {
void launchDivergentBarrier() {
  run(1, 32, [] { divergentBarrier(); });
}
void launchDeadlockInBlock2() {
  run(4, 2, [] { deadlockInBlock2(); });
}
void launchLaneNotInMask() {
  run(1, 2, [] { laneNotInMask(); });
}
void launchOverlappingMasks() {
  run(1, 3, [] { overlappingMasks(); });
}
void launchMismatched() {
  run(1, 2, [] { mismatchedCollectives(); });
}
void launchBadWidth() {
  run(1, 32, [] { badWidth(); });
}
void launchNested() {
  run(1, 1, [] { nestedLaunch(); });
}
void launchBlock(unsigned grid, unsigned block) {
  run(grid, block, [] {});
}
void launchStackOverflow() {
  int out = 0;
  int *o = &out;
  run(1, 2, [=] { stackOverflow(o); });
}

void launchWithoutAddressSpace() {
  // Leave 16 MiB of address space; 1024 stacks with their guards need 80 MiB.
  long pages = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1)
      pages = 0;
    std::fclose(f);
  }
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max =
      static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
      (16u << 20);
  setrlimit(RLIMIT_AS, &lim);
  launchBlock(1, 1024);
}
} // namespace

TEST(HostCudaDeathTest, DeadlockIsReported) {
  // Lanes 0..15 wait at __syncthreads for lanes 16..31, which wait at
  // __syncwarp for lanes 0..15.
  EXPECT_DEATH(launchDivergentBarrier(),
               "fusec_host: deadlock in block 0 of grid 1 \\(blockDim 32\\)");
  EXPECT_DEATH(launchDivergentBarrier(),
               "threads 0-15: __syncthreads\\(\\), 16 of 32 arrived");
  EXPECT_DEATH(launchDivergentBarrier(),
               "threads 16-31: warp 0: __syncwarp\\(mask 0xffffffff\\), "
               "waiting for lanes 0x0000ffff");
  // In block 2 of 4, thread 0 waits at __shfl_sync for thread 1, which
  // waits at __syncthreads for thread 0.
  EXPECT_DEATH(launchDeadlockInBlock2(),
               "deadlock in block 2 of grid 4 \\(blockDim 2\\)");
  EXPECT_DEATH(launchDeadlockInBlock2(),
               "thread 0: warp 0: __shfl_sync\\(mask 0x00000003\\), waiting "
               "for lanes 0x00000002");
  EXPECT_DEATH(launchDeadlockInBlock2(),
               "thread 1: __syncthreads\\(\\), 1 of 2 arrived");
}

TEST(HostCudaDeathTest, BadMasksAndWidthsAreReported) {
  EXPECT_DEATH(launchLaneNotInMask(),
               "fusec_host: __shfl_sync\\(mask 0x00000001\\) called by "
               "thread 1 \\(warp 0 lane 1\\), which is not in the mask");
  // Thread 0 waits at __syncwarp(0x3) for thread 1, which waits at
  // __syncwarp(0x7) for thread 0.
  EXPECT_DEATH(launchOverlappingMasks(),
               "fusec_host: mismatched warp collectives: thread 1 \\(warp 0 "
               "lane 1\\) calls __syncwarp\\(mask 0x00000007\\) while thread "
               "0, which that mask names, waits at __syncwarp\\(mask "
               "0x00000003\\), which names thread 1");
  EXPECT_DEATH(launchMismatched(),
               "fusec_host: mismatched warp collectives: thread 1 \\(warp 0 "
               "lane 1\\) calls __ballot_sync\\(mask 0x00000003\\) while "
               "thread 0 waits at __syncwarp with the same mask");
  EXPECT_DEATH(launchBadWidth(),
               "fusec_host: __shfl_sync: width 12 is not a power of two");
}

TEST(HostCudaDeathTest, MisuseIsReported) {
  EXPECT_DEATH(__syncthreads(),
               "fusec_host: __syncthreads called outside fusec_host::launch");
  EXPECT_DEATH((void)__shfl_down_sync(0xffffffffu, 1, 1),
               "fusec_host: __shfl_down_sync called outside");
  EXPECT_DEATH(launchNested(),
               "fusec_host: fusec_host::launch called from inside a kernel");
  EXPECT_DEATH(launchBlock(1, 0), "fusec_host: invalid launch configuration: "
                                  "gridDim 1, blockDim 0");
  EXPECT_DEATH(launchBlock(1, 1025), "invalid launch configuration");
  EXPECT_DEATH(launchBlock(0, 32), "invalid launch configuration");
}

TEST(HostCudaDeathTest, NoAddressSpaceForStacksIsReported) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers need address space of their own";
#endif
  // A fresh process, whose stacks are not cached from earlier launches.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(launchWithoutAddressSpace(),
               "fusec_host: cannot allocate [0-9]+ bytes of address space");
}

TEST(HostCudaDeathTest, StackOverflowHitsTheGuardPages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer may keep frames on its own fake stacks "
                  "(detect_stack_use_after_return), below no guard page";
#endif
  // A fault, not a silent write below the stack.
  EXPECT_DEATH(launchStackOverflow(), "");
}
