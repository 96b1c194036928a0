//===- CpuGemmTest.cpp - The cpu device's matmuls against the reference ---===//
//
// rt::prepareCpuGemm on the calls describeMatmul makes for steps of every
// shape class (2-D, batched, broadcast batches, transposed operands, the
// six epilogues, f32/f16/bf16 operands and results, odd sizes, a long K),
// against the reference GEMM (itself checked against the interpreter bit
// for bit by MatmulTest.cpp). The library sums in its own order in f32, so
// each element is compared within the bound of such a sum: 2 K u32 times
// the sum of the terms' magnitudes (the reference GEMM on |A| and |B|),
// plus a rounding of the result's type and of the epilogue. A layout,
// stride, transpose or bias mistake is off by the magnitude of the terms.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cpu/CpuGemm.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/Float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

struct Product {
  Shape a, b;
  DType in = DType::F32, out = DType::F32;
  bool transposeA = false, transposeB = false;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  DType biasType = DType::F32;
};

bool hasBias(MatmulEpilogue e) {
  return e == MatmulEpilogue::Bias || e == MatmulEpilogue::ReluBias ||
         e == MatmulEpilogue::GeluBias;
}

BufferDesc input(DType dtype, Shape shape, int64_t index) {
  BufferDesc d;
  d.kind = BufferKind::Input;
  d.dtype = dtype;
  d.shape = std::move(shape);
  d.index = index;
  d.name = "in" + std::to_string(index);
  return d;
}

/// The product of buffers 0 and 1 into buffer 2 of `exe`, checked.
MatmulStep productStep(const Executable &exe,
                       MatmulEpilogue epilogue = MatmulEpilogue::None) {
  MatmulStep step;
  step.a = 0;
  step.b = 1;
  step.c = 2;
  step.epilogue = epilogue;
  std::string error;
  EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
  return step;
}

/// Element i of `bytes` (of `type`) as a double, and back (rounded).
double load(const std::vector<uint8_t> &bytes, DType type, int64_t i) {
  uint16_t h;
  float f;
  switch (type) {
  case DType::F16:
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    return halfToFloat(h);
  case DType::BF16:
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    return bf16ToFloat(h);
  default:
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    return f;
  }
}

void store(std::vector<uint8_t> &bytes, DType type, int64_t i, double v) {
  uint16_t h;
  float f = float(v);
  switch (type) {
  case DType::F16:
    h = floatToHalf(f);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
    return;
  case DType::BF16:
    h = floatToBF16(f);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
    return;
  default:
    std::memcpy(bytes.data() + 4 * i, &f, 4);
  }
}

int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// The relative size of one rounding to `type`.
double unitRoundoff(DType type) {
  return type == DType::F16 ? 0x1p-11 : type == DType::BF16 ? 0x1p-8 : 0x1p-24;
}

/// Runs every call of the step on the library and on the reference GEMM
/// and compares. Returns false (without failing) when the library refuses
/// a call, which it may only do for 16-bit types or without oneDNN.
bool expectCloseToReference(const Product &p, int threads = 2,
                            bool specials = false) {
  std::string what = formatShape(p.a) + (p.transposeA ? "^T" : "") + " x " +
                     formatShape(p.b) + (p.transposeB ? "^T" : "") + " " +
                     std::string(dtypeName(p.in)) + " -> " +
                     std::string(dtypeName(p.out)) + " epilogue " +
                     matmulEpilogueName(p.epilogue);
  SCOPED_TRACE(what);
  // The result's shape: broadcast batch, then M x N.
  Shape a = p.a, b = p.b;
  if (p.transposeA)
    std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (p.transposeB)
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  Shape c;
  size_t rank = std::max(a.size(), b.size());
  for (size_t d = 0; d + 2 < rank; ++d) {
    int64_t da = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    int64_t db = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    c.push_back(std::max(da, db));
  }
  c.push_back(a[a.size() - 2]);
  c.push_back(b[b.size() - 1]);
  int64_t k = a.back();

  Executable exe;
  exe.buffers = {input(p.in, p.a, 0), input(p.in, p.b, 1), input(p.out, c, 2)};
  MatmulStep step;
  step.a = 0;
  step.b = 1;
  step.c = 2;
  step.transposeA = p.transposeA;
  step.transposeB = p.transposeB;
  step.epilogue = p.epilogue;
  if (hasBias(p.epilogue)) {
    exe.buffers.push_back(input(p.biasType, {c.back()}, 3));
    step.bias = 3;
  }
  std::string error;
  if (!checkMatmulStep(exe, step, error)) {
    ADD_FAILURE() << error;
    return false;
  }

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<std::vector<uint8_t>> data, magnitude;
  for (const BufferDesc &d : exe.buffers) {
    int64_t n = count(d.shape);
    data.emplace_back(size_t(n * int64_t(dtypeSize(d.dtype))));
    magnitude.emplace_back(size_t(n * 4));
    for (int64_t i = 0; i < n; ++i) {
      double v = dist(rng);
      // One element in 16 of a and b a NaN or an infinity.
      if (specials && d.index < 2 && rng() % 16 == 0)
        v = rng() % 3 == 0   ? std::nan("")
            : rng() % 2 == 0 ? HUGE_VAL
                             : -HUGE_VAL;
      store(data.back(), d.dtype, i, v);
      store(magnitude.back(), DType::F32, i,
            std::fabs(load(data.back(), d.dtype, i)));
    }
  }
  // The reference's operands and result, the library's, and the terms'
  // magnitudes (every buffer in f32).
  std::vector<std::vector<uint8_t>> want = data, got = data;

  bool allPrepared = true;
  for (const MatmulCall &call : describeMatmul(exe, step)) {
    auto at = [](std::vector<std::vector<uint8_t>> &set, const BlasOperand &o,
                 int64_t elementSize = 0) -> void * {
      int64_t offset = o.byteOffset;
      if (elementSize) // Into the f32 magnitudes.
        offset = offset / elementSize * 4;
      return set[size_t(o.buffer)].data() + offset;
    };
    bool bias = blasEpilogueHasBias(call.epilogue);
    runReferenceGemm(call, at(want, call.aData), at(want, call.bData),
                     at(want, call.dData),
                     bias ? at(want, call.biasData) : nullptr);
    // The terms' magnitudes: the same call on |A| and |B| in f32, no
    // epilogue.
    MatmulCall abs = call;
    abs.a.type = abs.b.type = abs.d.type = BlasDataType::R32F;
    abs.epilogue = BlasEpilogue::Default;
    int64_t inSize = int64_t(dtypeSize(p.in));
    int64_t outSize = int64_t(dtypeSize(p.out));
    runReferenceGemm(abs, at(magnitude, call.aData, inSize),
                     at(magnitude, call.bData, inSize),
                     at(magnitude, call.dData, outSize), nullptr);

    std::string why;
    std::unique_ptr<CpuGemm> gemm = prepareCpuGemm(
        call, threads, at(got, call.aData), at(got, call.bData),
        at(got, call.dData), bias ? at(got, call.biasData) : nullptr, why);
    if (!gemm) {
      EXPECT_FALSE(why.empty());
      allPrepared = false;
      continue;
    }
    gemm->run();
  }
  if (!allPrepared)
    return false;

  double u = unitRoundoff(p.out);
  int reported = 0;
  for (int64_t i = 0; i < count(c) && reported < 5; ++i) {
    double w = load(want[2], p.out, i), g = load(got[2], p.out, i);
    double s = load(magnitude[2], DType::F32, i);
    double biasTerm = hasBias(p.epilogue) ? 2.0 : 0.0;
    // K roundings of f32 on the sum (twice, for any order), the epilogue's
    // few f32 roundings, one rounding of the result's type either way.
    double bound = 2.0 * double(k) * 0x1p-24 * s +
                   8.0 * 0x1p-24 * (s + biasTerm) +
                   2.0 * u * std::max(std::fabs(w), std::fabs(g)) + 1e-30;
    bool close = std::isnan(w)   ? std::isnan(g)
                 : std::isinf(w) ? g == w
                                 : std::fabs(g - w) <= bound;
    if (!close) {
      ADD_FAILURE() << "element " << i << ": " << g << " vs the reference's "
                    << w << " (bound " << bound << ")";
      ++reported;
    }
  }
  return true;
}

const MatmulEpilogue kEpilogues[] = {
    MatmulEpilogue::None,     MatmulEpilogue::Bias, MatmulEpilogue::Relu,
    MatmulEpilogue::ReluBias, MatmulEpilogue::Gelu, MatmulEpilogue::GeluBias};

bool haveLibrary() { return !cpuGemmLibrary().empty(); }

TEST(CpuGemm, F32ShapesAndEpilogues) {
  if (!haveLibrary())
    GTEST_SKIP() << "fusec was built without oneDNN";
  struct Case {
    Shape a, b;
    bool ta, tb;
  } cases[] = {
      {{3, 4}, {4, 5}, false, false},
      {{17, 33}, {33, 9}, false, false},
      {{1, 7}, {7, 1}, false, false},
      {{5, 1}, {1, 6}, false, false},             // K = 1.
      {{4, 300}, {300, 19}, false, false},        // A long K.
      {{6, 5}, {7, 5}, false, true},              // b transposed.
      {{5, 6}, {5, 7}, true, false},              // a transposed.
      {{5, 6}, {7, 5}, true, true},               // Both.
      {{3, 4, 5}, {3, 5, 6}, false, false},       // Batched.
      {{4, 5}, {3, 5, 6}, false, false},          // a shared by the batch.
      {{3, 4, 5}, {5, 6}, false, false},          // b shared by the batch.
      {{2, 1, 4, 5}, {1, 3, 5, 6}, false, false}, // Both broadcast.
      {{2, 3, 5, 4}, {2, 3, 6, 5}, true, true},
  };
  for (const Case &c : cases)
    for (MatmulEpilogue e : kEpilogues) {
      Product p;
      p.a = c.a;
      p.b = c.b;
      p.transposeA = c.ta;
      p.transposeB = c.tb;
      p.epilogue = e;
      EXPECT_TRUE(expectCloseToReference(p)) << "oneDNN refused an f32 call";
    }
}

TEST(CpuGemm, ThreadCountsAgree) {
  if (!haveLibrary())
    GTEST_SKIP() << "fusec was built without oneDNN";
  Product p;
  p.a = {64, 96};
  p.b = {96, 80};
  p.epilogue = MatmulEpilogue::GeluBias;
  for (int threads : {1, 2, 4})
    EXPECT_TRUE(expectCloseToReference(p, threads));
}

TEST(CpuGemm, SixteenBitTypes) {
  if (!haveLibrary())
    GTEST_SKIP() << "fusec was built without oneDNN";
  int computed = 0;
  for (DType in : {DType::F16, DType::BF16})
    for (DType out : {in, DType::F32})
      for (MatmulEpilogue e : {MatmulEpilogue::None, MatmulEpilogue::ReluBias,
                               MatmulEpilogue::GeluBias})
        for (DType biasType : {DType::F32, out}) {
          Product p;
          p.a = {2, 9, 40};
          p.b = {40, 11};
          p.in = in;
          p.out = out;
          p.epilogue = e;
          p.biasType = biasType;
          computed += expectCloseToReference(p);
        }
  // Every one: bf16 natively or in f32, f16 in f32.
  EXPECT_EQ(computed, 24);
}

TEST(CpuGemm, NaNAndInfinitiesAsTheReference) {
  if (!haveLibrary())
    GTEST_SKIP() << "fusec was built without oneDNN";
  for (MatmulEpilogue e : kEpilogues)
    for (DType in : {DType::F32, DType::F16, DType::BF16})
      for (DType out : {in, DType::F32})
        for (int64_t k : {16, 24}) {
          Product p;
          p.a = {3, 8, k};
          p.b = {k, 32};
          p.in = in;
          p.out = out;
          p.epilogue = e;
          EXPECT_TRUE(expectCloseToReference(p, 2, /*specials=*/true));
        }
}

TEST(CpuGemm, ActivationsOfInfinitiesAndNaN) {
  if (!haveLibrary())
    GTEST_SKIP() << "fusec was built without oneDNN";
  // Rows of a sum to +inf, -inf, NaN and 1: relu gives +inf, +0, NaN, 1;
  // gelu +inf, NaN, NaN, gelu(1) (ReferenceGemm.h). (oneDNN's own relu
  // gives 0 for NaN.)
  for (MatmulEpilogue e : {MatmulEpilogue::Relu, MatmulEpilogue::Gelu}) {
    SCOPED_TRACE(matmulEpilogueName(e));
    Executable exe;
    exe.buffers = {input(DType::F32, {4, 2}, 0), input(DType::F32, {2, 1}, 1),
                   input(DType::F32, {4, 1}, 2)};
    std::vector<MatmulCall> calls = describeMatmul(exe, productStep(exe, e));
    ASSERT_EQ(calls.size(), 1u);
    float a[8] = {HUGE_VALF, 1, -HUGE_VALF, 1, std::nanf(""), 1, 0.5f, 0.5f};
    float b[2] = {1, 1}, want[4], got[4];
    // (The call's A is the step's b.)
    runReferenceGemm(calls[0], b, a, want, nullptr);
    std::string why;
    std::unique_ptr<CpuGemm> gemm =
        prepareCpuGemm(calls[0], 1, b, a, got, nullptr, why);
    ASSERT_TRUE(gemm) << why;
    gemm->run();
    EXPECT_EQ(want[0], HUGE_VALF);
    EXPECT_TRUE(std::isnan(want[2]));
    for (int i = 0; i < 4; ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      else if (std::isinf(want[i]))
        EXPECT_EQ(got[i], want[i]) << i;
      else
        EXPECT_NEAR(got[i], want[i], 1e-6) << i;
    }
  }
}

TEST(CpuGemm, EmptySumIsRefusedWithAReason) {
  Executable exe;
  exe.buffers = {input(DType::F32, {3, 0}, 0), input(DType::F32, {0, 4}, 1),
                 input(DType::F32, {3, 4}, 2)};
  std::vector<MatmulCall> calls = describeMatmul(exe, productStep(exe));
  ASSERT_EQ(calls.size(), 1u);
  float d[12];
  std::string why;
  EXPECT_EQ(prepareCpuGemm(calls[0], 1, nullptr, nullptr, d, nullptr, why),
            nullptr);
  EXPECT_FALSE(why.empty());
}

} // namespace
