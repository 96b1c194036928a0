//===- HostCuda.h - Sequential host emulation of CUDA kernels ---*- C++ -*-===//
//
// Lets CUDA C++ kernel source, as fusec generates it for NVRTC, compile with
// the host C++ compiler and run on a machine without a GPU, so that every
// generated kernel can be tested anywhere:
//
//   c++ -std=c++17 -O1 -shared -fPIC -DFUSEC_HOST
//       -include fusec/Runtime/Host/HostCuda.h -x c++ kernels.cu -o kernels.so
//
// (`-x c++` because g++ does not know the .cu suffix.) Header-only, plain
// C++17 + POSIX (mmap; ucontext where no fast context switch is available),
// no other dependency. The kernel source itself is unchanged: only CUDA
// built-ins are defined here (keywords, threadIdx and friends, vector types,
// __syncthreads, warp shuffles and votes, atomics, a few math intrinsics);
// the one name CUDA lacks is namespace fusec_host.
//
// Execution model. `fusec_host::launch(grid, block, body, context)` runs
// body(context) once per CUDA thread: blocks one after another in the order
// 0..grid-1, the threads of a block as cooperative fibers on the calling OS
// thread. A fiber runs until it reaches a synchronisation point
// (__syncthreads, a warp shuffle/vote, __syncwarp) or returns; only then does
// the scheduler switch, round-robin in thread order, to the next thread that
// can run (the thread whose arrival completes a barrier or collective
// carries on first). So execution is deterministic: the same launch on the
// same data does the same thing in the same order every time. Threads that
// never synchronise run one after another on one fiber, at the cost of a
// function call each; a fiber (and its stack) is taken only when a thread
// must wait. threadIdx/blockIdx/blockDim/gridDim are those of the thread
// that runs.
//
// Cost (x86-64, g++ -O1): a few microseconds per launch, 15-20 ns per thread
// that does not synchronise (2^20 elements, blockDim 256, one element per
// thread: under 20 ms), 20-30 ns per thread per synchronisation point.
//
// Synchronisation semantics (those of CUDA on sm_70+, with deterministic
// choices where CUDA leaves the result undefined):
//  - __syncthreads() waits until every thread of the block that has not
//    exited has arrived; a thread that exits no longer counts, so a barrier
//    completes when the others arrive (fusec's generated code never lets
//    some threads exit before a barrier that others reach). Arrivals are
//    counted, as the hardware does: two different __syncthreads() calls are
//    the same barrier.
//  - A warp is 32 consecutive threads (lane = threadIdx.x % 32); the last
//    warp of a block whose size is not a multiple of 32 is partial, its
//    missing lanes behave as exited. A warp collective (__shfl*_sync,
//    __ballot_sync, __any_sync, __all_sync, __syncwarp) waits until every
//    non-exited lane named in its mask has arrived at a collective with the
//    same mask (of the same kind: shuffles, votes or __syncwarp; as on
//    sm_70+, the call sites may differ), then all of them complete together.
//    Lanes may wait at collectives of different, overlapping masks (a lane
//    completes one, then joins the other). Every lane publishes its
//    value, the last one to arrive computes the results of all of them, so
//    no slot is overwritten before it is read. Shuffles follow PTX shfl.sync
//    exactly (width segments, lane/delta/laneMask taken modulo 32, a source
//    lane outside the segment gives the caller's own value); a source lane
//    that does not take part (not in the mask, exited, beyond blockDim) is
//    undefined in CUDA and gives the caller's own value here.
//  - __activemask() is the set of the warp's lanes that have not exited when
//    it runs: lanes in a divergent branch are not told apart, and since the
//    lanes run one after another, it shrinks as lanes return (read it before
//    a collective that all its lanes reach, as in `m = __activemask();
//    __shfl_sync(m, ...)`).
//
// Kernel bugs are reported on stderr, prefixed "fusec_host: ", followed by
// abort(): a deadlock (every thread of the block that has not exited waits
// and none can proceed: e.g. __syncthreads() in code that some lanes skip
// while others wait at a warp collective), a lane calling a collective with
// a mask that excludes it, two lanes each waiting for the other at
// collectives of different masks or kinds, a shuffle width that is not a power
// of two in [1, 32], a built-in used outside a launch, a launch from inside
// a kernel, an invalid launch configuration.
//
// Limits:
//  - 1-D launches: 1 <= blockDim <= 1024, gridDim >= 1; y and z are 0 for
//    threadIdx/blockIdx and 1 for blockDim/gridDim. No dynamic (extern)
//    shared memory.
//  - All of this header but the types has hidden visibility: each shared
//    object built with it has its own scheduler and built-in variables, so
//    launch() must be called from the object that holds the kernels (e.g.
//    by an extern "C" wrapper in the generated source).
//  - __shared__ variables are `static thread_local`: one instance per OS
//    thread, shared by the threads of a block since the blocks of a launch
//    run one after another. Kernels must not rely on shared memory being
//    zero-initialised or preserved from one block to the next (it happens
//    to be, on the host; on the GPU it is neither).
//  - Each thread that waits needs a fiber with its own stack, of
//    FUSEC_HOST_STACK_SIZE bytes (default 64 KiB, define it before including
//    this header to change it), above 16 KiB of guard pages, so that an
//    overflow faults instead of corrupting a neighbour (unless one frame
//    jumps over the guard). Stacks are address space only (pages are
//    committed as they are touched), reused by all blocks and kept for
//    later launches: a process keeps the touched stack pages of its largest
//    block (typically one or two pages per thread) until exit or dlclose.
//    Kernel code must not spin-wait for another thread (there is no
//    preemption) and must not throw.
//  - Atomics are plain read-modify-write: no two fibers run at once. Launches
//    on different OS threads are independent (each OS thread has its own
//    scheduler and built-in variables; the cache of stacks is shared under
//    a mutex) but must not race on the same memory.
//  - On x86-64 fibers switch with a few instructions of inline assembly; on
//    other targets, or with -DFUSEC_HOST_UCONTEXT, with swapcontext (a
//    system call per switch, about 10x slower for kernels that synchronise;
//    also the choice where CET shadow stacks are enforced).
//    AddressSanitizer is told about the switches; Valgrind is not.
//  - Standard headers that spell `__attribute__((__noinline__))` break once
//    the __noinline__ keyword is defined (as with CUDA's own headers), so
//    include any other header before this one (<memory> is included here).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_HOST_HOSTCUDA_H
#define FUSEC_RUNTIME_HOST_HOSTCUDA_H

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

#ifndef FUSEC_HOST_STACK_SIZE
#define FUSEC_HOST_STACK_SIZE 65536
#endif

#if !defined(FUSEC_HOST_UCONTEXT) && defined(__x86_64__) &&                    \
    (defined(__GNUC__) || defined(__clang__))
#define FUSEC_HOST_FAST_SWITCH 1
#else
#define FUSEC_HOST_FAST_SWITCH 0
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define FUSEC_HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEC_HOST_ASAN 1
#endif
#endif
#ifndef FUSEC_HOST_ASAN
#define FUSEC_HOST_ASAN 0
#endif
#if FUSEC_HOST_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

//===----------------------------------------------------------------------===//
// Keywords
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static thread_local
// __restrict__ is a g++/clang keyword already.

//===----------------------------------------------------------------------===//
// Vector types (CUDA's vector_types.h: members x, y, z, w and the same
// sizes and alignments, so 64- and 128-bit loads through reinterpret_cast
// behave as on the GPU), make_<type>() and dim3.
//===----------------------------------------------------------------------===//

#define FUSEC_HOST_VECTOR_TYPES(T, N, A2, A4)                                  \
  struct N##1 {                                                                \
    T x;                                                                       \
  };                                                                           \
  struct alignas(A2) N##2 {                                                    \
    T x, y;                                                                    \
  };                                                                           \
  struct N##3 {                                                                \
    T x, y, z;                                                                 \
  };                                                                           \
  struct alignas(A4) N##4 {                                                    \
    T x, y, z, w;                                                              \
  };                                                                           \
  inline constexpr N##1 make_##N##1(T x) { return N##1 {x}; }                  \
  inline constexpr N##2 make_##N##2(T x, T y) { return N##2 {x, y}; }          \
  inline constexpr N##3 make_##N##3(T x, T y, T z) { return N##3 {x, y, z}; }  \
  inline constexpr N##4 make_##N##4(T x, T y, T z, T w) {                      \
    return N##4 {x, y, z, w};                                                  \
  }

FUSEC_HOST_VECTOR_TYPES(signed char, char, 2, 4)
FUSEC_HOST_VECTOR_TYPES(unsigned char, uchar, 2, 4)
FUSEC_HOST_VECTOR_TYPES(short, short, 4, 8)
FUSEC_HOST_VECTOR_TYPES(unsigned short, ushort, 4, 8)
FUSEC_HOST_VECTOR_TYPES(int, int, 8, 16)
FUSEC_HOST_VECTOR_TYPES(unsigned int, uint, 8, 16)
FUSEC_HOST_VECTOR_TYPES(long, long, 2 * sizeof(long), 16)
FUSEC_HOST_VECTOR_TYPES(unsigned long, ulong, 2 * sizeof(long), 16)
FUSEC_HOST_VECTOR_TYPES(long long, longlong, 16, 16)
FUSEC_HOST_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
FUSEC_HOST_VECTOR_TYPES(float, float, 8, 16)
FUSEC_HOST_VECTOR_TYPES(double, double, 16, 16)
#undef FUSEC_HOST_VECTOR_TYPES

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Everything below is hidden: a shared object built from kernel source has
// its own scheduler and built-in variables (so launch() must be called from
// the object that holds the kernels), exports none of it, and reaches its
// functions without the dynamic linker's indirections.
#pragma GCC visibility push(hidden)

//===----------------------------------------------------------------------===//
// Built-in variables: those of the thread that runs. Written only by the
// scheduler (a switch is an opaque call, so kernels never see stale values).
//===----------------------------------------------------------------------===//

inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

//===----------------------------------------------------------------------===//
// The scheduler.
//===----------------------------------------------------------------------===//

namespace fusec_host {
namespace detail {

[[noreturn]] inline void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void fatal(const char *fmt, ...) {
  std::fflush(stdout);
  std::fputs("fusec_host: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

enum ThreadState : uint8_t {
  kNotStarted,
  kRunning,
  kWaitBarrier, // at __syncthreads
  kWaitWarp,    // at a warp collective
  kReady,       // released, waiting to be scheduled
  kDone,
};

enum WarpOp : uint8_t {
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kAny,
  kAll,
  kSyncWarp,
};

// Collectives of one kind may meet (each lane gets its own op's result);
// collectives of different kinds may not.
enum OpKind : uint8_t { kKindShfl, kKindVote, kKindSync };

inline OpKind kindOf(uint8_t op) {
  return op <= kShflXor ? kKindShfl : op <= kAll ? kKindVote : kKindSync;
}

inline const char *opName(uint8_t op) {
  static const char *const names[] = {
      "__shfl_sync",   "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
      "__ballot_sync", "__any_sync",     "__all_sync",       "__syncwarp"};
  return names[op];
}

struct Fiber {
#if FUSEC_HOST_FAST_SWITCH
  void *sp = nullptr;
#else
  ucontext_t uc;
#endif
  char *stackLo = nullptr;
  size_t stackSize = 0;
  int assigned = -1; // the thread to start when (re)entered from the pool
#if FUSEC_HOST_ASAN
  void *fakeStack = nullptr;
#endif
};

struct Thread {
  uint64_t value;  // published by a warp collective
  uint64_t result; // computed by the lane that completes it
  Fiber *fiber;    // while started and not done
  uint32_t mask;
  int32_t param;
  int32_t nextLive, prevLive; // ring of the threads that have not exited
  uint8_t state, op, width;
};

struct Group { // lanes of one warp waiting at collectives with one mask
  uint32_t mask, arrived;
  uint8_t kind;
};

struct Warp {
  uint32_t live; // lanes that exist and have not exited
  uint32_t ngroups;
  Group groups[32];
};

struct Region;

struct Launch {
  void (*body)(void *);
  void *context;
  unsigned grid, block, nwarps;
  unsigned live;                       // threads of the block not exited
  unsigned barArrived, barCount;       // current __syncthreads
  unsigned barResult, barParticipants; // of the last completed one
  int running;                         // thread index
  Thread *threads;
  Warp *warps;
  Fiber *fibers;
  unsigned nfibers;
  Fiber **freeList;
  unsigned nfree;
  Region *region; // stacks and per-thread state
  Fiber *current;
  Fiber mainFiber;
#if FUSEC_HOST_ASAN
  const void *mainStackBottom;
  size_t mainStackSize;
  bool mainStackKnown;
#endif
};

// Fiber stacks and the per-thread arrays for blocks of up to `capacity`
// threads. Mapping stacks, protecting their guard pages and faulting in
// their first pages costs microseconds per thread, so regions are kept
// for the next launch (see RegionCache); their touched stack pages stay
// committed (typically one or two pages per thread of the largest block).
struct Region {
  char *mem;
  size_t memSize, stackSize, guardSize;
  unsigned capacity;
  unsigned guarded; // stacks [0, guarded) have their guard
  Thread *threads;
  Warp *warps;
  Fiber *fibers;
  Fiber **freeList;
  Region *next;
};

inline void destroyRegion(Region *r) {
#if FUSEC_HOST_ASAN
  __asan_unpoison_memory_region(r->mem, r->memSize);
#endif
  munmap(r->mem, r->memSize);
  delete[] r->threads;
  delete[] r->warps;
  delete[] r->fibers;
  delete[] r->freeList;
  delete r;
}

// Regions not in use, shared by the OS threads of the process (or of the
// shared object) and unmapped at exit or dlclose.
struct RegionCache {
  std::mutex mutex;
  Region *free = nullptr;
  unsigned count = 0;
  ~RegionCache() {
    while (Region *r = free) {
      free = r->next;
      destroyRegion(r);
    }
  }
};
inline RegionCache regionCache;

// A region for `block` threads with stacks of `stackSize` bytes.
inline Region *takeRegion(unsigned block, size_t stackSize, size_t guardSize) {
  Region *r = nullptr;
  {
    std::lock_guard<std::mutex> lock(regionCache.mutex);
    if ((r = regionCache.free)) {
      regionCache.free = r->next;
      --regionCache.count;
    }
  }
  if (r && r->capacity >= block && r->stackSize == stackSize)
    return r;
  if (r) {
    block = block > r->capacity ? block : r->capacity;
    destroyRegion(r);
  }
  size_t memSize = (guardSize + stackSize) * block;
  void *mem = mmap(nullptr, memSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    fatal("cannot allocate %zu bytes of address space for the fiber stacks "
          "of a block of %u threads (FUSEC_HOST_STACK_SIZE %zu)",
          memSize, block, stackSize);
  r = new Region{};
  r->mem = static_cast<char *>(mem);
  r->memSize = memSize;
  r->stackSize = stackSize;
  r->guardSize = guardSize;
  r->capacity = block;
  r->threads = new Thread[block]();
  r->warps = new Warp[(block + 31) / 32]();
  r->fibers = new Fiber[block]();
  r->freeList = new Fiber *[block]();
  return r;
}

inline void giveBackRegion(Region *r, unsigned usedStacks) {
#if FUSEC_HOST_ASAN
  // Frames of fibers abandoned at the end of the launch leave poisoned
  // shadow behind.
  __asan_unpoison_memory_region(r->mem,
                                usedStacks * (r->guardSize + r->stackSize));
#else
  (void)usedStacks;
#endif
  std::lock_guard<std::mutex> lock(regionCache.mutex);
  if (regionCache.count >= 8) {
    destroyRegion(r);
    return;
  }
  r->next = regionCache.free;
  regionCache.free = r;
  ++regionCache.count;
}

inline thread_local Launch *tlsLaunch = nullptr;

inline Launch *current(const char *what) {
  Launch *L = tlsLaunch;
  if (!L)
    fatal("%s called outside fusec_host::launch", what);
  return L;
}

//===--- Context switching ---------------------------------------------===//

#if FUSEC_HOST_FAST_SWITCH
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *saveSp, switches to toSp and restores the registers saved
// there. A new fiber's stack is prepared so that the final `ret` enters
// fiberEntry. The caller-saved registers are clobbered, as by any call.
#if defined(__clang__)
#define FUSEC_HOST_SWITCH_ATTRS __attribute__((naked, noinline))
#else
#define FUSEC_HOST_SWITCH_ATTRS __attribute__((naked, noipa))
#endif
FUSEC_HOST_SWITCH_ATTRS inline void switchStack(void ** /*saveSp: rdi*/,
                                                void * /*toSp: rsi*/) {
  __asm__("pushq %rbp\n\t"
          "pushq %rbx\n\t"
          "pushq %r12\n\t"
          "pushq %r13\n\t"
          "pushq %r14\n\t"
          "pushq %r15\n\t"
          "movq %rsp, (%rdi)\n\t"
          "movq %rsi, %rsp\n\t"
          "popq %r15\n\t"
          "popq %r14\n\t"
          "popq %r13\n\t"
          "popq %r12\n\t"
          "popq %rbx\n\t"
          "popq %rbp\n\t"
          "ret\n\t");
}
#undef FUSEC_HOST_SWITCH_ATTRS
#endif

[[noreturn]] inline void fiberEntry();

inline void switchFiber(Launch *L, Fiber *from, Fiber *to, bool dying = false) {
  L->current = to;
#if FUSEC_HOST_ASAN
  if (to == &L->mainFiber)
    __sanitizer_start_switch_fiber(dying ? nullptr : &from->fakeStack,
                                   L->mainStackBottom, L->mainStackSize);
  else
    __sanitizer_start_switch_fiber(dying ? nullptr : &from->fakeStack,
                                   to->stackLo, to->stackSize);
#else
  (void)dying;
#endif
  __asm__ __volatile__("" ::: "memory");
#if FUSEC_HOST_FAST_SWITCH
  switchStack(&from->sp, to->sp);
#else
  if (swapcontext(&from->uc, &to->uc) != 0)
    fatal("swapcontext failed");
#endif
  __asm__ __volatile__("" ::: "memory");
#if FUSEC_HOST_ASAN
  __sanitizer_finish_switch_fiber(from->fakeStack, nullptr, nullptr);
#endif
}

inline Fiber *acquireFiber(Launch *L) {
  if (L->nfree)
    return L->freeList[--L->nfree];
  if (L->nfibers == L->block)
    fatal("internal error: more fibers than threads");
  Region *r = L->region;
  unsigned i = L->nfibers++;
  Fiber *f = &L->fibers[i];
  char *lo = r->mem + i * (r->guardSize + r->stackSize);
  // The guard is at the low end: stacks grow down.
  if (i >= r->guarded) {
    if (mprotect(lo, r->guardSize, PROT_NONE) != 0)
      fatal("cannot protect the guard pages of a fiber stack");
    r->guarded = i + 1;
  }
  f->stackLo = lo + r->guardSize;
  f->stackSize = r->stackSize;
#if FUSEC_HOST_ASAN
  f->fakeStack = nullptr;
#endif
#if FUSEC_HOST_FAST_SWITCH
  // Layout from the top: [top-8] a null return address for fiberEntry,
  // [top-16] fiberEntry (popped by `ret`, leaving rsp 8 mod 16 as at any
  // function entry), then six zeroed callee-saved registers.
  void **top = reinterpret_cast<void **>(f->stackLo + f->stackSize);
  top[-1] = nullptr;
  top[-2] = reinterpret_cast<void *>(&fiberEntry);
  for (int k = 3; k <= 8; ++k)
    top[-k] = nullptr;
  f->sp = top - 8;
#else
  if (getcontext(&f->uc) != 0)
    fatal("getcontext failed");
  f->uc.uc_stack.ss_sp = f->stackLo;
  f->uc.uc_stack.ss_size = f->stackSize;
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, &fiberEntry, 0);
#endif
  return f;
}

//===--- Scheduling ----------------------------------------------------===//

// The next thread after `t` in round-robin order that can run (not started
// or released), or -1. `t` may have just been unlinked from the ring: its
// own link still names its successor.
inline int pickNext(Launch *L, int t) {
  Thread *th = L->threads;
  int i = th[t].nextLive;
  for (unsigned k = 0; k < L->live; ++k) {
    uint8_t s = th[i].state;
    if (s == kNotStarted || s == kReady)
      return i;
    i = th[i].nextLive;
  }
  return -1;
}

// Makes thread n the running one and returns its fiber: the one it waits
// on, the one already given to it, or else one from the pool.
inline Fiber *bindThread(Launch *L, int n) {
  Thread &x = L->threads[n];
  if (!x.fiber) {
    x.fiber = acquireFiber(L);
    x.fiber->assigned = n;
  }
  x.state = kRunning;
  L->running = n;
  threadIdx.x = static_cast<unsigned>(n);
  return x.fiber;
}

[[noreturn]] inline void deadlock(Launch *L) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "fusec_host: deadlock in block %u of grid %u (blockDim %u): "
               "all %u threads that have not exited are waiting and none can "
               "proceed; a bug in the kernel (e.g. __syncthreads() or a warp "
               "collective in divergent code):\n",
               blockIdx.x, L->grid, L->block, L->live);
  // One line per run of consecutive threads waiting in the same way.
  char desc[2][160];
  int cur = 0, lines = 0;
  unsigned runStart = 0;
  bool inRun = false;
  auto flush = [&](unsigned last) {
    if (!inRun)
      return;
    if (++lines > 32) {
      if (lines == 33)
        std::fprintf(stderr, "  ...\n");
      return;
    }
    if (last == runStart)
      std::fprintf(stderr, "  thread %u: %s\n", runStart, desc[1 - cur]);
    else
      std::fprintf(stderr, "  threads %u-%u: %s\n", runStart, last,
                   desc[1 - cur]);
  };
  for (unsigned t = 0; t < L->block; ++t) {
    const Thread &x = L->threads[t];
    unsigned w = t / 32;
    if (x.state == kDone) {
      flush(t - 1);
      inRun = false;
      continue;
    }
    if (x.state == kWaitBarrier) {
      std::snprintf(desc[cur], sizeof desc[cur],
                    "__syncthreads(), %u of %u arrived", L->barArrived,
                    L->live);
    } else if (x.state == kWaitWarp) {
      uint32_t missing = x.mask & L->warps[w].live;
      for (unsigned g = 0; g < L->warps[w].ngroups; ++g)
        if (L->warps[w].groups[g].mask == x.mask)
          missing &= ~L->warps[w].groups[g].arrived;
      std::snprintf(desc[cur], sizeof desc[cur],
                    "warp %u: %s(mask 0x%08x), waiting for lanes 0x%08x", w,
                    opName(x.op), x.mask, missing);
    } else {
      std::snprintf(desc[cur], sizeof desc[cur], "state %u", unsigned(x.state));
    }
    if (inRun && std::strcmp(desc[cur], desc[1 - cur]) == 0)
      continue;
    flush(t - 1);
    inRun = true;
    runStart = t;
    cur = 1 - cur;
  }
  flush(L->block - 1);
  std::fflush(stderr);
  std::abort();
}

// The running thread `t` waits: switch to the next thread that can run.
// Returns when `t` has been released and scheduled again.
inline void waitHere(Launch *L, int t) {
  int n = pickNext(L, t);
  if (n < 0)
    deadlock(L);
  Fiber *self = L->threads[t].fiber;
  Fiber *to = bindThread(L, n);
  switchFiber(L, self, to);
}

inline void completeBarrier(Launch *L) {
  L->barResult = L->barCount;
  L->barParticipants = L->barArrived;
  L->barArrived = 0;
  L->barCount = 0;
  Thread *th = L->threads;
  for (unsigned t = 0; t < L->block; ++t)
    if (th[t].state == kWaitBarrier)
      th[t].state = kReady;
}

// Every live lane of group g has arrived: compute each lane's result and
// release the lanes (except the running thread, which carries on).
inline void completeGroup(Launch *L, unsigned w, unsigned gi) {
  Warp &warp = L->warps[w];
  Group g = warp.groups[gi];
  warp.groups[gi] = warp.groups[--warp.ngroups];
  Thread *lanes = L->threads + w * 32;
  uint32_t members = g.arrived;
  if (g.kind == kKindShfl) {
    for (uint32_t m = members; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      Thread &x = lanes[l];
      int width = x.width, b = x.param & 31;
      int segLo = l & ~(width - 1), segHi = segLo + width - 1;
      int j = l;
      switch (x.op) {
      case kShflIdx:
        j = segLo | (b & (width - 1));
        break;
      case kShflUp:
        j = l - b >= segLo ? l - b : l;
        break;
      case kShflDown:
        j = l + b <= segHi ? l + b : l;
        break;
      case kShflXor:
        j = (l ^ b) <= segHi ? (l ^ b) : l;
        break;
      }
      x.result = (members >> j) & 1u ? lanes[j].value : x.value;
    }
  } else if (g.kind == kKindVote) {
    uint32_t ballot = 0;
    for (uint32_t m = members; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (lanes[l].value)
        ballot |= 1u << l;
    }
    for (uint32_t m = members; m; m &= m - 1) {
      Thread &x = lanes[__builtin_ctz(m)];
      x.result = x.op == kBallot ? ballot
                 : x.op == kAny  ? ballot != 0
                                 : ballot == members;
    }
  }
  int running = L->running - static_cast<int>(w * 32);
  for (uint32_t m = members; m; m &= m - 1) {
    int l = __builtin_ctz(m);
    if (l != running)
      lanes[l].state = kReady;
  }
}

inline uint64_t warpCollective(uint8_t op, uint32_t mask, uint64_t value,
                               int32_t param, int width) {
  Launch *L = current(opName(op));
  int t = L->running;
  unsigned w = static_cast<unsigned>(t) / 32,
           lane = static_cast<unsigned>(t) % 32;
  Warp &warp = L->warps[w];
  if (!(mask >> lane & 1u))
    fatal("%s(mask 0x%08x) called by thread %d (warp %u lane %u), which is "
          "not in the mask",
          opName(op), mask, t, w, lane);
  if (width < 1 || width > 32 || (width & (width - 1)))
    fatal("%s: width %d is not a power of two in [1, 32] (thread %d)",
          opName(op), width, t);
  Thread &me = L->threads[t];
  me.value = value;
  me.op = op;
  me.param = param;
  me.width = static_cast<uint8_t>(width);
  me.mask = mask;
  // Lanes at different collectives may wait side by side (a lane finishes
  // one and then joins the other), unless each waits for the other.
  OpKind kind = kindOf(op);
  Group *g = nullptr;
  for (unsigned i = 0; i < warp.ngroups; ++i) {
    Group &x = warp.groups[i];
    if (x.mask == mask) {
      g = &x;
      if (x.kind != kind) {
        int other = static_cast<int>(w * 32) + __builtin_ctz(x.arrived);
        fatal("mismatched warp collectives: thread %d (warp %u lane %u) "
              "calls %s(mask 0x%08x) while thread %d waits at %s with the "
              "same mask",
              t, w, lane, opName(op), mask, other,
              opName(L->threads[other].op));
      }
    } else if ((x.mask >> lane & 1u) && (x.arrived & mask)) {
      int other = static_cast<int>(w * 32) + __builtin_ctz(x.arrived & mask);
      fatal("mismatched warp collectives: thread %d (warp %u lane %u) calls "
            "%s(mask 0x%08x) while thread %d, which that mask names, waits "
            "at %s(mask 0x%08x), which names thread %d",
            t, w, lane, opName(op), mask, other, opName(L->threads[other].op),
            x.mask, t);
    }
  }
  if (!g) {
    g = &warp.groups[warp.ngroups++];
    g->mask = mask;
    g->arrived = 0;
    g->kind = kind;
  }
  g->arrived |= 1u << lane;
  if ((g->mask & warp.live & ~g->arrived) == 0) {
    completeGroup(L, w, static_cast<unsigned>(g - warp.groups));
    return me.result;
  }
  me.state = kWaitWarp;
  waitHere(L, t);
  return me.result;
}

inline unsigned syncThreads(int predicate, const char *what) {
  Launch *L = current(what);
  L->barCount += predicate != 0;
  if (++L->barArrived == L->live) {
    completeBarrier(L);
  } else {
    int t = L->running;
    L->threads[t].state = kWaitBarrier;
    waitHere(L, t);
  }
  return L->barResult;
}

// Thread t returned from the kernel.
inline void threadExit(Launch *L, int t) {
  Thread *th = L->threads;
  Thread &x = th[t];
  x.state = kDone;
  x.fiber = nullptr;
  th[x.prevLive].nextLive = x.nextLive;
  th[x.nextLive].prevLive = x.prevLive;
  --L->live;
  unsigned w = static_cast<unsigned>(t) / 32;
  Warp &warp = L->warps[w];
  warp.live &= ~(1u << (t % 32));
  for (unsigned i = 0; i < warp.ngroups;) {
    const Group &g = warp.groups[i];
    if ((g.mask & warp.live & ~g.arrived) == 0)
      completeGroup(L, w, i); // moves the last group to i
    else
      ++i;
  }
  if (L->barArrived && L->barArrived == L->live)
    completeBarrier(L);
}

inline void beginBlock(Launch *L, unsigned b) {
  blockIdx.x = b;
  unsigned n = L->block;
  Thread *th = L->threads;
  for (unsigned t = 0; t < n; ++t) {
    th[t].state = kNotStarted;
    th[t].fiber = nullptr;
    th[t].nextLive = static_cast<int32_t>(t + 1 == n ? 0 : t + 1);
    th[t].prevLive = static_cast<int32_t>(t == 0 ? n - 1 : t - 1);
  }
  for (unsigned w = 0; w < L->nwarps; ++w) {
    unsigned lanes = n - w * 32 >= 32 ? 32 : n - w * 32;
    L->warps[w].live = lanes == 32 ? ~0u : (1u << lanes) - 1;
    L->warps[w].ngroups = 0;
  }
  L->live = n;
  L->barArrived = L->barCount = 0;
}

// Every fiber runs this loop: run the assigned thread to its end, then go
// on with the next thread in round-robin order, on this fiber if it has not
// started yet, else by switching to the fiber it waits on (this one goes to
// the pool). The fiber that finishes a block starts the next one; the one
// that finishes the grid switches back to launch().
[[noreturn]] inline void fiberEntry() {
#if FUSEC_HOST_ASAN
  {
    Launch *L0 = tlsLaunch;
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
    if (!L0->mainStackKnown) { // the first fiber is entered from launch()
      L0->mainStackBottom = bottom;
      L0->mainStackSize = size;
      L0->mainStackKnown = true;
    }
  }
#endif
  Launch *L = tlsLaunch;
  Fiber *self = L->current;
  for (;;) {
    int t = self->assigned;
    L->body(L->context);
    threadExit(L, t);
    int n = L->live ? pickNext(L, t) : -1;
    if (n >= 0) {
      if (L->threads[n].state == kNotStarted) {
        L->threads[n].fiber = self;
        self->assigned = n;
        bindThread(L, n);
      } else {
        L->freeList[L->nfree++] = self;
        switchFiber(L, self, bindThread(L, n));
        // Back from the pool with a new thread to start.
      }
      continue;
    }
    if (L->live)
      deadlock(L);
    if (blockIdx.x + 1 < L->grid) {
      beginBlock(L, blockIdx.x + 1);
      L->threads[0].fiber = self;
      self->assigned = 0;
      bindThread(L, 0);
      continue;
    }
    switchFiber(L, self, &L->mainFiber, /*dying=*/true);
    fatal("internal error: a finished fiber was resumed");
  }
}

} // namespace detail

/// Runs body(context) once for every thread of a 1-D launch of `grid`
/// blocks (gridDim.x) of `block` threads (blockDim.x), as described at the
/// top of this file, and returns when all have finished. body typically
/// unpacks `context` and calls the __global__ function.
inline void launch(unsigned grid, unsigned block, void (*body)(void *),
                   void *context) {
  using namespace detail;
  if (block < 1 || block > 1024 || grid < 1)
    fatal("invalid launch configuration: gridDim %u, blockDim %u (1-D "
          "launches need gridDim >= 1 and 1 <= blockDim <= 1024)",
          grid, block);
  if (tlsLaunch)
    fatal("fusec_host::launch called from inside a kernel (thread %d of "
          "block %u)",
          tlsLaunch->running, ::blockIdx.x);

  Launch L{};
  L.body = body;
  L.context = context;
  L.grid = grid;
  L.block = block;
  L.nwarps = (block + 31) / 32;
  long page = sysconf(_SC_PAGESIZE);
  size_t pageSize = page > 0 ? static_cast<size_t>(page) : 4096;
  size_t guardSize = (16384 + pageSize - 1) / pageSize * pageSize;
  size_t stackSize =
      (static_cast<size_t>(FUSEC_HOST_STACK_SIZE) + pageSize - 1) / pageSize *
      pageSize;
  Region *r = takeRegion(block, stackSize, guardSize);
  L.region = r;
  L.threads = r->threads;
  L.warps = r->warps;
  L.fibers = r->fibers;
  L.freeList = r->freeList;

  ::gridDim = dim3(grid, 1, 1);
  ::blockDim = dim3(block, 1, 1);
  ::threadIdx = uint3{0, 0, 0};
  tlsLaunch = &L;
  beginBlock(&L, 0);
  Fiber *first = bindThread(&L, 0);
  switchFiber(&L, &L.mainFiber, first);
  tlsLaunch = nullptr;
  giveBackRegion(r, L.nfibers);
}

/// Convenience: launch(grid, block) of a __global__ function with its
/// arguments, e.g. launchKernel(4, 256, scale, out, in, n).
template <typename... Params, typename... Args>
void launchKernel(unsigned grid, unsigned block, void (*kernel)(Params...),
                  Args &&...args) {
  struct Pack {
    void (*kernel)(Params...);
    std::tuple<std::decay_t<Params>...> args;
  };
  Pack pack{kernel,
            std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
  launch(
      grid, block,
      [](void *p) {
        Pack *pk = static_cast<Pack *>(p);
        std::apply(pk->kernel, pk->args);
      },
      &pack);
}

} // namespace fusec_host

//===----------------------------------------------------------------------===//
// Synchronisation and warp intrinsics.
//===----------------------------------------------------------------------===//

inline void __syncthreads() {
  fusec_host::detail::syncThreads(0, "__syncthreads");
}
inline int __syncthreads_count(int predicate) {
  return static_cast<int>(
      fusec_host::detail::syncThreads(predicate, "__syncthreads_count"));
}
inline int __syncthreads_and(int predicate) {
  unsigned n = fusec_host::detail::syncThreads(predicate, "__syncthreads_and");
  return n == fusec_host::detail::tlsLaunch->barParticipants;
}
inline int __syncthreads_or(int predicate) {
  return fusec_host::detail::syncThreads(predicate, "__syncthreads_or") != 0;
}

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  fusec_host::detail::warpCollective(fusec_host::detail::kSyncWarp, mask, 0, 0,
                                     32);
}

inline unsigned __activemask() {
  fusec_host::detail::Launch *L = fusec_host::detail::current("__activemask");
  return L->warps[L->running / 32].live;
}

inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return static_cast<unsigned>(fusec_host::detail::warpCollective(
      fusec_host::detail::kBallot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate) {
  return static_cast<int>(fusec_host::detail::warpCollective(
      fusec_host::detail::kAny, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate) {
  return static_cast<int>(fusec_host::detail::warpCollective(
      fusec_host::detail::kAll, mask, predicate != 0, 0, 32));
}

namespace fusec_host {
namespace detail {
template <typename T>
inline T shuffle(uint8_t op, unsigned mask, T var, int param, int width) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = warpCollective(op, mask, bits, param, width);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
} // namespace detail
} // namespace fusec_host

#define FUSEC_HOST_SHUFFLES(T)                                                 \
  inline T __shfl_sync(unsigned mask, T var, int srcLane,                      \
                       int width = warpSize) {                                 \
    return fusec_host::detail::shuffle<T>(fusec_host::detail::kShflIdx, mask,  \
                                          var, srcLane, width);                \
  }                                                                            \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned delta,                \
                          int width = warpSize) {                              \
    return fusec_host::detail::shuffle<T>(fusec_host::detail::kShflUp, mask,   \
                                          var, static_cast<int>(delta),        \
                                          width);                              \
  }                                                                            \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned delta,              \
                            int width = warpSize) {                            \
    return fusec_host::detail::shuffle<T>(fusec_host::detail::kShflDown, mask, \
                                          var, static_cast<int>(delta),        \
                                          width);                              \
  }                                                                            \
  inline T __shfl_xor_sync(unsigned mask, T var, int laneMask,                 \
                           int width = warpSize) {                             \
    return fusec_host::detail::shuffle<T>(fusec_host::detail::kShflXor, mask,  \
                                          var, laneMask, width);               \
  }

FUSEC_HOST_SHUFFLES(int)
FUSEC_HOST_SHUFFLES(unsigned int)
FUSEC_HOST_SHUFFLES(long)
FUSEC_HOST_SHUFFLES(unsigned long)
FUSEC_HOST_SHUFFLES(long long)
FUSEC_HOST_SHUFFLES(unsigned long long)
FUSEC_HOST_SHUFFLES(float)
FUSEC_HOST_SHUFFLES(double)
#undef FUSEC_HOST_SHUFFLES

//===----------------------------------------------------------------------===//
// Memory fences and atomics. Fibers never run at the same time, so a plain
// read-modify-write is atomic with respect to the other CUDA threads.
//===----------------------------------------------------------------------===//

inline void __threadfence() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#define FUSEC_HOST_ATOMIC(T, NAME, EXPR)                                       \
  inline T NAME(T *address, T val) {                                           \
    T old = *address;                                                          \
    *address = (EXPR);                                                         \
    return old;                                                                \
  }
#define FUSEC_HOST_ATOMIC_ARITH(T)                                             \
  FUSEC_HOST_ATOMIC(T, atomicAdd, old + val)                                   \
  FUSEC_HOST_ATOMIC(T, atomicExch, val)
#define FUSEC_HOST_ATOMIC_INT(T)                                               \
  FUSEC_HOST_ATOMIC_ARITH(T)                                                   \
  FUSEC_HOST_ATOMIC(T, atomicMin, val < old ? val : old)                       \
  FUSEC_HOST_ATOMIC(T, atomicMax, val > old ? val : old)                       \
  FUSEC_HOST_ATOMIC(T, atomicAnd, old &val)                                    \
  FUSEC_HOST_ATOMIC(T, atomicOr, old | val)                                    \
  FUSEC_HOST_ATOMIC(T, atomicXor, old ^ val)                                   \
  inline T atomicCAS(T *address, T compare, T val) {                           \
    T old = *address;                                                          \
    if (old == compare)                                                        \
      *address = val;                                                          \
    return old;                                                                \
  }
FUSEC_HOST_ATOMIC_INT(int)
FUSEC_HOST_ATOMIC_INT(unsigned int)
FUSEC_HOST_ATOMIC_INT(unsigned long long)
FUSEC_HOST_ATOMIC(long long, atomicMin, val < old ? val : old)
FUSEC_HOST_ATOMIC(long long, atomicMax, val > old ? val : old)
FUSEC_HOST_ATOMIC_ARITH(float)
FUSEC_HOST_ATOMIC(double, atomicAdd, old + val)
FUSEC_HOST_ATOMIC(int, atomicSub, old - val)
FUSEC_HOST_ATOMIC(unsigned int, atomicSub, old - val)
FUSEC_HOST_ATOMIC(unsigned int, atomicInc, old >= val ? 0u : old + 1u)
FUSEC_HOST_ATOMIC(unsigned int, atomicDec,
                  old == 0u || old > val ? val : old - 1u)
#undef FUSEC_HOST_ATOMIC_INT
#undef FUSEC_HOST_ATOMIC_ARITH
#undef FUSEC_HOST_ATOMIC

//===----------------------------------------------------------------------===//
// Math and bit intrinsics (a subset; <cmath>'s float functions are already
// global). min/max as CUDA overloads them.
//===----------------------------------------------------------------------===//

#define FUSEC_HOST_MINMAX(A, B, R)                                             \
  inline R min(A a, B b) {                                                     \
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a)           \
                                                 : static_cast<R>(b);          \
  }                                                                            \
  inline R max(A a, B b) {                                                     \
    return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a)           \
                                                 : static_cast<R>(b);          \
  }
FUSEC_HOST_MINMAX(int, int, int)
FUSEC_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
FUSEC_HOST_MINMAX(int, unsigned int, unsigned int)
FUSEC_HOST_MINMAX(unsigned int, int, unsigned int)
FUSEC_HOST_MINMAX(long, long, long)
FUSEC_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
FUSEC_HOST_MINMAX(long long, long long, long long)
FUSEC_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
FUSEC_HOST_MINMAX(long long, unsigned long long, unsigned long long)
FUSEC_HOST_MINMAX(unsigned long long, long long, unsigned long long)
#undef FUSEC_HOST_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// Macros, as C23 libcs may declare rsqrt/rsqrtf themselves.
#define rsqrtf(x) (1.0f / sqrtf(x))
#define rsqrt(x) (1.0 / sqrt(x))
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) {
  return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; // NaN -> 0
}
// glibc declares (but does not export) __expf & co., so they are macros.
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf(x, y)

inline float __int_as_float(int x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline float __uint_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline unsigned __float_as_uint(float x) {
  unsigned i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) {
  return x ? __builtin_clz(static_cast<unsigned>(x)) : 32;
}
inline int __clzll(long long x) {
  return x ? __builtin_clzll(static_cast<unsigned long long>(x)) : 64;
}
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
template <typename T> inline T __ldg(const T *p) { return *p; }

#pragma GCC visibility pop

#endif // FUSEC_RUNTIME_HOST_HOSTCUDA_H
