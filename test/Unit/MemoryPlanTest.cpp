//===- MemoryPlanTest.cpp - Tests of the compile-time memory plan ---------===//
//
// Executables are built in code (Program below), never parsed. Expected
// live ranges, in-place pairs, lower bounds, peak steps and arena sizes of
// the small programs are worked out by hand in the comments next to them.
//
// Random programs (SSA-like step lists of up to 200 launches and matmuls,
// with aliases, multi-output kernels, in-place permissions, zero-byte and
// unused temps) are planned, with and without in place, and the plan is
// judged by code written here from the definitions, independently of the
// code under test:
//   - a byte-level simulation runs the steps on a tagged copy of the arena:
//     every byte a step reads must still hold what its buffer's writer put
//     there, the function's outputs must survive to the end, and no output
//     of a step may share a byte with another argument of that step except
//     an input the kernel lets it overwrite, byte for byte;
//   - a brute-force lower bound (each buffer's liveness and each in-place
//     pair found by rescanning the whole program) must equal the figures.
// The arena / lower-bound ratios they get are printed.
//
// checkMemoryPlan is shown hand-corrupted plans, with the exact messages,
// and a 10^5-buffer program is planned and checked against the clock.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/MemoryPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// Builds an Executable step by step. Temps are i1 vectors, so that their
/// size in bytes is their one dimension.
class Program {
public:
  Executable exe;

  Program() {
    exe.entry = "main";
    exe.arch = "sm_90";
    exe.ptx.push_back("// ptx");
  }

  int64_t input(int64_t bytes, const std::string &name) {
    int64_t b = add(BufferKind::Input, bytes, name);
    exe.buffers[size_t(b)].index = int64_t(exe.inputs.size());
    exe.inputs.push_back(b);
    return b;
  }

  int64_t constant(int64_t bytes, const std::string &name) {
    int64_t b = add(BufferKind::Constant, bytes, name);
    exe.buffers[size_t(b)].index = int64_t(exe.constants.size());
    exe.constants.push_back(std::string(size_t(bytes), '\0'));
    return b;
  }

  int64_t temp(int64_t bytes, const std::string &name) {
    return add(BufferKind::Temp, bytes, name);
  }

  int64_t alias(int64_t of, const std::string &name) {
    int64_t b = add(BufferKind::Alias, 0, name);
    BufferDesc &d = exe.buffers[size_t(b)];
    d.dtype = exe.buffers[size_t(of)].dtype;
    d.shape = exe.buffers[size_t(of)].shape;
    d.index = of;
    return b;
  }

  int64_t kernel(const std::string &name, int64_t numInputs, int64_t numOutputs,
                 std::vector<std::pair<int64_t, int64_t>> inPlace = {}) {
    KernelDesc k;
    k.name = name;
    k.numInputs = numInputs;
    k.numOutputs = numOutputs;
    k.work = 1;
    k.inPlace = std::move(inPlace);
    k.ptxIndex = 0;
    exe.kernels.push_back(k);
    return int64_t(exe.kernels.size()) - 1;
  }

  void launch(int64_t kernel, std::vector<int64_t> args) {
    Step s;
    s.kind = Step::Kind::Launch;
    s.launch.kernel = kernel;
    s.launch.args = std::move(args);
    exe.steps.push_back(s);
  }

  void matmul(int64_t a, int64_t b, int64_t c, int64_t bias = -1) {
    Step s;
    s.kind = Step::Kind::Matmul;
    s.matmul.a = a;
    s.matmul.b = b;
    s.matmul.c = c;
    s.matmul.bias = bias;
    s.matmul.epilogue = bias >= 0 ? MatmulEpilogue::Bias : MatmulEpilogue::None;
    exe.steps.push_back(s);
  }

  void output(int64_t b) { exe.outputs.push_back(b); }

private:
  int64_t add(BufferKind kind, int64_t bytes, const std::string &name) {
    BufferDesc d;
    d.kind = kind;
    d.dtype = DType::I1;
    d.shape = {bytes};
    d.name = name;
    exe.buffers.push_back(d);
    return int64_t(exe.buffers.size()) - 1;
  }
};

LiveRange range(int64_t first, int64_t last) {
  LiveRange r;
  r.first = first;
  r.last = last;
  return r;
}

::testing::AssertionResult sameRange(const LiveRange &got,
                                     const LiveRange &want) {
  if (got.empty() && want.empty())
    return ::testing::AssertionSuccess();
  if (got.first == want.first && got.last == want.last)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "[" << got.first << ", " << got.last << "], expected ["
         << want.first << ", " << want.last << "]";
}

std::string checkError(const Executable &exe) {
  std::string error;
  if (checkMemoryPlan(exe, error))
    return "";
  return error.empty() ? "(failed without a message)" : error;
}

//===----------------------------------------------------------------------===//
// Independent judges of a plan
//===----------------------------------------------------------------------===//

int64_t bytesOf(const Executable &exe, int64_t b) {
  const BufferDesc &d = exe.buffers[size_t(b)];
  int64_t n = int64_t(dtypeSize(d.dtype));
  for (int64_t x : d.shape)
    n *= x;
  return n;
}

int64_t rootOf(const Executable &exe, int64_t b) {
  const BufferDesc &d = exe.buffers[size_t(b)];
  return d.kind == BufferKind::Alias ? d.index : b;
}

int64_t roundUp(int64_t bytes) { return (bytes + 255) / 256 * 256; }

/// The buffers step s reads and writes, as the definitions say.
void stepArgs(const Step &s, std::vector<int64_t> &reads,
              std::vector<int64_t> &writes, const Executable &exe) {
  reads.clear();
  writes.clear();
  if (s.kind == Step::Kind::Matmul) {
    reads.push_back(s.matmul.a);
    reads.push_back(s.matmul.b);
    if (s.matmul.bias >= 0)
      reads.push_back(s.matmul.bias);
    writes.push_back(s.matmul.c);
    return;
  }
  const KernelDesc &k = exe.kernels[size_t(s.launch.kernel)];
  for (size_t a = 0; a < s.launch.args.size(); ++a)
    (int64_t(a) < k.numInputs ? reads : writes).push_back(s.launch.args[a]);
}

/// Whether step s (or the end, s == steps.size()) touches root r.
bool touches(const Executable &exe, int64_t s, int64_t r) {
  if (s == int64_t(exe.steps.size())) {
    for (int64_t o : exe.outputs)
      if (rootOf(exe, o) == r)
        return true;
    return false;
  }
  std::vector<int64_t> reads, writes;
  stepArgs(exe.steps[size_t(s)], reads, writes, exe);
  for (int64_t b : reads)
    if (rootOf(exe, b) == r)
      return true;
  for (int64_t b : writes)
    if (rootOf(exe, b) == r)
      return true;
  return false;
}

struct BruteFigures {
  int64_t lowerBound = 0, peakStep = 0;
  std::vector<int64_t> takes; // per buffer
  /// The largest aligned size of a temp never live, which the arena must
  /// hold all the same: with lowerBound, what no plan can go below.
  int64_t neverLive = 0;
  /// live[b][t]: temp root b is live at step t (empty for other buffers).
  std::vector<std::vector<char>> live;
};

/// The figures by rescanning the program for every question: O(n^2 S),
/// fine for a few hundred buffers.
BruteFigures bruteFigures(const Executable &exe) {
  auto numSteps = int64_t(exe.steps.size());
  size_t n = exe.buffers.size();
  // touchedAt[r][t] for every temp root r and t in 0..numSteps.
  std::vector<std::vector<char>> touchedAt(n);
  for (size_t r = 0; r < n; ++r) {
    if (exe.buffers[r].kind != BufferKind::Temp)
      continue;
    touchedAt[r].resize(size_t(numSteps) + 1);
    for (int64_t t = 0; t <= numSteps; ++t)
      touchedAt[r][size_t(t)] = touches(exe, t, int64_t(r));
  }
  // live[r][t]: touched at t or before, and at t or after.
  std::vector<std::vector<char>> live(n);
  for (size_t r = 0; r < n; ++r) {
    if (touchedAt[r].empty())
      continue;
    live[r].resize(size_t(numSteps) + 2);
    std::vector<char> before(size_t(numSteps) + 1), after = before;
    for (int64_t t = 0; t <= numSteps; ++t)
      before[size_t(t)] =
          touchedAt[r][size_t(t)] || (t > 0 && before[size_t(t - 1)]);
    for (int64_t t = numSteps; t >= 0; --t)
      after[size_t(t)] =
          touchedAt[r][size_t(t)] || (t < numSteps && after[size_t(t + 1)]);
    for (int64_t t = 0; t <= numSteps; ++t)
      live[r][size_t(t)] = before[size_t(t)] && after[size_t(t)];
  }
  auto liveAt = [&](size_t r, int64_t t) {
    return !live[r].empty() && t >= 0 && live[r][size_t(t)];
  };
  auto startsAt = [&](size_t r, int64_t t) {
    return liveAt(r, t) && (t == 0 || !liveAt(r, t - 1));
  };
  auto endsAt = [&](size_t r, int64_t t) {
    return liveAt(r, t) && !liveAt(r, t + 1);
  };

  BruteFigures f;
  f.takes.assign(n, -1);
  for (size_t r = 0; r < n; ++r)
    if (!touchedAt[r].empty() &&
        std::count(touchedAt[r].begin(), touchedAt[r].end(), 1) == 0)
      f.neverLive = std::max(f.neverLive, roundUp(bytesOf(exe, int64_t(r))));
  std::vector<char> taken(n, 0);
  for (int64_t s = 0; s < numSteps; ++s) {
    const Step &step = exe.steps[size_t(s)];
    if (step.kind != Step::Kind::Launch)
      continue;
    const KernelDesc &k = exe.kernels[size_t(step.launch.kernel)];
    const std::vector<int64_t> &args = step.launch.args;
    for (auto [i, o] : k.inPlace) {
      if (i < 0 || i >= k.numInputs || o < 0 || o >= k.numOutputs)
        continue;
      int64_t r = rootOf(exe, args[size_t(i)]);
      int64_t out = args[size_t(k.numInputs + o)];
      if (exe.buffers[size_t(r)].kind != BufferKind::Temp ||
          exe.buffers[size_t(out)].kind != BufferKind::Temp)
        continue;
      if (!endsAt(size_t(r), s) || !startsAt(size_t(out), s))
        continue;
      if (bytesOf(exe, r) != bytesOf(exe, out))
        continue;
      bool shared = false;
      for (size_t j = 0; j < args.size(); ++j)
        if (int64_t(j) != i && rootOf(exe, args[j]) == r)
          shared = true;
      if (shared ||
          exe.buffers[size_t(r)].offset != exe.buffers[size_t(out)].offset)
        continue;
      if (taken[size_t(r)] || f.takes[size_t(out)] >= 0)
        continue;
      taken[size_t(r)] = 1;
      f.takes[size_t(out)] = r;
    }
  }
  f.live = live;
  for (int64_t t = 0; t <= numSteps; ++t) {
    int64_t sum = 0;
    for (size_t r = 0; r < n; ++r)
      if (liveAt(r, t))
        sum += roundUp(bytesOf(exe, int64_t(r)));
    for (size_t out = 0; out < n; ++out)
      if (f.takes[out] >= 0 && startsAt(out, t))
        sum -= roundUp(bytesOf(exe, int64_t(out)));
    if (sum > f.lowerBound) {
      f.lowerBound = sum;
      f.peakStep = t;
    }
  }
  return f;
}

/// Runs the program on a tagged arena: each byte holds the buffer that last
/// wrote it. Returns "" or what went wrong.
std::string simulate(const Executable &exe) {
  int64_t arena = exe.memory.arenaBytes;
  for (size_t b = 0; b < exe.buffers.size(); ++b) {
    const BufferDesc &d = exe.buffers[b];
    if (d.kind != BufferKind::Temp)
      continue;
    if (d.offset < 0 || d.offset % 256 != 0 ||
        d.offset + bytesOf(exe, int64_t(b)) > arena)
      return "temp " + std::to_string(b) + " is misplaced";
  }
  std::vector<int64_t> tag(size_t(arena), -1);
  // A temp no step writes holds nothing to clobber.
  std::vector<char> written(exe.buffers.size(), 0);
  auto inArena = [&](int64_t b) {
    return exe.buffers[size_t(rootOf(exe, b))].kind == BufferKind::Temp;
  };
  auto intact = [&](int64_t b) {
    int64_t r = rootOf(exe, b);
    if (!written[size_t(r)])
      return true;
    int64_t off = exe.buffers[size_t(r)].offset;
    for (int64_t x = off; x < off + bytesOf(exe, r); ++x)
      if (tag[size_t(x)] != r)
        return false;
    return true;
  };
  auto intersect = [&](int64_t a, int64_t b) {
    int64_t ra = rootOf(exe, a), rb = rootOf(exe, b);
    int64_t oa = exe.buffers[size_t(ra)].offset;
    int64_t ob = exe.buffers[size_t(rb)].offset;
    return oa < ob + bytesOf(exe, rb) && ob < oa + bytesOf(exe, ra);
  };
  std::vector<int64_t> reads, writes;
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    const Step &step = exe.steps[s];
    std::string where = "step " + std::to_string(s) + ": ";
    stepArgs(step, reads, writes, exe);
    for (int64_t b : reads)
      if (inArena(b) && !intact(b))
        return where + "reads buffer " + std::to_string(b) + ", clobbered";
    // Within the step: an output shares no byte with another argument but
    // an input the kernel may overwrite, and then exactly its bytes.
    std::vector<int64_t> args = reads;
    args.insert(args.end(), writes.begin(), writes.end());
    for (size_t w = 0; w < writes.size(); ++w) {
      int64_t out = writes[w];
      if (!inArena(out))
        continue;
      size_t p = reads.size() + w;
      int64_t sharers = 0;
      bool permitted = false;
      for (size_t q = 0; q < args.size(); ++q) {
        if (q == p || !inArena(args[q]) || !intersect(out, args[q]))
          continue;
        ++sharers;
        int64_t rq = rootOf(exe, args[q]), ro = rootOf(exe, out);
        if (step.kind == Step::Kind::Launch && q < reads.size() &&
            exe.buffers[size_t(rq)].offset == exe.buffers[size_t(ro)].offset &&
            bytesOf(exe, rq) == bytesOf(exe, ro)) {
          const KernelDesc &k = exe.kernels[size_t(step.launch.kernel)];
          for (auto [i, o] : k.inPlace)
            if (i == int64_t(q) && o == int64_t(w))
              permitted = true;
        }
      }
      if (sharers > 1 || (sharers == 1 && !permitted))
        return where + "output " + std::to_string(out) +
               " shares bytes with another argument";
    }
    for (int64_t b : writes) {
      if (!inArena(b))
        continue;
      int64_t r = rootOf(exe, b);
      int64_t off = exe.buffers[size_t(r)].offset;
      for (int64_t x = off; x < off + bytesOf(exe, r); ++x)
        tag[size_t(x)] = r;
      written[size_t(r)] = 1;
    }
  }
  for (int64_t o : exe.outputs)
    if (inArena(o) && !intact(o))
      return "output buffer " + std::to_string(o) + " is clobbered";
  return "";
}

/// Whether the plan in `exe` is valid, by the definitions, pair by pair.
/// `overlap` tells whether two temps sharing bytes is the (first) reason.
bool bruteValid(const Executable &exe, bool &overlap) {
  overlap = false;
  const MemoryFigures &m = exe.memory;
  if (m.arenaBytes < 0 || m.workspaceBytes < 0 || m.workspaceBytes % 256)
    return false;
  for (size_t b = 0; b < exe.buffers.size(); ++b) {
    const BufferDesc &d = exe.buffers[b];
    if (d.kind != BufferKind::Temp) {
      if (d.offset != -1)
        return false;
      continue;
    }
    if (d.offset < 0 || d.offset % 256 != 0 ||
        d.offset > m.arenaBytes - bytesOf(exe, int64_t(b)))
      return false;
  }
  BruteFigures f = bruteFigures(exe);
  size_t n = exe.buffers.size();
  for (size_t x = 0; x < n; ++x)
    for (size_t y = x + 1; y < n; ++y) {
      if (f.live[x].empty() || f.live[y].empty())
        continue;
      bool together = false;
      for (size_t t = 0; t < f.live[x].size(); ++t)
        together |= f.live[x][t] && f.live[y][t];
      int64_t ox = exe.buffers[x].offset, oy = exe.buffers[y].offset;
      int64_t bx = bytesOf(exe, int64_t(x)), by = bytesOf(exe, int64_t(y));
      bool share = bx > 0 && by > 0 && ox < oy + by && oy < ox + bx;
      bool pair = f.takes[x] == int64_t(y) || f.takes[y] == int64_t(x);
      if (together && share && !pair) {
        overlap = true;
        return false;
      }
    }
  return m.lowerBoundBytes == f.lowerBound && m.peakStep == f.peakStep;
}

/// Plans, then requires the check, the simulation and the brute-force
/// figures to agree with the plan.
BruteFigures planAndJudge(Executable &exe, bool inPlace) {
  MemoryPlanOptions options;
  options.inPlace = inPlace;
  planMemory(exe, options);
  EXPECT_EQ(checkError(exe), "");
  EXPECT_EQ(simulate(exe), "");
  BruteFigures f = bruteFigures(exe);
  EXPECT_EQ(exe.memory.lowerBoundBytes, f.lowerBound);
  EXPECT_EQ(exe.memory.peakStep, f.peakStep);
  EXPECT_GE(exe.memory.arenaBytes, exe.memory.lowerBoundBytes);
  EXPECT_EQ(exe.memory.arenaBytes % kArenaAlignment, 0);
  MemoryAnalysis a = analyzeMemory(exe);
  EXPECT_EQ(a.inPlaceOf, f.takes);
  if (!inPlace) {
    for (size_t b = 0; b < exe.buffers.size(); ++b) {
      if (bytesOf(exe, int64_t(b)) > 0) {
        EXPECT_EQ(a.inPlaceOf[b], -1) << "buffer " << b;
      }
    }
  }
  return f;
}

//===----------------------------------------------------------------------===//
// Hand-worked programs
//===----------------------------------------------------------------------===//

/// x -> t0 -> t1 -> t2 -> t3 (returned), 1000 bytes each (1024 aligned),
/// through kernel "k", which may work in place when `permit`.
Program chain(bool permit) {
  Program p;
  int64_t x = p.input(1000, "x");
  int64_t k = p.kernel("k", 1, 1,
                       permit ? std::vector<std::pair<int64_t, int64_t>>{{0, 0}}
                              : std::vector<std::pair<int64_t, int64_t>>{});
  int64_t prev = x;
  for (int i = 0; i < 4; ++i) {
    int64_t t = p.temp(1000, "t" + std::to_string(i));
    p.launch(k, {prev, t});
    prev = t;
  }
  p.output(prev);
  return p;
}

TEST(MemoryPlanTest, ChainWithoutInPlace) {
  // t0 [0,1], t1 [1,2], t2 [2,3], t3 [3,4]: two buffers at every step but
  // the first and the end, the first of them step 1.
  Program p = chain(false);
  planAndJudge(p.exe, true);
  MemoryAnalysis a = analyzeMemory(p.exe);
  EXPECT_TRUE(sameRange(a.liveRanges[0], LiveRange())); // The input.
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(i + 1)], range(i, i + 1)));
  EXPECT_EQ(p.exe.memory.arenaBytes, 2048);
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 2048);
  EXPECT_EQ(p.exe.memory.peakStep, 1);
  EXPECT_EQ(a.oneBufferPerTempBytes, 4096);
  EXPECT_EQ(p.exe.buffers[0].offset, -1);
  EXPECT_NE(p.exe.buffers[1].offset, p.exe.buffers[2].offset);
}

TEST(MemoryPlanTest, ChainInPlace) {
  // t1 takes t0 at step 1, t2 takes t1 at 2, t3 takes t2 at 3 (x is an
  // input: not at step 0). One buffer, live from step 0.
  Program p = chain(true);
  planAndJudge(p.exe, true);
  MemoryAnalysis a = analyzeMemory(p.exe);
  EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, 1, 2, 3}));
  EXPECT_EQ(p.exe.memory.arenaBytes, 1024);
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 1024);
  EXPECT_EQ(p.exe.memory.peakStep, 0);
  for (int i = 1; i <= 4; ++i)
    EXPECT_EQ(p.exe.buffers[size_t(i)].offset, 0);

  // Not allowed to: as without the permission.
  Program q = chain(true);
  planAndJudge(q.exe, false);
  EXPECT_EQ(q.exe.memory.arenaBytes, 2048);
  EXPECT_EQ(q.exe.memory.lowerBoundBytes, 2048);
  EXPECT_EQ(q.exe.memory.peakStep, 1);
}

TEST(MemoryPlanTest, Diamond) {
  // s0: t0 = k(x); s1: t1 = k(t0); s2: t2 = k(t0); s3: t3 = add(t1, t2).
  // Ranges t0 [0,2], t1 [1,3], t2 [2,3], t3 [3,4]. In place: not at s1 (t0
  // is read at s2); t2 takes t0 at s2; t3 takes t1 at s3 (the permission
  // (0, 0) comes first, (1, 0) finds t3 taken). Live: 1, 2, 3 - 1, 3 - 1, 1
  // buffers of 1024 bytes; without in place 1, 2, 3, 3, 1.
  for (bool inPlace : {true, false}) {
    Program p;
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 1, 1, {{0, 0}});
    int64_t add = p.kernel("add", 2, 1, {{0, 0}, {1, 0}});
    int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(1024, "t1");
    int64_t t2 = p.temp(1024, "t2"), t3 = p.temp(1024, "t3");
    p.launch(k, {x, t0});
    p.launch(k, {t0, t1});
    p.launch(k, {t0, t2});
    p.launch(add, {t1, t2, t3});
    p.output(t3);
    planAndJudge(p.exe, inPlace);
    MemoryAnalysis a = analyzeMemory(p.exe);
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(t0)], range(0, 2)));
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(t1)], range(1, 3)));
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(t2)], range(2, 3)));
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(t3)], range(3, 4)));
    if (inPlace) {
      EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, t0, t1}));
      EXPECT_EQ(p.exe.memory.arenaBytes, 2048);
      EXPECT_EQ(p.exe.memory.lowerBoundBytes, 2048);
      EXPECT_EQ(p.exe.memory.peakStep, 1);
    } else {
      EXPECT_EQ(p.exe.memory.arenaBytes, 3072);
      EXPECT_EQ(p.exe.memory.lowerBoundBytes, 3072);
      EXPECT_EQ(p.exe.memory.peakStep, 2);
    }
  }
}

TEST(MemoryPlanTest, MultiOutputKernels) {
  // s0: t0 = k(x); s1: (t1, t2) = split(t0); s2: t3 = add(t1, t2).
  // split lets its second output take its input: t2 takes t0 at s1, t3
  // takes t1 at s2. Live: t0; t0 t1 t2 (t0 = t2); t1 t2 t3 (t1 = t3); t3.
  {
    Program p;
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 1, 1);
    int64_t split = p.kernel("split", 1, 2, {{0, 1}});
    int64_t add = p.kernel("add", 2, 1, {{0, 0}});
    int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(1024, "t1");
    int64_t t2 = p.temp(1024, "t2"), t3 = p.temp(1024, "t3");
    p.launch(k, {x, t0});
    p.launch(split, {t0, t1, t2});
    p.launch(add, {t1, t2, t3});
    p.output(t3);
    planAndJudge(p.exe, true);
    MemoryAnalysis a = analyzeMemory(p.exe);
    EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, t0, t1}));
    EXPECT_EQ(p.exe.memory.lowerBoundBytes, 2048);
    EXPECT_EQ(p.exe.memory.peakStep, 1);
    EXPECT_EQ(p.exe.memory.arenaBytes, 2048);
  }
  // Both outputs may take the input: the first permission wins, a root is
  // taken once.
  {
    Program p;
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 1, 1);
    int64_t split = p.kernel("split", 1, 2, {{0, 0}, {0, 1}});
    int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(1024, "t1");
    int64_t t2 = p.temp(1024, "t2");
    p.launch(k, {x, t0});
    p.launch(split, {t0, t1, t2});
    p.output(t1);
    p.output(t2);
    planAndJudge(p.exe, true);
    MemoryAnalysis a = analyzeMemory(p.exe);
    EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, t0, -1}));
    EXPECT_EQ(p.exe.memory.lowerBoundBytes, 2048);
    EXPECT_EQ(p.exe.memory.arenaBytes, 2048);
  }
  // The first permission fails on size (t1 is 512 bytes): the second one
  // is taken. Live at s1: t0 t1 t2, t2 = t0: 1024 + 512 (aligned).
  {
    Program p;
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 1, 1);
    int64_t split = p.kernel("split", 1, 2, {{0, 0}, {0, 1}});
    int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(500, "t1");
    int64_t t2 = p.temp(1024, "t2");
    p.launch(k, {x, t0});
    p.launch(split, {t0, t1, t2});
    p.output(t1);
    p.output(t2);
    planAndJudge(p.exe, true);
    MemoryAnalysis a = analyzeMemory(p.exe);
    EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, t0}));
    EXPECT_EQ(p.exe.memory.lowerBoundBytes, 1536);
    EXPECT_EQ(p.exe.memory.peakStep, 1);
    EXPECT_EQ(p.exe.memory.arenaBytes, 1536);
  }
}

TEST(MemoryPlanTest, AliasesExtendTheRootsLife) {
  // s0: t0 = k(x); s1: t1 = k(x); s2: t2 = k(x); s3: t3 = add(v, t2) with v
  // a view of t0; w, a view of t1, is returned. t0 [0,3] through v, t1
  // [1,4] through w, t2 [2,3], t3 [3,4]; t3 takes t0 through v at s3.
  // Live: 1, 2, 3, 4 - 1, 2 buffers.
  Program p;
  int64_t x = p.input(1024, "x");
  int64_t k = p.kernel("k", 1, 1);
  int64_t add = p.kernel("add", 2, 1, {{0, 0}});
  int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(1024, "t1");
  int64_t t2 = p.temp(1024, "t2"), t3 = p.temp(1024, "t3");
  int64_t v = p.alias(t0, "v"), w = p.alias(t1, "w");
  p.launch(k, {x, t0});
  p.launch(k, {x, t1});
  p.launch(k, {x, t2});
  p.launch(add, {v, t2, t3});
  p.output(t3);
  p.output(w);
  planAndJudge(p.exe, true);
  MemoryAnalysis a = analyzeMemory(p.exe);
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(t0)], range(0, 3)));
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(t1)], range(1, 4)));
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(t2)], range(2, 3)));
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(t3)], range(3, 4)));
  EXPECT_TRUE(a.liveRanges[size_t(v)].empty());
  EXPECT_TRUE(a.liveRanges[size_t(w)].empty());
  EXPECT_EQ(a.inPlaceOf[size_t(t3)], t0);
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 3072);
  EXPECT_EQ(p.exe.memory.peakStep, 2);
  EXPECT_EQ(p.exe.memory.arenaBytes, 3072);
  EXPECT_EQ(p.exe.buffers[size_t(v)].offset, -1);
}

TEST(MemoryPlanTest, OutputsLiveToTheEnd) {
  // s0: t0 = k(x), returned; s1: t1 = k(t0); s2: t2 = k(t1), returned.
  // t0 [0,3], t1 [1,2], t2 [2,3]: 1, 2, 3 - 1, 2 buffers; t1 cannot take
  // t0 (an output), t2 takes t1.
  Program p;
  int64_t x = p.input(256, "x");
  int64_t k = p.kernel("k", 1, 1, {{0, 0}});
  int64_t t0 = p.temp(256, "t0"), t1 = p.temp(256, "t1");
  int64_t t2 = p.temp(256, "t2");
  p.launch(k, {x, t0});
  p.launch(k, {t0, t1});
  p.launch(k, {t1, t2});
  p.output(t0);
  p.output(t2);
  planAndJudge(p.exe, true);
  MemoryAnalysis a = analyzeMemory(p.exe);
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(t0)], range(0, 3)));
  EXPECT_EQ(a.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, t1}));
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 512);
  EXPECT_EQ(p.exe.memory.peakStep, 1);
  EXPECT_EQ(p.exe.memory.arenaBytes, 512);

  // A returned temp that no step writes lives after the last step only.
  Program q;
  int64_t y = q.input(256, "y");
  int64_t kq = q.kernel("k", 1, 1);
  int64_t u = q.temp(256, "u"), z = q.temp(4096, "z");
  q.launch(kq, {y, u});
  q.output(u);
  q.output(z);
  planAndJudge(q.exe, true);
  MemoryAnalysis b = analyzeMemory(q.exe);
  EXPECT_TRUE(sameRange(b.liveRanges[size_t(z)], range(1, 1)));
  EXPECT_EQ(q.exe.memory.lowerBoundBytes, 4096 + 256);
  EXPECT_EQ(q.exe.memory.peakStep, 1);
  EXPECT_EQ(describeStep(q.exe, 1), "after the last step");
}

TEST(MemoryPlanTest, ZeroSizeAndUnusedTemps) {
  // e (0 bytes) is live [0,1] and conflicts with nothing; n (5000 bytes) is
  // never accessed: empty range, but its offset must still fit the arena.
  Program p;
  int64_t x = p.input(300, "x");
  int64_t k = p.kernel("k", 1, 2);
  int64_t k2 = p.kernel("k2", 2, 1);
  int64_t t0 = p.temp(300, "t0"), e = p.temp(0, "e");
  int64_t n = p.temp(5000, "n"), t1 = p.temp(300, "t1");
  p.launch(k, {x, t0, e});
  p.launch(k2, {t0, e, t1});
  p.output(t1);
  planAndJudge(p.exe, true);
  MemoryAnalysis a = analyzeMemory(p.exe);
  EXPECT_TRUE(sameRange(a.liveRanges[size_t(e)], range(0, 1)));
  EXPECT_TRUE(a.liveRanges[size_t(n)].empty());
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 1024); // t0, t1 at step 1.
  EXPECT_EQ(p.exe.memory.peakStep, 1);
  EXPECT_EQ(a.oneBufferPerTempBytes, 512 + 0 + 5120 + 512);
  EXPECT_GE(p.exe.memory.arenaBytes, p.exe.buffers[size_t(n)].offset + 5000);
  EXPECT_EQ(p.exe.memory.arenaBytes, 5120);

  // A zero-byte temp anywhere in the arena conflicts with nothing.
  p.exe.buffers[size_t(e)].offset = p.exe.buffers[size_t(t0)].offset;
  EXPECT_EQ(checkError(p.exe), "");
  p.exe.buffers[size_t(e)].offset = 5120;
  EXPECT_EQ(checkError(p.exe), "");
  // A never-live temp too, as long as it fits.
  p.exe.buffers[size_t(n)].offset = 0;
  EXPECT_EQ(checkError(p.exe), "");
  p.exe.buffers[size_t(n)].offset = 256;
  EXPECT_EQ(checkError(p.exe), "buffer 3 (\"n\"): 5000 bytes at offset 256 "
                               "do not fit in the 5120-byte arena");

  // A program of nothing.
  Program empty;
  planMemory(empty.exe);
  EXPECT_EQ(empty.exe.memory.arenaBytes, 0);
  EXPECT_EQ(empty.exe.memory.lowerBoundBytes, 0);
  EXPECT_EQ(empty.exe.memory.peakStep, 0);
  EXPECT_EQ(checkError(empty.exe), "");
}

/// s0: t0 = k(x); s1: t1 = f(t0) where f may take input 0 for output 0.
/// The variations below each break one condition; the pair, t0 and t1 both
/// 1024 bytes, would otherwise hold.
struct RefusalCase {
  const char *what;
  int64_t bound = 2048; // Live at step 1: t0 and t1.
  int64_t t1Bytes = 1024;
  bool readLater = false, t0Returned = false, fromInput = false;
  bool twice = false, twiceByAlias = false, noPermission = false;
  bool outAlias = false, writtenBefore = false, badPermission = false;
};

TEST(MemoryPlanTest, InPlaceRefused) {
  std::vector<RefusalCase> cases(11);
  cases[0].what = "allowed";
  cases[0].bound = 1024;
  cases[1].what = "size differs";
  cases[1].t1Bytes = 1000;
  cases[2].what = "input read later";
  cases[2].readLater = true;
  cases[2].bound = 3072; // t0, t1 (returned), t2 at step 2.
  cases[3].what = "input is an output";
  cases[3].t0Returned = true;
  cases[4].what = "input is a function input";
  cases[4].fromInput = true;
  cases[4].bound = 1024; // t0 is dead after step 0.
  cases[5].what = "other arg shares the root";
  cases[5].twice = true;
  cases[6].what = "other arg is a view of the root";
  cases[6].twiceByAlias = true;
  cases[7].what = "no permission";
  cases[7].noPermission = true;
  cases[8].what = "output is a view";
  cases[8].outAlias = true;
  cases[9].what = "output is live before";
  cases[9].writtenBefore = true;
  cases[10].what = "permission out of range";
  cases[10].badPermission = true;
  for (const RefusalCase &c : cases) {
    SCOPED_TRACE(c.what);
    Program p;
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 1, 1);
    std::vector<std::pair<int64_t, int64_t>> permit = {{0, 0}};
    if (c.noPermission)
      permit.clear();
    if (c.badPermission)
      permit = {{1, 0}, {0, 1}, {-1, 0}};
    int64_t f = p.kernel("f", 1, 1, permit);
    int64_t f2 = p.kernel("f2", 2, 1, {{0, 0}});
    int64_t g = p.kernel("g", 1, 2);
    int64_t t0 = p.temp(1024, "t0"), t1 = p.temp(c.t1Bytes, "t1");
    int64_t t2 = p.temp(1024, "t2");
    int64_t v0 = p.alias(t0, "v0"), v1 = p.alias(t1, "v1");
    if (c.writtenBefore)
      p.launch(g, {x, t0, t1}); // t1 written at s0, then at s1.
    else
      p.launch(k, {x, t0});
    int64_t in = c.fromInput ? x : t0;
    int64_t out = c.outAlias ? v1 : t1;
    if (c.twice)
      p.launch(f2, {in, in, out});
    else if (c.twiceByAlias)
      p.launch(f2, {in, v0, out});
    else
      p.launch(f, {in, out});
    if (c.readLater)
      p.launch(k, {t0, t2});
    p.output(t1);
    if (c.t0Returned)
      p.output(t0);
    planAndJudge(p.exe, true);
    MemoryAnalysis a = analyzeMemory(p.exe);
    bool allowed = std::string(c.what) == "allowed";
    EXPECT_EQ(a.inPlaceOf[size_t(t1)], allowed ? t0 : -1);
    EXPECT_EQ(p.exe.memory.lowerBoundBytes, c.bound);
    EXPECT_EQ(p.exe.memory.arenaBytes, c.bound);
  }
}

TEST(MemoryPlanTest, MatmulIsNeverInPlace) {
  // s0: a = k(x); s1: c = a @ w + bias, with bias a temp written at s0 too;
  // s2: d = k(c). a, bias [0,1], c [1,2], d [2,3]: at step 1 all three of a
  // (1024), bias (256) and c (1024), though a ends where c starts.
  Program p;
  int64_t x = p.input(1024, "x");
  int64_t wt = p.constant(1024, "w");
  int64_t k = p.kernel("k", 1, 2, {{0, 0}});
  int64_t k1 = p.kernel("k1", 1, 1, {{0, 0}});
  int64_t a = p.temp(1024, "a"), bias = p.temp(16, "bias");
  int64_t c = p.temp(1024, "c"), d = p.temp(1024, "d");
  p.launch(k, {x, a, bias});
  p.matmul(a, wt, c, bias);
  p.launch(k1, {c, d});
  p.output(d);
  planAndJudge(p.exe, true);
  MemoryAnalysis m = analyzeMemory(p.exe);
  EXPECT_TRUE(sameRange(m.liveRanges[size_t(bias)], range(0, 1)));
  EXPECT_EQ(m.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, -1, -1, c}));
  EXPECT_EQ(p.exe.memory.lowerBoundBytes, 2304);
  EXPECT_EQ(p.exe.memory.peakStep, 1);
  EXPECT_EQ(p.exe.memory.arenaBytes, 2304);
  EXPECT_EQ(p.exe.buffers[size_t(wt)].offset, -1);
  EXPECT_EQ(describeStep(p.exe, 1), "step 1 (matmul)");
  EXPECT_EQ(describeStep(p.exe, 2), "step 2 (launch of kernel 1 'k1')");
  EXPECT_EQ(describeStep(p.exe, 3), "after the last step");
  EXPECT_EQ(describeStep(p.exe, 4), "step 4 (out of range)");
  EXPECT_EQ(describeStep(p.exe, -1), "step -1 (out of range)");
}

//===----------------------------------------------------------------------===//
// Corrupted plans
//===----------------------------------------------------------------------===//

/// The chain without in place, placed by hand: t0 and t2 at 0, t1 and t3
/// at 1024 (buffers 1 to 4), arena 2048, bound 2048 first at step 1.
Executable handPlacedChain() {
  Program p = chain(false);
  p.exe.buffers[1].offset = 0;
  p.exe.buffers[2].offset = 1024;
  p.exe.buffers[3].offset = 0;
  p.exe.buffers[4].offset = 1024;
  p.exe.memory.arenaBytes = 2048;
  p.exe.memory.lowerBoundBytes = 2048;
  p.exe.memory.peakStep = 1;
  return p.exe;
}

TEST(MemoryPlanTest, CheckRejectsCorruptedPlans) {
  Executable good = handPlacedChain();
  ASSERT_EQ(checkError(good), "");
  auto with = [&](auto change) {
    Executable e = good;
    change(e);
    return checkError(e);
  };
  EXPECT_EQ(with([](Executable &e) { e.buffers[2].offset = 1000; }),
            "buffer 2 (\"t1\"): offset 1000 is not a multiple of 256");
  EXPECT_EQ(with([](Executable &e) { e.buffers[2].offset = -256; }),
            "buffer 2 (\"t1\"): negative offset -256");
  EXPECT_EQ(with([](Executable &e) { e.buffers[2].offset = 1280; }),
            "buffer 2 (\"t1\"): 1000 bytes at offset 1280 do not fit in the "
            "2048-byte arena");
  EXPECT_EQ(
      with([](Executable &e) { e.buffers[2].offset = INT64_MAX / 256 * 256; }),
      "buffer 2 (\"t1\"): 1000 bytes at offset 9223372036854775552 do "
      "not fit in the 2048-byte arena");
  EXPECT_EQ(with([](Executable &e) {
              e.memory.arenaBytes = INT64_MAX;
              e.buffers[2].offset = INT64_MAX / 256 * 256;
            }),
            "buffer 2 (\"t1\"): 1000 bytes at offset 9223372036854775552 do "
            "not fit in the 9223372036854775807-byte arena");
  // The last bytes of the arena may be unused: t1 ends at 2024.
  EXPECT_EQ(with([](Executable &e) { e.memory.arenaBytes = 2024; }), "");
  EXPECT_EQ(with([](Executable &e) { e.memory.arenaBytes = 2023; }),
            "buffer 2 (\"t1\"): 1000 bytes at offset 1024 do not fit in the "
            "2023-byte arena");
  EXPECT_EQ(with([](Executable &e) { e.memory.arenaBytes = 1 << 20; }), "");
  EXPECT_EQ(with([](Executable &e) { e.memory.arenaBytes = -1; }),
            "the arena size -1 is negative");
  EXPECT_EQ(with([](Executable &e) { e.memory.workspaceBytes = 100; }),
            "the workspace size 100 is not a non-negative multiple of 256");
  EXPECT_EQ(with([](Executable &e) { e.memory.workspaceBytes = -256; }),
            "the workspace size -256 is not a non-negative multiple of 256");
  EXPECT_EQ(with([](Executable &e) { e.memory.workspaceBytes = 1 << 22; }), "");
  EXPECT_EQ(with([](Executable &e) { e.buffers[0].offset = 0; }),
            "buffer 0 (\"x\"): offset 0 for an input buffer; only temps are "
            "placed in the arena (expected -1)");
  // t1 on t0 at step 1, and partly.
  EXPECT_EQ(with([](Executable &e) { e.buffers[2].offset = 0; }),
            "buffer 1 (\"t0\") and buffer 2 (\"t1\") are live together at "
            "step 1 but share bytes [0, 1000) of the arena");
  EXPECT_EQ(with([](Executable &e) { e.buffers[2].offset = 768; }),
            "buffer 1 (\"t0\") and buffer 2 (\"t1\") are live together at "
            "step 1 but share bytes [768, 1000) of the arena");
  // t3 lives on after the last step.
  EXPECT_EQ(with([](Executable &e) { e.buffers[4].offset = 0; }),
            "buffer 3 (\"t2\") and buffer 4 (\"t3\") are live together at "
            "step 3 but share bytes [0, 1000) of the arena");
  // Names are quoted as the reader does.
  EXPECT_EQ(with([](Executable &e) {
              e.buffers[1].name = "a\"b\\c\x01\xff";
              e.buffers[2].offset = 0;
            }),
            "buffer 1 (\"a\\\"b\\\\c\\x01\\xff\") and buffer 2 (\"t1\") are "
            "live together at step 1 but share bytes [0, 1000) of the arena");
  EXPECT_EQ(with([](Executable &e) { e.memory.lowerBoundBytes = 1024; }),
            "the lower bound is 1024 bytes, but the live temps need 2048 "
            "bytes at step 1 (launch of kernel 0 'k')");
  EXPECT_EQ(with([](Executable &e) { e.memory.peakStep = 2; }),
            "the peak step is 2, but the live temps first need 2048 bytes at "
            "step 1 (launch of kernel 0 'k')");
  // Swapping the two slots is as good.
  EXPECT_EQ(with([](Executable &e) {
              std::swap(e.buffers[1].offset, e.buffers[2].offset);
              std::swap(e.buffers[3].offset, e.buffers[4].offset);
            }),
            "");
}

TEST(MemoryPlanTest, CheckInPlacePairs) {
  // The chain in place: all four temps at offset 0, arena 1024.
  Program p = chain(true);
  planMemory(p.exe);
  ASSERT_EQ(checkError(p.exe), "");
  ASSERT_EQ(p.exe.buffers[2].offset, 0);
  // Different offsets, apart: a valid placement, but no pair at step 1 any
  // more, so the stored bound (pairs counted once) is wrong.
  {
    Executable e = p.exe;
    e.buffers[2].offset = 1024;
    e.memory.arenaBytes = 2048;
    EXPECT_EQ(checkError(e), "the lower bound is 1024 bytes, but the live "
                             "temps need 2048 bytes at step 1 (launch of "
                             "kernel 0 'k')");
    e.memory.lowerBoundBytes = 2048;
    e.memory.peakStep = 1;
    EXPECT_EQ(checkError(e), "");
  }
  // Different offsets, overlapping.
  {
    Executable e = p.exe;
    e.buffers[2].offset = 256;
    e.memory.arenaBytes = 2048;
    EXPECT_EQ(checkError(e), "buffer 1 (\"t0\") and buffer 2 (\"t1\") are "
                             "live together at step 1 but share bytes [256, "
                             "1000) of the arena");
  }
  // Same offset but no permission: not a pair.
  {
    Executable e = p.exe;
    e.kernels[0].inPlace.clear();
    EXPECT_EQ(checkError(e), "buffer 1 (\"t0\") and buffer 2 (\"t1\") are "
                             "live together at step 1 but share bytes [0, "
                             "1000) of the arena");
  }
  // A pair shares its bytes only at the step where they meet: t0 read
  // again at step 2 ends the pair.
  {
    Executable e = p.exe;
    e.steps[2].launch.args[0] = 1; // t2 = k(t0) instead of k(t1).
    EXPECT_EQ(checkError(e), "buffer 1 (\"t0\") and buffer 2 (\"t1\") are "
                             "live together at step 1 but share bytes [0, "
                             "1000) of the arena");
  }
  // A root whose range is the one step where it is taken (a temp no step
  // writes, read once), numbered after its taker: the sweep meets the taker
  // first.
  {
    Program q;
    int64_t f = q.kernel("f", 1, 1, {{0, 0}});
    int64_t out = q.temp(512, "out"), r = q.temp(512, "r");
    q.launch(f, {r, out});
    q.output(out);
    planMemory(q.exe);
    MemoryAnalysis a = analyzeMemory(q.exe);
    EXPECT_TRUE(sameRange(a.liveRanges[size_t(r)], range(0, 0)));
    EXPECT_EQ(a.inPlaceOf[size_t(out)], r);
    EXPECT_EQ(q.exe.buffers[size_t(r)].offset,
              q.exe.buffers[size_t(out)].offset);
    EXPECT_EQ(q.exe.memory.arenaBytes, 512);
    EXPECT_EQ(checkError(q.exe), "");
  }
  // Another buffer overlapping a pair is found whichever of the two it
  // meets: u, live [1,2], at offset 0 too.
  {
    Executable e = p.exe;
    BufferDesc u = e.buffers[1];
    u.name = "u";
    e.buffers.push_back(u);
    e.kernels.push_back(e.kernels[0]);
    e.kernels.back().numOutputs = 2;
    e.steps[1].launch.kernel = 1;
    e.steps[1].launch.args.push_back(5); // t1, u = k(t0): t1 takes t0.
    e.steps[2].launch.args.insert(e.steps[2].launch.args.begin() + 1, 5);
    e.kernels.push_back(e.kernels[0]);
    e.kernels.back().numInputs = 2;
    e.steps[2].launch.kernel = 2; // t2 = k(t1, u)
    EXPECT_EQ(checkError(e), "buffer 2 (\"t1\") and buffer 5 (\"u\") are "
                             "live together at step 1 but share bytes [0, "
                             "1000) of the arena");
  }
}

//===----------------------------------------------------------------------===//
// Random programs
//===----------------------------------------------------------------------===//

class Rng {
public:
  explicit Rng(uint64_t seed) : gen(seed) {}
  /// Uniform in [0, n).
  int64_t below(int64_t n) { return int64_t(gen() % uint64_t(n)); }
  bool chance(int64_t percent) { return below(100) < percent; }

private:
  std::mt19937_64 gen;
};

Executable randomProgram(uint64_t seed, int64_t maxSteps) {
  Rng rng(seed);
  Program p;
  const int64_t sizes[] = {0, 1, 100, 256, 300, 1000, 1024, 4096, 10000};
  auto randomSize = [&]() { return sizes[rng.below(9)]; };
  // Values steps may read: inputs, constants, temps already written, views.
  std::vector<int64_t> pool;
  int64_t numInputs = 1 + rng.below(3);
  for (int64_t i = 0; i < numInputs; ++i)
    pool.push_back(p.input(randomSize(), "arg" + std::to_string(i)));
  if (rng.chance(50))
    pool.push_back(p.constant(randomSize(), "c"));
  int64_t numKernels = 1 + rng.below(6);
  for (int64_t k = 0; k < numKernels; ++k) {
    int64_t ins = 1 + rng.below(3), outs = 1 + rng.below(2);
    std::vector<std::pair<int64_t, int64_t>> inPlace;
    for (int64_t i = 0; i < ins; ++i)
      for (int64_t o = 0; o < outs; ++o)
        if (rng.chance(40))
          inPlace.emplace_back(i, o);
    std::shuffle(inPlace.begin(), inPlace.end(),
                 std::mt19937_64(seed * 31 + uint64_t(k)));
    p.kernel("fusec_k" + std::to_string(k), ins, outs, inPlace);
  }
  int64_t numTemps = 0;
  auto fresh = [&](int64_t bytes) {
    int64_t t = p.temp(bytes, "t" + std::to_string(numTemps++));
    return t;
  };
  // Prefer recent values, as real programs do.
  auto pick = [&]() {
    if (rng.chance(70)) {
      int64_t window = std::min<int64_t>(int64_t(pool.size()), 6);
      return pool[pool.size() - 1 - size_t(rng.below(window))];
    }
    return pool[size_t(rng.below(int64_t(pool.size())))];
  };
  int64_t numSteps = 1 + rng.below(maxSteps);
  for (int64_t s = 0; s < numSteps; ++s) {
    if (rng.chance(10)) {
      int64_t a = pick(), b = pick();
      int64_t c = fresh(randomSize());
      int64_t bias = rng.chance(50) ? pick() : -1;
      p.matmul(a, b, c, bias);
      pool.push_back(c);
      continue;
    }
    int64_t k = rng.below(numKernels);
    const KernelDesc kd = p.exe.kernels[size_t(k)];
    std::vector<int64_t> args;
    for (int64_t i = 0; i < kd.numInputs; ++i)
      args.push_back(pick());
    std::vector<int64_t> produced;
    for (int64_t o = 0; o < kd.numOutputs; ++o) {
      // Mostly the size of an input, so that in place is often possible.
      int64_t bytes =
          rng.chance(70) ? bytesOf(p.exe, args[size_t(rng.below(kd.numInputs))])
                         : randomSize();
      int64_t t = fresh(bytes);
      produced.push_back(t);
      args.push_back(rng.chance(10) ? p.alias(t, "view") : t);
    }
    p.launch(k, args);
    for (int64_t t : produced) {
      pool.push_back(t);
      if (rng.chance(10))
        pool.push_back(p.alias(t, "view"));
    }
  }
  if (rng.chance(20))
    fresh(randomSize()); // Never accessed.
  int64_t numOutputs = 1 + rng.below(3);
  for (int64_t o = 0; o < numOutputs; ++o)
    p.output(pick());
  return p.exe;
}

TEST(MemoryPlanTest, RandomPrograms) {
  const int kPrograms = 300;
  for (bool inPlace : {true, false}) {
    // The bound here is the larger of lowerBoundBytes and the largest
    // never-live temp, which the arena must also hold (a few programs have
    // one, up to 10000 bytes).
    double sum = 0, worst = 0;
    int counted = 0, above5 = 0, exact = 0;
    int64_t arenas = 0, bounds = 0, unshared = 0, lowerBounds = 0;
    for (int seed = 0; seed < kPrograms; ++seed) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      Executable exe = randomProgram(uint64_t(seed), 200);
      BruteFigures f = planAndJudge(exe, inPlace);
      if (::testing::Test::HasFailure())
        return;
      const MemoryFigures &m = exe.memory;
      int64_t bound = std::max(f.lowerBound, f.neverLive);
      arenas += m.arenaBytes;
      bounds += bound;
      lowerBounds += m.lowerBoundBytes;
      unshared += analyzeMemory(exe).oneBufferPerTempBytes;
      if (bound == 0)
        continue;
      double ratio = double(m.arenaBytes) / double(bound);
      sum += ratio;
      worst = std::max(worst, ratio);
      ++counted;
      above5 += ratio > 1.05;
      exact += m.arenaBytes == bound;
    }
    std::printf("random programs (in place %s): arena / bound: mean %.4f, "
                "worst %.4f, %d of %d at the bound, %d above 1.05; sum of "
                "arenas / sum of bounds %.4f (/ sum of lowerBoundBytes "
                "%.4f), / one buffer per temp %.4f\n",
                inPlace ? "on" : "off", sum / counted, worst, exact, counted,
                above5, double(arenas) / double(bounds),
                double(arenas) / double(lowerBounds),
                double(arenas) / double(unshared));
    EXPECT_LE(double(arenas) / double(bounds), 1.05);
  }
}

/// checkMemoryPlan against bruteValid on planned programs with a few temps
/// moved or swapped, the figures sometimes brought up to date.
TEST(MemoryPlanTest, RandomCorruptionsAgainstBruteForce) {
  int rejected = 0, overlaps = 0, accepted = 0;
  for (int seed = 0; seed < 150; ++seed) {
    Executable planned = randomProgram(uint64_t(seed) + 5000, 60);
    planMemory(planned, MemoryPlanOptions{seed % 3 != 0});
    std::vector<int64_t> temps;
    for (size_t b = 0; b < planned.buffers.size(); ++b)
      if (planned.buffers[b].kind == BufferKind::Temp)
        temps.push_back(int64_t(b));
    Rng rng(static_cast<uint64_t>(seed));
    for (int round = 0; round < 20; ++round) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " round " +
                   std::to_string(round));
      Executable e = planned;
      int64_t changes = 1 + rng.below(3);
      for (int64_t c = 0; c < changes; ++c) {
        int64_t x = temps[size_t(rng.below(int64_t(temps.size())))];
        int64_t y = temps[size_t(rng.below(int64_t(temps.size())))];
        int64_t slots = e.memory.arenaBytes / 256;
        if (rng.chance(50))
          std::swap(e.buffers[size_t(x)].offset, e.buffers[size_t(y)].offset);
        else
          e.buffers[size_t(x)].offset = 256 * rng.below(slots + 1);
      }
      if (rng.chance(50)) {
        BruteFigures f = bruteFigures(e);
        e.memory.lowerBoundBytes = f.lowerBound;
        e.memory.peakStep = f.peakStep;
      }
      bool overlap;
      bool valid = bruteValid(e, overlap);
      std::string error;
      EXPECT_EQ(checkMemoryPlan(e, error), valid) << error;
      if (valid) {
        ++accepted;
        continue;
      }
      ++rejected;
      if (overlap) {
        ++overlaps;
        EXPECT_NE(error.find("share bytes"), std::string::npos) << error;
      }
    }
  }
  std::printf("corrupted plans: %d accepted, %d rejected (%d for sharing "
              "bytes)\n",
              accepted, rejected, overlaps);
  EXPECT_GT(accepted, 100);
  EXPECT_GT(overlaps, 100);
}

/// The heap simulations against an exhaustive search of the smallest arena
/// on small programs: the planner need not be optimal, this measures how
/// far it is.
TEST(MemoryPlanTest, RandomProgramsAgainstTheOptimum) {
  // With in place off and every size a multiple of 256 (as aligned), the
  // optimum is found by trying every order of first-fit placement... which
  // is exponential, so only programs of at most 7 placed temps.
  int tried = 0, optimal = 0;
  double worst = 1;
  for (int seed = 0; tried < 200 && seed < 5000; ++seed) {
    Executable exe = randomProgram(uint64_t(seed) + 100000, 6);
    planMemory(exe, MemoryPlanOptions{false});
    MemoryAnalysis a = analyzeMemory(exe);
    std::vector<int64_t> temps;
    for (size_t b = 0; b < exe.buffers.size(); ++b)
      if (exe.buffers[b].kind == BufferKind::Temp && !a.liveRanges[b].empty() &&
          bytesOf(exe, int64_t(b)) > 0)
        temps.push_back(int64_t(b));
    if (temps.size() > 7 || temps.empty())
      continue;
    ++tried;
    // The arena also holds the temps never live, at any offset.
    int64_t floor = 0;
    for (size_t b = 0; b < exe.buffers.size(); ++b)
      if (exe.buffers[b].kind == BufferKind::Temp && a.liveRanges[b].empty())
        floor = std::max(floor, roundUp(bytesOf(exe, int64_t(b))));
    // Every optimal placement is reached by first fit in some order (place
    // the buffers of an optimal one by increasing offset and each lands
    // at or below its offset).
    std::sort(temps.begin(), temps.end());
    int64_t best = INT64_MAX;
    do {
      std::vector<std::pair<int64_t, int64_t>> placed; // (buffer, offset)
      int64_t top = 0;
      for (int64_t b : temps) {
        int64_t size = roundUp(bytesOf(exe, b));
        std::vector<std::pair<int64_t, int64_t>> busy;
        for (auto [c, off] : placed)
          if (a.liveRanges[size_t(b)].overlaps(a.liveRanges[size_t(c)]))
            busy.emplace_back(off, off + roundUp(bytesOf(exe, c)));
        std::sort(busy.begin(), busy.end());
        int64_t at = 0;
        for (auto [lo, hi] : busy) {
          if (lo - at >= size)
            break;
          at = std::max(at, hi);
        }
        placed.emplace_back(b, at);
        top = std::max(top, at + size);
      }
      best = std::min(best, std::max(top, floor));
    } while (std::next_permutation(temps.begin(), temps.end()));
    EXPECT_GE(exe.memory.arenaBytes, best);
    optimal += exe.memory.arenaBytes == best;
    worst = std::max(worst, double(exe.memory.arenaBytes) / double(best));
  }
  std::printf("small random programs: %d of %d planned optimally, worst "
              "arena / optimum %.4f\n",
              optimal, tried, worst);
  EXPECT_GT(tried, 50);
}

//===----------------------------------------------------------------------===//
// Scale
//===----------------------------------------------------------------------===//

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(MemoryPlanTest, HundredThousandBuffers) {
  // 10^5 steps, each reading the last value and one of the 50 before it,
  // of four sizes, now and then in place; then 10^5 temps all returned
  // (all live together at the end).
  for (int shape = 0; shape < 2; ++shape) {
    Program p;
    Rng rng(7);
    int64_t x = p.input(1024, "x");
    int64_t k = p.kernel("k", 2, 1, {{0, 0}});
    int64_t k1 = p.kernel("k1", 1, 1);
    std::vector<int64_t> values = {x};
    const int64_t n = 100000;
    for (int64_t s = 0; s < n; ++s) {
      int64_t t = p.temp(256 << rng.below(4), "t");
      if (shape == 0) {
        int64_t back =
            1 + rng.below(std::min<int64_t>(50, int64_t(values.size())));
        p.launch(k, {values.back(), values[values.size() - size_t(back)], t});
      } else {
        p.launch(k1, {x, t});
        p.output(t);
      }
      values.push_back(t);
    }
    p.output(values.back());
    auto start = std::chrono::steady_clock::now();
    planMemory(p.exe);
    double planSeconds = secondsSince(start);
    start = std::chrono::steady_clock::now();
    std::string error;
    bool ok = checkMemoryPlan(p.exe, error);
    double checkSeconds = secondsSince(start);
    EXPECT_TRUE(ok) << error;
    std::printf("10^5 buffers (%s): plan %.3f s, check %.3f s, arena / "
                "lower bound %.4f\n",
                shape == 0 ? "chain" : "all live", planSeconds, checkSeconds,
                double(p.exe.memory.arenaBytes) /
                    double(p.exe.memory.lowerBoundBytes));
    EXPECT_LT(checkSeconds, 0.5);
    EXPECT_LT(planSeconds, 2.0);
    // The check must notice one overlap among all of them: a temp moved
    // onto one live around its first step (so not an in-place partner).
    MemoryAnalysis a = analyzeMemory(p.exe);
    int64_t moved = -1, onto = -1;
    for (size_t i = values.size() / 2; moved < 0 && i < values.size(); ++i)
      for (size_t j = i - 1; moved < 0 && j + 60 > i; --j) {
        const LiveRange &ri = a.liveRanges[size_t(values[i])];
        const LiveRange &rj = a.liveRanges[size_t(values[j])];
        if (rj.first < ri.first && ri.first < rj.last) {
          moved = values[i];
          onto = values[j];
        }
      }
    ASSERT_GE(moved, 0);
    Executable bad = p.exe;
    bad.buffers[size_t(moved)].offset = bad.buffers[size_t(onto)].offset;
    bad.memory.arenaBytes += 1 << 20;
    EXPECT_FALSE(checkMemoryPlan(bad, error));
    EXPECT_NE(error.find("share bytes"), std::string::npos) << error;
  }
}

} // namespace
