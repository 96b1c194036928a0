//===- KernelsTest.cpp - Tests of the reference kernels -------------------===//
//
// Expected values are exact IEEE facts, hand arithmetic (shown in comments),
// NumPy 1.24 output (the Python expression is given next to the values), or
// the exact rational rounding `round_bits` described below; random tests
// compare against naive N-d index loops written here.
//
// Where NumPy has no bfloat16 (no ml_dtypes here), and for conversions where
// NumPy itself would double-round (int64 -> float32 goes through float64),
// expected encodings come from exact rational rounding in Python:
//
//   from fractions import Fraction as F
//   def round_bits(x, p, emin):  # nearest-even to p significant bits,
//       ...                      # subnormals below 2^emin, inf on overflow
//
// i.e. the textbook definition of round-to-nearest-even, with the values
// printed as hex bit patterns.
//
//===----------------------------------------------------------------------===//

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Philox.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace fusec;
using namespace fusec::test;
namespace k = fusec::kernels;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

//===----------------------------------------------------------------------===//
// Naive N-d index helpers
//===----------------------------------------------------------------------===//

int64_t numElements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::vector<int64_t> unravel(int64_t flat, const Shape &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t> &idx, const Shape &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + idx[d];
  return flat;
}

/// Flat index into `in` of the element broadcast to output index `outIdx`
/// (NumPy: right-aligned, size-1 dimensions repeat).
int64_t broadcastSource(const std::vector<int64_t> &outIdx, const Shape &in) {
  size_t offset = outIdx.size() - in.size();
  std::vector<int64_t> idx(in.size());
  for (size_t d = 0; d < in.size(); ++d)
    idx[d] = in[d] == 1 ? 0 : outIdx[offset + d];
  return ravel(idx, in);
}

Shape broadcastShape(const std::vector<Shape> &shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes)
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t &o = out[rank - s.size() + d];
      if (s[d] != 1)
        o = s[d];
    }
  return out;
}

//===----------------------------------------------------------------------===//
// Kernel wrappers: allocate the result, run the kernel.
//===----------------------------------------------------------------------===//

Buffer unaryOp(k::UnaryKind kind, const Buffer &in) {
  Buffer out = alloc(in.dtype(), in.shape());
  k::unary(kind, in, out);
  return out;
}

Buffer binaryOp(k::BinaryKind kind, const Buffer &a, const Buffer &b) {
  Buffer out = alloc(a.dtype(), broadcastShape({a.shape(), b.shape()}));
  k::binary(kind, a, b, out);
  return out;
}

Buffer compareOp(k::CompareKind kind, const Buffer &a, const Buffer &b) {
  Buffer out = alloc(DType::I1, broadcastShape({a.shape(), b.shape()}));
  k::compare(kind, a, b, out);
  return out;
}

Buffer selectOp(const Buffer &c, const Buffer &t, const Buffer &f) {
  Buffer out =
      alloc(t.dtype(), broadcastShape({c.shape(), t.shape(), f.shape()}));
  k::select(c, t, f, out);
  return out;
}

Buffer castOp(const Buffer &in, DType to) {
  Buffer out = alloc(to, in.shape());
  k::cast(in, out);
  return out;
}

Buffer reduceOp(k::ReduceKind kind, const Buffer &in,
                const std::vector<int64_t> &axes, bool keepDims = false) {
  Shape shape;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end())
      shape.push_back(in.shape()[d]);
    else if (keepDims)
      shape.push_back(1);
  }
  Buffer out = alloc(in.dtype(), shape);
  k::reduce(kind, in, axes, out);
  return out;
}

Buffer matmulOp(const Buffer &a, const Buffer &b) {
  const Shape &sa = a.shape(), &sb = b.shape();
  Shape batch = broadcastShape(
      {Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2)});
  batch.push_back(sa[sa.size() - 2]);
  batch.push_back(sb.back());
  Buffer out = alloc(a.dtype(), batch);
  k::matmul(a, b, out);
  return out;
}

/// Fills every byte of `b` with 0x5a, so that a kernel that forgets to write
/// an element is noticed.
void poison(Buffer &b) { std::memset(b.data(), 0x5a, b.sizeInBytes()); }

/// A 1-element f32 computation.
float f32Binary(k::BinaryKind kind, float a, float b) {
  return binaryOp(kind, makeF32({}, {a}), makeF32({}, {b})).as<float>()[0];
}
uint16_t bits16Binary(k::BinaryKind kind, DType t, double a, double b) {
  return binaryOp(kind, make(t, {1}, {a}), make(t, {1}, {b})).as<uint16_t>()[0];
}
int64_t intBinary(k::BinaryKind kind, DType t, int64_t a, int64_t b) {
  Buffer x = t == DType::I32 ? makeI32({1}, {int32_t(a)}) : makeI64({1}, {a});
  Buffer y = t == DType::I32 ? makeI32({1}, {int32_t(b)}) : makeI64({1}, {b});
  return intAt(binaryOp(kind, x, y), 0);
}

//===----------------------------------------------------------------------===//
// Random data
//===----------------------------------------------------------------------===//

/// Random contents for `t`: small integers, arbitrary values and the odd
/// special value, so that exact comparisons exercise signed zeros and NaN.
Buffer randomBuffer(std::mt19937 &rng, DType t, const Shape &shape) {
  Buffer b = alloc(t, shape);
  std::uniform_int_distribution<int> pick(0, 15);
  std::uniform_real_distribution<double> real(-100.0, 100.0);
  for (int64_t i = 0; i < b.numElements(); ++i) {
    int p = pick(rng);
    double v = p < 6 ? double(int(rng() % 17) - 8) : real(rng);
    if (p == 12)
      v = -0.0;
    if (p == 13)
      v = (rng() & 1) ? kNaN : -kInf;
    switch (t) {
    case DType::F32:
      b.as<float>()[i] = float(v);
      break;
    case DType::F16:
      b.as<uint16_t>()[i] = refRoundToHalf(v);
      break;
    case DType::BF16:
      b.as<uint16_t>()[i] = refRoundToBF16(v);
      break;
    case DType::I1:
      b.as<uint8_t>()[i] = rng() & 1;
      break;
    case DType::I32:
      b.as<int32_t>()[i] = p < 8 ? int32_t(rng() % 17) - 8 : int32_t(rng());
      break;
    case DType::I64:
      b.as<int64_t>()[i] =
          p < 8 ? int64_t(rng() % 17) - 8
                : int64_t(uint64_t(rng()) << 32 | uint64_t(rng()));
      break;
    case DType::F64:
      b.as<double>()[i] = v;
      break;
    }
  }
  return b;
}

/// A random shape of rank [minRank, maxRank] with dimensions in [0, maxDim]
/// (zero only when allowZero).
Shape randomShape(std::mt19937 &rng, int minRank, int maxRank, int maxDim,
                  bool allowZero) {
  int rank = minRank + int(rng() % unsigned(maxRank - minRank + 1));
  Shape s;
  for (int d = 0; d < rank; ++d) {
    int64_t dim = 1 + int64_t(rng() % unsigned(maxDim));
    if (allowZero && rng() % 12 == 0)
      dim = 0;
    s.push_back(dim);
  }
  return s;
}

/// A shape that broadcasts with `out`: a random suffix of it, with random
/// dimensions replaced by 1.
Shape randomOperandShape(std::mt19937 &rng, const Shape &out) {
  size_t drop = rng() % (out.size() + 1);
  Shape s(out.begin() + drop, out.end());
  for (int64_t &d : s)
    if (rng() % 3 == 0)
      d = 1;
  return s;
}

//===----------------------------------------------------------------------===//
// Scalar references (per the documented semantics)
//===----------------------------------------------------------------------===//

float refFloatBinary(k::BinaryKind kind, float a, float b) {
  switch (kind) {
  case k::BinaryKind::Add:
    return a + b;
  case k::BinaryKind::Sub:
    return a - b;
  case k::BinaryKind::Mul:
    return a * b;
  case k::BinaryKind::Div:
    return a / b;
  case k::BinaryKind::Max:
    if (std::isnan(a) || std::isnan(b))
      return NAN;
    if (a == 0 && b == 0) // -0 < +0
      return (std::signbit(a) && std::signbit(b)) ? -0.0f : 0.0f;
    return a > b ? a : b;
  case k::BinaryKind::Min:
    if (std::isnan(a) || std::isnan(b))
      return NAN;
    if (a == 0 && b == 0)
      return (std::signbit(a) || std::signbit(b)) ? -0.0f : 0.0f;
    return a < b ? a : b;
  case k::BinaryKind::Pow:
    return std::pow(a, b);
  }
  return 0;
}

int64_t refIntBinary(k::BinaryKind kind, int64_t a, int64_t b, int bits) {
  auto wrapTo = [bits](uint64_t v) {
    return bits == 32 ? int64_t(int32_t(uint32_t(v))) : int64_t(v);
  };
  int64_t minV = bits == 32 ? kI32Min : kI64Min;
  switch (kind) {
  case k::BinaryKind::Add:
    return wrapTo(uint64_t(a) + uint64_t(b));
  case k::BinaryKind::Sub:
    return wrapTo(uint64_t(a) - uint64_t(b));
  case k::BinaryKind::Mul:
    return wrapTo(uint64_t(a) * uint64_t(b));
  case k::BinaryKind::Div:
    if (b == 0)
      return 0;
    if (a == minV && b == -1)
      return minV;
    return a / b;
  case k::BinaryKind::Max:
    return std::max(a, b);
  case k::BinaryKind::Min:
    return std::min(a, b);
  default:
    return 0;
  }
}

/// Element `i` of `b` as the f32 the kernels compute with.
float loadFloat(const Buffer &b, int64_t i) { return float(valueAt(b, i)); }

/// Stores an f32 result into element `i` of a float buffer, rounding once.
void storeFloat(Buffer &b, int64_t i, float v) {
  switch (b.dtype()) {
  case DType::F32:
    b.as<float>()[i] = v;
    break;
  case DType::F16:
    b.as<uint16_t>()[i] = refRoundToHalf(v);
    break;
  case DType::BF16:
    b.as<uint16_t>()[i] = refRoundToBF16(v);
    break;
  default:
    ADD_FAILURE();
  }
}

/// Element-by-element comparison of float buffers (NaN matches NaN), and raw
/// comparison of integer ones.
void expectSameValues(const Buffer &actual, const Buffer &expected,
                      const std::string &what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    if (isFloat(expected.dtype()))
      ASSERT_TRUE(sameFloat(valueAt(actual, i), valueAt(expected, i)))
          << what << " element " << i;
    else
      ASSERT_EQ(rawAt(actual, i), rawAt(expected, i))
          << what << " element " << i;
  }
}

std::string str(const Shape &s) { return "[" + formatShape(s) + "]"; }

//===----------------------------------------------------------------------===//
// broadcastShapes
//===----------------------------------------------------------------------===//

TEST(KernelsTest, BroadcastShapes) {
  struct Case {
    Shape a, b;
    bool ok;
    Shape result;
  } cases[] = {
      {{2, 3}, {3}, true, {2, 3}},
      {{3}, {2, 3}, true, {2, 3}},
      {{2, 1}, {1, 4}, true, {2, 4}},
      {{2, 1, 3}, {4, 1}, true, {2, 4, 3}},
      {{}, {}, true, {}},
      {{}, {5, 1}, true, {5, 1}},
      {{0}, {1}, true, {0}},
      {{1}, {0}, true, {0}},
      {{2, 0}, {2, 1}, true, {2, 0}},
      {{0}, {2}, false, {}},
      {{2}, {3}, false, {}},
      {{2, 3}, {3, 3}, false, {}},
  };
  for (const Case &c : cases) {
    Shape result;
    EXPECT_EQ(k::broadcastShapes(c.a, c.b, result), c.ok)
        << str(c.a) << " " << str(c.b);
    if (c.ok) {
      EXPECT_EQ(result, c.result) << str(c.a) << " " << str(c.b);
    }
  }
}

//===----------------------------------------------------------------------===//
// unary
//===----------------------------------------------------------------------===//

TEST(KernelsTest, UnaryFloatFormulas) {
  // Inputs exact in f32, f16 and bf16.
  const std::vector<double> xs = {-3.0, -1.5, -0.5, 0.25, 1.0, 2.5};
  // NumPy / math in float64, e.g. np.exp(xs), [math.erf(x) for x in xs],
  // [0.5*x*(1+math.erf(x/math.sqrt(2))) for x in xs],
  // [0.5*x*(1+math.tanh(math.sqrt(2/math.pi)*(x+0.044715*x**3))) for x ...].
  const std::vector<double> exp = {0.04978706836786394, 0.22313016014842982,
                                   0.6065306597126334,  1.2840254166877414,
                                   2.718281828459045,   12.182493960703473};
  const std::vector<double> tanh = {-0.9950547536867305,  -0.9051482536448665,
                                    -0.46211715726000974, 0.24491866240370913,
                                    0.7615941559557649,   0.9866142981514303};
  const std::vector<double> sigmoid = {0.04742587317756678, 0.18242552380635632,
                                       0.3775406687981454,  0.5621765008857981,
                                       0.7310585786300049,  0.9241418199787566};
  const std::vector<double> erf = {-0.9999779095030014, -0.9661051464753108,
                                   -0.5204998778130465, 0.2763263901682369,
                                   0.8427007929497149,  0.999593047982555};
  const std::vector<double> geluErf = {
      -0.00404969409489031, -0.10021080190328713, -0.15426876936299344,
      0.14967658142073093,  0.8413447460685429,   2.4844758366855597};
  const std::vector<double> geluTanh = {
      -0.0036373920817729943, -0.10042842301976707, -0.15428599017485606,
      0.149675350701685,      0.8411919906082768,   2.484915733910001};
  for (DType t : kFloatTypes) {
    Buffer in = make(t, {2, 3}, xs);
    std::string name(dtypeName(t));
    expectExact(unaryOp(k::UnaryKind::Neg, in), {3, 1.5, 0.5, -0.25, -1, -2.5},
                name + " neg");
    expectExact(unaryOp(k::UnaryKind::Abs, in), {3, 1.5, 0.5, 0.25, 1, 2.5},
                name + " abs");
    expectExact(unaryOp(k::UnaryKind::Relu, in), {0, 0, 0, 0.25, 1, 2.5},
                name + " relu");
    expectClose(unaryOp(k::UnaryKind::Exp, in), exp, name + " exp");
    expectClose(unaryOp(k::UnaryKind::Tanh, in), tanh, name + " tanh");
    expectClose(unaryOp(k::UnaryKind::Sigmoid, in), sigmoid, name + " sigmoid");
    expectClose(unaryOp(k::UnaryKind::Erf, in), erf, name + " erf");
    expectClose(unaryOp(k::UnaryKind::GeluErf, in), geluErf, name + " gelu");
    expectClose(unaryOp(k::UnaryKind::GeluTanh, in), geluTanh,
                name + " gelu tanh");
    // Positive inputs: np.log, np.sqrt, 1/np.sqrt, 1/x of [.25, 1, 2.5, 3,
    // 100].
    Buffer pos = make(t, {5}, {0.25, 1.0, 2.5, 3.0, 100.0});
    expectClose(unaryOp(k::UnaryKind::Log, pos),
                {-1.3862943611198906, 0.0, 0.916290731874155,
                 1.0986122886681096, 4.605170185988091},
                name + " log");
    expectClose(unaryOp(k::UnaryKind::Sqrt, pos),
                {0.5, 1.0, 1.5811388300841898, 1.7320508075688772, 10.0},
                name + " sqrt");
    expectClose(unaryOp(k::UnaryKind::Rsqrt, pos),
                {2.0, 1.0, 0.6324555320336759, 0.5773502691896258, 0.1},
                name + " rsqrt");
    expectClose(unaryOp(k::UnaryKind::Reciprocal, pos),
                {4.0, 1.0, 0.4, 0.3333333333333333, 0.01},
                name + " reciprocal");
  }
  // The two GELU forms differ by ~1.5e-4 at x = 1, far beyond the f32
  // tolerance: make sure they are not the same function.
  Buffer one = make(DType::F32, {1}, {1.0});
  EXPECT_GT(std::fabs(valueAt(unaryOp(k::UnaryKind::GeluErf, one), 0) -
                      valueAt(unaryOp(k::UnaryKind::GeluTanh, one), 0)),
            1e-4);
}

TEST(KernelsTest, UnaryF32SpecialValues) {
  const double nan = kNaN, inf = kInf;
  auto run = [](k::UnaryKind kind, const std::vector<double> &in) {
    return unaryOp(kind, make(DType::F32, {int64_t(in.size())}, in));
  };
  // Sign-bit operations act on NaN too.
  Buffer nans = makeF32({2}, {floatOf(0x7fc00000u), floatOf(0xffc00000u)});
  Buffer neg = unaryOp(k::UnaryKind::Neg, nans);
  EXPECT_EQ(bitsOf(neg.as<float>()[0]), 0xffc00000u);
  EXPECT_EQ(bitsOf(neg.as<float>()[1]), 0x7fc00000u);
  Buffer abs = unaryOp(k::UnaryKind::Abs, nans);
  EXPECT_EQ(bitsOf(abs.as<float>()[0]), 0x7fc00000u);
  EXPECT_EQ(bitsOf(abs.as<float>()[1]), 0x7fc00000u);
  expectExact(run(k::UnaryKind::Neg, {0.0, -0.0, inf, -2.5}),
              {-0.0, 0.0, -inf, 2.5}, "neg");
  expectExact(run(k::UnaryKind::Abs, {-0.0, -inf, -2.5, 3.0}),
              {0.0, inf, 2.5, 3.0}, "abs");
  // exp: exact at 0, limits at +-inf, f32 overflow above ln(FLT_MAX) ~ 88.7,
  // underflow to 0 below ln(2^-150) ~ -104.
  expectExact(run(k::UnaryKind::Exp, {0.0, -0.0, -inf, inf, 89.0, -110.0, nan}),
              {1.0, 1.0, 0.0, inf, inf, 0.0, nan}, "exp");
  expectExact(run(k::UnaryKind::Log, {1.0, 0.0, -0.0, -1.0, inf, nan, -inf}),
              {0.0, -inf, -inf, nan, inf, nan, nan}, "log");
  // sqrt is correctly rounded: np.sqrt(np.float32([2, 3])).view('u4') ->
  // 0x3fb504f3, 0x3fddb3d7.
  expectExact(
      run(k::UnaryKind::Sqrt, {4.0, 2.0, 3.0, 0.0, -0.0, -1.0, inf, nan}),
      {2.0, floatOf(0x3fb504f3u), floatOf(0x3fddb3d7u), 0.0, -0.0, nan, inf,
       nan},
      "sqrt");
  expectExact(run(k::UnaryKind::Rsqrt, {4.0, 0.25, 0.0, -0.0, inf, -1.0}),
              {0.5, 2.0, inf, -inf, 0.0, nan}, "rsqrt");
  // 1/3 and 1/10 correctly rounded: (np.float32(1)/np.float32([3, 10]))
  // .view('u4') -> 0x3eaaaaab, 0x3dcccccd.
  expectExact(
      run(k::UnaryKind::Reciprocal, {3.0, 10.0, 0.0, -0.0, inf, -inf, 4.0}),
      {floatOf(0x3eaaaaabu), floatOf(0x3dcccccdu), inf, -inf, 0.0, -0.0, 0.25},
      "reciprocal");
  // tanh(20) = 1 - 8.5e-18 rounds to 1 in f32.
  expectExact(run(k::UnaryKind::Tanh, {0.0, -0.0, 20.0, -20.0, inf, -inf, nan}),
              {0.0, -0.0, 1.0, -1.0, 1.0, -1.0, nan}, "tanh");
  // sigmoid: 1 / (1 + e^-x): exactly 1 when e^-x < 2^-24, exactly 0 when
  // e^-x overflows f32; 0.5 at 0.
  expectExact(
      run(k::UnaryKind::Sigmoid, {0.0, 100.0, -100.0, inf, -inf, nan, 20.0}),
      {0.5, 1.0, 0.0, 1.0, 0.0, nan, 1.0}, "sigmoid");
  // 1 / (1 + exp(20)) = 2.0611536181902037e-09, 1 / (1 + exp(87)) =
  // 1.6458114310822737e-38 (float64): tiny but not flushed to zero, so check
  // them with the f32 relative tolerance alone.
  Buffer tail = run(k::UnaryKind::Sigmoid, {-20.0, -87.0});
  EXPECT_TRUE(closeFloat(valueAt(tail, 0), 2.0611536181902037e-09,
                         {kF32Tol.rtol, 0.0}));
  EXPECT_TRUE(closeFloat(valueAt(tail, 1), 1.6458114310822737e-38,
                         {kF32Tol.rtol, 0.0}));
  // relu(-0) is +0, NaN propagates.
  expectExact(run(k::UnaryKind::Relu, {-0.0, 0.0, nan, -inf, inf, -1.0, 2.0}),
              {0.0, 0.0, nan, 0.0, inf, 0.0, 2.0}, "relu");
  Buffer reluNegNaN =
      unaryOp(k::UnaryKind::Relu, makeF32({1}, {floatOf(0xffc00000u)}));
  EXPECT_TRUE(std::isnan(reluNegNaN.as<float>()[0]));
  expectExact(run(k::UnaryKind::Erf, {0.0, -0.0, inf, -inf, 10.0, nan}),
              {0.0, -0.0, 1.0, -1.0, 1.0, nan}, "erf");
  // GELU at large |x|: 0.5 x (1 + 1) = x and 0.5 x (1 - 1) = 0. For the tanh
  // form x^3 overflows f32 at 1e20, tanh(inf) = 1, so the result is x.
  expectExact(run(k::UnaryKind::GeluErf, {10.0, 0.0, inf, nan}),
              {10.0, 0.0, inf, nan}, "gelu");
  expectExact(run(k::UnaryKind::GeluTanh, {10.0, 0.0, 1e20, inf, nan}),
              {10.0, 0.0, double(1e20f), inf, nan}, "gelu tanh");
  expectClose(run(k::UnaryKind::GeluErf, {-10.0}), {0.0}, "gelu -10");
  expectClose(run(k::UnaryKind::GeluTanh, {-10.0, -1e20}), {0.0, 0.0},
              "gelu tanh -10");
}

TEST(KernelsTest, UnaryHalfAndBF16Rounding) {
  // Results are computed in f32 and rounded once to the storage type.
  // exp(12) = 162754.79 > 65504: infinity in f16; exp(-20) = 2.06e-9 < 2^-25:
  // zero in f16.
  expectBits16(unaryOp(k::UnaryKind::Exp, make(DType::F16, {2}, {12.0, -20.0})),
               {0x7c00, 0x0000}, "f16 exp");
  // sqrt(2) in f32 is 0x3fb504f3 = 1.41421353816986083984375; rounded to
  // f16: 1448.15 ulps of 2^-10 -> 1448 -> 1 + 424/1024 = 0x3da8; to bf16: the
  // top half 0x3fb5 with a remainder 0x04f3 < 0x8000 -> 0x3fb5.
  expectBits16(unaryOp(k::UnaryKind::Sqrt, make(DType::F16, {1}, {2.0})),
               {0x3da8}, "f16 sqrt");
  expectBits16(unaryOp(k::UnaryKind::Sqrt, make(DType::BF16, {1}, {2.0})),
               {0x3fb5}, "bf16 sqrt");
  // 1/3 in f32 is 0x3eaaaaab; to f16 (exact rational rounding) 0x3555, to
  // bf16 0x3eab (remainder 0xaaab > 0x8000 rounds up).
  expectBits16(unaryOp(k::UnaryKind::Reciprocal, make(DType::F16, {1}, {3.0})),
               {0x3555}, "f16 reciprocal");
  expectBits16(unaryOp(k::UnaryKind::Reciprocal, make(DType::BF16, {1}, {3.0})),
               {0x3eab}, "bf16 reciprocal");
  // 1 / 2^-24 = 2^24: overflows f16, exact in bf16 (0x4b80).
  expectBits16(
      unaryOp(k::UnaryKind::Reciprocal, makeBits16(DType::F16, {1}, {0x0001})),
      {0x7c00}, "f16 reciprocal of subnormal");
  expectBits16(
      unaryOp(k::UnaryKind::Reciprocal, make(DType::BF16, {1}, {0x1p-24})),
      {0x4b80}, "bf16 reciprocal");
  // Sign operations, relu(-0), sigmoid limits in f16 and bf16.
  expectBits16(unaryOp(k::UnaryKind::Neg,
                       makeBits16(DType::F16, {3}, {0x7e00, 0x0000, 0xfbff})),
               {0xfe00, 0x8000, 0x7bff}, "f16 neg");
  expectBits16(
      unaryOp(k::UnaryKind::Abs, makeBits16(DType::F16, {2}, {0xfe00, 0x8001})),
      {0x7e00, 0x0001}, "f16 abs");
  expectBits16(unaryOp(k::UnaryKind::Relu,
                       makeBits16(DType::F16, {2}, {0x8000, 0x7e00})),
               {0x0000, 0x7e00}, "f16 relu");
  expectBits16(unaryOp(k::UnaryKind::Relu,
                       makeBits16(DType::BF16, {2}, {0x8000, 0xbf80})),
               {0x0000, 0x0000}, "bf16 relu");
  expectBits16(
      unaryOp(k::UnaryKind::Sigmoid, make(DType::F16, {2}, {20.0, -20.0})),
      {0x3c00, 0x0000}, "f16 sigmoid");
  expectBits16(
      unaryOp(k::UnaryKind::Sigmoid, make(DType::BF16, {2}, {100.0, -100.0})),
      {0x3f80, 0x0000}, "bf16 sigmoid");
  // f16 0x7bff = 65504: 65504 * 65504 would overflow, but abs/neg are exact.
  expectBits16(unaryOp(k::UnaryKind::Abs,
                       makeBits16(DType::BF16, {2}, {0xff7f, 0xffc0})),
               {0x7f7f, 0x7fc0}, "bf16 abs");
}

TEST(KernelsTest, UnaryIntegers) {
  Buffer i32 = makeI32({5}, {0, 5, -5, kI32Min, kI32Max});
  expectInts(unaryOp(k::UnaryKind::Neg, i32), {0, -5, 5, kI32Min, -kI32Max},
             "i32 neg");
  expectInts(unaryOp(k::UnaryKind::Abs, i32), {0, 5, 5, kI32Min, kI32Max},
             "i32 abs");
  expectInts(unaryOp(k::UnaryKind::Relu, i32), {0, 5, 0, 0, kI32Max},
             "i32 relu");
  Buffer i64 = makeI64({5}, {0, 5, -(int64_t(1) << 40), kI64Min, kI64Max});
  expectInts(unaryOp(k::UnaryKind::Neg, i64),
             {0, -5, int64_t(1) << 40, kI64Min, -kI64Max}, "i64 neg");
  expectInts(unaryOp(k::UnaryKind::Abs, i64),
             {0, 5, int64_t(1) << 40, kI64Min, kI64Max}, "i64 abs");
  expectInts(unaryOp(k::UnaryKind::Relu, i64), {0, 5, 0, 0, kI64Max},
             "i64 relu");
}

//===----------------------------------------------------------------------===//
// binary
//===----------------------------------------------------------------------===//

TEST(KernelsTest, BinaryF32Arithmetic) {
  using B = k::BinaryKind;
  auto same = [](float actual, double expected) {
    return sameFloat(actual, expected);
  };
  // Correctly rounded results; NumPy:
  //   (np.float32(.1)+np.float32(.2)).view('u4') = 0x3e99999a
  //   (np.float32(.1)*np.float32(3)).view('u4')  = 0x3e99999a
  //   (np.float32(1)/np.float32(3)).view('u4')   = 0x3eaaaaab
  //   (np.float32(2)/np.float32(3)).view('u4')   = 0x3f2aaaab
  //   (np.float32(3)-np.float32(.1)).view('u4')  = 0x4039999a
  //   (np.float32(1.1)*np.float32(1.1)).view('u4') = 0x3f9ae148
  //   (np.float32(1e8)+np.float32(1)) == 1e8 (0x4cbebc20)
  EXPECT_EQ(bitsOf(f32Binary(B::Add, 0.1f, 0.2f)), 0x3e99999au);
  EXPECT_EQ(bitsOf(f32Binary(B::Mul, 0.1f, 3.0f)), 0x3e99999au);
  EXPECT_EQ(bitsOf(f32Binary(B::Div, 1.0f, 3.0f)), 0x3eaaaaabu);
  EXPECT_EQ(bitsOf(f32Binary(B::Div, 2.0f, 3.0f)), 0x3f2aaaabu);
  EXPECT_EQ(bitsOf(f32Binary(B::Sub, 3.0f, 0.1f)), 0x4039999au);
  EXPECT_EQ(bitsOf(f32Binary(B::Mul, 1.1f, 1.1f)), 0x3f9ae148u);
  EXPECT_EQ(bitsOf(f32Binary(B::Add, 1e8f, 1.0f)), 0x4cbebc20u);
  // IEEE special cases.
  const float inf = INFINITY;
  EXPECT_TRUE(same(f32Binary(B::Sub, inf, inf), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Add, inf, -inf), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Div, 1, 0.0f), kInf));
  EXPECT_TRUE(same(f32Binary(B::Div, -1, 0.0f), -kInf));
  EXPECT_TRUE(same(f32Binary(B::Div, 1, -0.0f), -kInf));
  EXPECT_TRUE(same(f32Binary(B::Div, 0.0f, 0.0f), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Div, inf, inf), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Div, 1, inf), 0.0));
  EXPECT_TRUE(same(f32Binary(B::Div, -1, inf), -0.0));
  EXPECT_TRUE(same(f32Binary(B::Mul, 0.0f, inf), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Mul, FLT_MAX, 2.0f), kInf));
  EXPECT_TRUE(same(f32Binary(B::Mul, -1.0f, 0.0f), -0.0));
  EXPECT_TRUE(same(f32Binary(B::Add, -0.0f, -0.0f), -0.0));
  EXPECT_TRUE(same(f32Binary(B::Add, -0.0f, 0.0f), 0.0));
  EXPECT_TRUE(same(f32Binary(B::Sub, 0.0f, 0.0f), 0.0));
  EXPECT_TRUE(same(f32Binary(B::Sub, -0.0f, 0.0f), -0.0));
  EXPECT_TRUE(same(f32Binary(B::Add, NAN, 1.0f), kNaN));
  EXPECT_TRUE(same(f32Binary(B::Div, NAN, 1.0f), kNaN));
}

TEST(KernelsTest, BinaryHalfAndBF16RoundOnce) {
  using B = k::BinaryKind;
  // f16 spacing in [2048, 4096) is 2: 2049 -> 2048 (tie, even), 2051 -> 2052.
  EXPECT_EQ(bits16Binary(B::Add, DType::F16, 2048, 1), 0x6800);
  EXPECT_EQ(bits16Binary(B::Add, DType::F16, 2048, 3), 0x6802);
  // 65504 + 15 = 65519 < 65520 -> 65504; 65504 + 16 = 65520 -> inf.
  EXPECT_EQ(bits16Binary(B::Add, DType::F16, 65504, 15), 0x7bff);
  EXPECT_EQ(bits16Binary(B::Add, DType::F16, 65504, 16), 0x7c00);
  EXPECT_EQ(bits16Binary(B::Mul, DType::F16, 256, 256), 0x7c00);
  EXPECT_EQ(bits16Binary(B::Mul, DType::F16, -256, 256), 0xfc00);
  // 1/3 in f32 (0x3eaaaaab) rounded to f16: 0x3555.
  EXPECT_EQ(bits16Binary(B::Div, DType::F16, 1, 3), 0x3555);
  EXPECT_EQ(bits16Binary(B::Div, DType::F16, 1, 0), 0x7c00);
  EXPECT_EQ(bits16Binary(B::Div, DType::F16, -1, 0), 0xfc00);
  EXPECT_TRUE((bits16Binary(B::Div, DType::F16, 0, 0) & 0x7fff) > 0x7c00);
  // Underflow: 2^-24 * 0.5 = 2^-25, a tie between 0 and 2^-24 -> 0.
  EXPECT_EQ(bits16Binary(B::Mul, DType::F16, 0x1p-24, 0.5), 0x0000);
  EXPECT_EQ(bits16Binary(B::Mul, DType::F16, 0x1p-24, -0.75), 0x8001);
  // bf16 spacing in [256, 512) is 2: 257 -> 256 (0x4380), 259 -> 260.
  EXPECT_EQ(bits16Binary(B::Add, DType::BF16, 256, 1), 0x4380);
  EXPECT_EQ(bits16Binary(B::Add, DType::BF16, 256, 3), 0x4382);
  EXPECT_EQ(bits16Binary(B::Div, DType::BF16, 1, 3), 0x3eab);
  // Largest bf16 (0x7f7f) * 2 overflows.
  EXPECT_EQ(binaryOp(B::Mul, makeBits16(DType::BF16, {1}, {0x7f7f}),
                     make(DType::BF16, {1}, {2.0}))
                .as<uint16_t>()[0],
            0x7f80);
  EXPECT_EQ(bits16Binary(B::Sub, DType::BF16, -0.0, 0.0), 0x8000);
}

TEST(KernelsTest, BinaryIntegersWrapAndDivide) {
  using B = k::BinaryKind;
  for (DType t : {DType::I32, DType::I64}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    int64_t mn = t == DType::I32 ? kI32Min : kI64Min;
    int64_t mx = t == DType::I32 ? kI32Max : kI64Max;
    EXPECT_EQ(intBinary(B::Add, t, mx, 1), mn);
    EXPECT_EQ(intBinary(B::Add, t, mn, -1), mx);
    EXPECT_EQ(intBinary(B::Sub, t, mn, 1), mx);
    EXPECT_EQ(intBinary(B::Sub, t, 0, mn), mn);
    EXPECT_EQ(intBinary(B::Mul, t, mx, 2), -2);
    EXPECT_EQ(intBinary(B::Mul, t, -1, mn), mn);
    // Division truncates toward zero.
    EXPECT_EQ(intBinary(B::Div, t, 7, 2), 3);
    EXPECT_EQ(intBinary(B::Div, t, -7, 2), -3);
    EXPECT_EQ(intBinary(B::Div, t, 7, -2), -3);
    EXPECT_EQ(intBinary(B::Div, t, -7, -2), 3);
    EXPECT_EQ(intBinary(B::Div, t, -1, 2), 0);
    EXPECT_EQ(intBinary(B::Div, t, 1, -2), 0);
    EXPECT_EQ(intBinary(B::Div, t, 5, 0), 0);
    EXPECT_EQ(intBinary(B::Div, t, -5, 0), 0);
    EXPECT_EQ(intBinary(B::Div, t, 0, 0), 0);
    EXPECT_EQ(intBinary(B::Div, t, mn, 0), 0);
    EXPECT_EQ(intBinary(B::Div, t, mn, -1), mn);
    EXPECT_EQ(intBinary(B::Div, t, mn, 1), mn);
    EXPECT_EQ(intBinary(B::Div, t, mx, -1), -mx);
    EXPECT_EQ(intBinary(B::Div, t, mn, 2), mn / 2);
    EXPECT_EQ(intBinary(B::Div, t, mn, mn), 1);
    EXPECT_EQ(intBinary(B::Max, t, mn, -1), -1);
    EXPECT_EQ(intBinary(B::Min, t, mx, -1), -1);
    EXPECT_EQ(intBinary(B::Max, t, mn, mx), mx);
    EXPECT_EQ(intBinary(B::Min, t, mn, mx), mn);
  }
  // i32: 65536^2 = 2^32 wraps to 0; 46341^2 = 2147488281 wraps to
  // 2147488281 - 2^32 = -2147479015.
  EXPECT_EQ(intBinary(B::Mul, DType::I32, 65536, 65536), 0);
  EXPECT_EQ(intBinary(B::Mul, DType::I32, 46341, 46341), -2147479015);
  // i64: 2^32 * 2^32 wraps to 0; 3037000500^2 - 2^64 = -9223372036709301616
  // (Python). Values beyond 2^53 stay exact.
  EXPECT_EQ(intBinary(B::Mul, DType::I64, int64_t(1) << 32, int64_t(1) << 32),
            0);
  EXPECT_EQ(intBinary(B::Mul, DType::I64, 3037000500, 3037000500),
            -9223372036709301616);
  int64_t big = (int64_t(1) << 53) + 1;
  EXPECT_EQ(intBinary(B::Div, DType::I64, big * 3, 3), big);
  EXPECT_EQ(intBinary(B::Add, DType::I64, big, 2), big + 2);
  EXPECT_EQ(intBinary(B::Max, DType::I64, big, big - 1), big);
  EXPECT_EQ(intBinary(B::Min, DType::I64, big, big - 1), big - 1);
  EXPECT_EQ(intBinary(B::Sub, DType::I64, big, big - 1), 1);
}

TEST(KernelsTest, BinaryMaxMinNaNAndSignedZeros) {
  using B = k::BinaryKind;
  for (DType t : kFloatTypes) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Buffer lhs =
        make(t, {10}, {kNaN, 1, kNaN, -0.0, 0.0, -0.0, 0.0, -kInf, 2, -3});
    Buffer rhs =
        make(t, {10}, {1, kNaN, kNaN, 0.0, -0.0, -0.0, 0.0, 3, 3, kInf});
    expectExact(binaryOp(B::Max, lhs, rhs),
                {kNaN, kNaN, kNaN, 0.0, 0.0, -0.0, 0.0, 3, 3, kInf}, "max");
    expectExact(binaryOp(B::Min, lhs, rhs),
                {kNaN, kNaN, kNaN, -0.0, -0.0, -0.0, 0.0, -kInf, 2, -3}, "min");
  }
}

TEST(KernelsTest, BinaryPowSpecialCases) {
  using B = k::BinaryKind;
  // C99 Annex F pow special cases.
  struct Case {
    float x, y;
    double expected;
  } cases[] = {
      {2, 10, 1024},
      {NAN, 0, 1},
      {NAN, -0.0f, 1},
      {1, NAN, 1},
      {-8, 1.0f / 3, kNaN},
      {-2, 3, -8},
      {-2, 2, 4},
      {0, -1, kInf},
      {-0.0f, -1, -kInf},
      {-0.0f, -2, kInf},
      {-0.0f, 3, -0.0},
      {0, 3, 0},
      {-1, INFINITY, 1},
      {-1, -INFINITY, 1},
      {2, -INFINITY, 0},
      {0.5f, INFINITY, 0},
      {2, INFINITY, kInf},
      {INFINITY, -1, 0},
      {-INFINITY, 3, -kInf},
      {-INFINITY, -3, -0.0},
      {0, 0, 1},
      {NAN, 1, kNaN},
      {2, -1, 0.5},
  };
  for (const Case &c : cases)
    EXPECT_TRUE(sameFloat(f32Binary(B::Pow, c.x, c.y), c.expected))
        << "pow(" << c.x << ", " << c.y << ")";
  // np.power(2.0, 0.5), float64 of 1.5 ** 2.5.
  EXPECT_TRUE(
      closeFloat(f32Binary(B::Pow, 2, 0.5f), 1.4142135623730951, kF32Tol));
  EXPECT_TRUE(
      closeFloat(f32Binary(B::Pow, 1.5f, 2.5f), 2.7556759606310752, kF32Tol));
  // f16: 2^16 overflows; NaN^0 = 1.
  EXPECT_EQ(bits16Binary(B::Pow, DType::F16, 2, 16), 0x7c00);
  EXPECT_EQ(bits16Binary(B::Pow, DType::F16, kNaN, 0), 0x3c00);
  EXPECT_EQ(bits16Binary(B::Pow, DType::BF16, 2, 16), 0x4780);
}

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

struct CompareExpect {
  k::CompareKind kind;
  std::vector<int64_t> expected;
};

void checkCompare(const Buffer &lhs, const Buffer &rhs,
                  const std::vector<CompareExpect> &table,
                  const std::string &what) {
  const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (const CompareExpect &c : table) {
    Buffer out = compareOp(c.kind, lhs, rhs);
    ASSERT_EQ(out.dtype(), DType::I1);
    expectInts(out, c.expected, what + " " + names[int(c.kind)]);
  }
}

TEST(KernelsTest, ComparePredicates) {
  using C = k::CompareKind;
  // NaN compares unordered: only ne holds. -0 == +0.
  for (DType t : kFloatTypes) {
    Buffer lhs = make(t, {9}, {1, 1, 2, kNaN, 1, kNaN, -0.0, 0.0, -kInf});
    Buffer rhs = make(t, {9}, {1, 2, 1, 1, kNaN, kNaN, 0.0, -0.0, kInf});
    checkCompare(lhs, rhs,
                 {{C::Eq, {1, 0, 0, 0, 0, 0, 1, 1, 0}},
                  {C::Ne, {0, 1, 1, 1, 1, 1, 0, 0, 1}},
                  {C::Lt, {0, 1, 0, 0, 0, 0, 0, 0, 1}},
                  {C::Le, {1, 1, 0, 0, 0, 0, 1, 1, 1}},
                  {C::Gt, {0, 0, 1, 0, 0, 0, 0, 0, 0}},
                  {C::Ge, {1, 0, 1, 0, 0, 0, 1, 1, 0}}},
                 std::string(dtypeName(t)));
  }
  // Neighbouring f16 values (1 and 1 + 2^-10) are distinct.
  checkCompare(makeBits16(DType::F16, {2}, {0x3c00, 0x3c01}),
               makeBits16(DType::F16, {2}, {0x3c01, 0x3c00}),
               {{C::Lt, {1, 0}}, {C::Eq, {0, 0}}}, "f16 neighbours");
  // Integers compare as signed.
  checkCompare(makeI32({6}, {1, 1, 2, -1, kI32Min, kI32Max}),
               makeI32({6}, {1, 2, 1, 1, kI32Max, kI32Min}),
               {{C::Eq, {1, 0, 0, 0, 0, 0}},
                {C::Ne, {0, 1, 1, 1, 1, 1}},
                {C::Lt, {0, 1, 0, 1, 1, 0}},
                {C::Le, {1, 1, 0, 1, 1, 0}},
                {C::Gt, {0, 0, 1, 0, 0, 1}},
                {C::Ge, {1, 0, 1, 0, 0, 1}}},
               "i32");
  int64_t big = (int64_t(1) << 53) + 1; // not representable in a double
  checkCompare(makeI64({6}, {1, 1, 2, -1, big, kI64Min}),
               makeI64({6}, {1, 2, 1, 1, big - 1, kI64Max}),
               {{C::Eq, {1, 0, 0, 0, 0, 0}},
                {C::Ne, {0, 1, 1, 1, 1, 1}},
                {C::Lt, {0, 1, 0, 1, 0, 1}},
                {C::Le, {1, 1, 0, 1, 0, 1}},
                {C::Gt, {0, 0, 1, 0, 1, 0}},
                {C::Ge, {1, 0, 1, 0, 1, 0}}},
               "i64");
  checkCompare(make(DType::I1, {4}, {0, 0, 1, 1}),
               make(DType::I1, {4}, {0, 1, 0, 1}),
               {{C::Eq, {1, 0, 0, 1}}, {C::Ne, {0, 1, 1, 0}}}, "i1");
  // Broadcasting: [2,1] vs [3] -> [2,3].
  Buffer a = make(DType::F32, {2, 1}, {1, 3});
  Buffer b = make(DType::F32, {3}, {0, 2, 4});
  Buffer lt = compareOp(C::Lt, a, b);
  EXPECT_EQ(lt.shape(), (Shape{2, 3}));
  expectInts(lt, {0, 1, 1, 0, 0, 1}, "broadcast lt");
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

TEST(KernelsTest, SelectPassesBitsThrough) {
  Buffer cond = make(DType::I1, {4}, {1, 0, 1, 0});
  // f32 with NaN payloads and negative zeros: chosen bits are copied as is.
  Buffer t = makeF32({4}, {floatOf(0x7fc12345u), 1.0f, -0.0f, 2.0f});
  Buffer f = makeF32({4}, {5.0f, floatOf(0xffc00001u), 6.0f, -0.0f});
  Buffer out = selectOp(cond, t, f);
  std::vector<uint32_t> bits = {0x7fc12345u, 0xffc00001u, 0x80000000u,
                                0x80000000u};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(bitsOf(out.as<float>()[i]), bits[i]) << i;
  // A signalling f16 NaN and bf16 values pass unchanged.
  expectBits16(selectOp(cond, makeBits16(DType::F16, {4}, {0x7c01, 1, 2, 3}),
                        makeBits16(DType::F16, {4}, {4, 0xfc01, 6, 0x8000})),
               {0x7c01, 0xfc01, 2, 0x8000}, "f16");
  expectBits16(selectOp(cond, makeBits16(DType::BF16, {4}, {0x7f81, 1, 2, 3}),
                        makeBits16(DType::BF16, {4}, {4, 5, 6, 7})),
               {0x7f81, 5, 2, 7}, "bf16");
  expectInts(selectOp(cond, make(DType::I1, {4}, {1, 1, 0, 0}),
                      make(DType::I1, {4}, {0, 0, 1, 1})),
             {1, 0, 0, 1}, "i1");
  expectInts(selectOp(cond, makeI32({4}, {kI32Min, 1, 2, 3}),
                      makeI32({4}, {4, kI32Max, 6, 7})),
             {kI32Min, kI32Max, 2, 7}, "i32");
  int64_t big = (int64_t(1) << 53) + 1;
  expectInts(selectOp(cond, makeI64({4}, {big, 1, kI64Min, 3}),
                      makeI64({4}, {4, kI64Max, 6, -big})),
             {big, kI64Max, kI64Min, -big}, "i64");
  // Broadcasting: cond [2,1], true [3], false scalar -> [2,3].
  Buffer r =
      selectOp(make(DType::I1, {2, 1}, {1, 0}),
               make(DType::F32, {3}, {1, 2, 3}), make(DType::F32, {}, {9}));
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  expectExact(r, {1, 2, 3, 9, 9, 9}, "broadcast");
  // Scalar cond, [2,1] and [1,3] values -> [2,3].
  Buffer r2 =
      selectOp(make(DType::I1, {}, {0}), make(DType::I32, {2, 1}, {1, 2}),
               make(DType::I32, {1, 3}, {7, 8, 9}));
  EXPECT_EQ(r2.shape(), (Shape{2, 3}));
  expectInts(r2, {7, 8, 9, 7, 8, 9}, "scalar cond");
  // Zero-size.
  Buffer r3 =
      selectOp(make(DType::I1, {0, 1}, {}), make(DType::F32, {3}, {1, 2, 3}),
               make(DType::F32, {1}, {0}));
  EXPECT_EQ(r3.shape(), (Shape{0, 3}));
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

/// Expected results of casting one input vector to each of the six types.
struct CastTable {
  std::vector<uint32_t> f32;
  std::vector<uint16_t> f16, bf16;
  std::vector<int64_t> i1, i32, i64;
};

void checkCastTable(const Buffer &in, const CastTable &e,
                    const std::string &src) {
  {
    Buffer out = castOp(in, DType::F32);
    ASSERT_EQ(size_t(out.numElements()), e.f32.size());
    for (size_t i = 0; i < e.f32.size(); ++i)
      EXPECT_TRUE(sameFloat(out.as<float>()[i], floatOf(e.f32[i])))
          << src << "->f32 element " << i;
  }
  for (DType t : {DType::F16, DType::BF16}) {
    Buffer out = castOp(in, t);
    const std::vector<uint16_t> &bits = t == DType::F16 ? e.f16 : e.bf16;
    ASSERT_EQ(size_t(out.numElements()), bits.size());
    for (size_t i = 0; i < bits.size(); ++i) {
      double want =
          t == DType::F16 ? refHalfToDouble(bits[i]) : refBF16ToDouble(bits[i]);
      EXPECT_TRUE(sameFloat(valueAt(out, int64_t(i)), want))
          << src << "->" << dtypeName(t) << " element " << i << ": got 0x"
          << std::hex << out.as<uint16_t>()[i] << ", want 0x" << bits[i];
    }
  }
  expectInts(castOp(in, DType::I1), e.i1, src + "->i1");
  expectInts(castOp(in, DType::I32), e.i32, src + "->i32");
  expectInts(castOp(in, DType::I64), e.i64, src + "->i64");
}

// The expected columns below were computed in Python with exact rational
// arithmetic: round_bits(Fraction(x), fmt) (nearest even, overflow to inf),
// float->int as round-half-even then clamp, NaN -> 0; int->int as
// ((v + 2^(n-1)) % 2^n) - 2^(n-1). The f32->f16 column agrees with
// np.float32(x).astype(np.float16).

TEST(KernelsTest, CastFromF32) {
  // x: 0, -0, .5, 1.5, 2.5, -2.5, 3.5, -.5, -3.7, 70000.7, 1e10, -1e10, inf,
  // -inf, nan, 65520, 65519, 2147483520, 2^31, -2^31, 9.3e18, -9.3e18, -2^63,
  // 2^63 - 2^39 (largest float below 2^63), 1 + 2^-11, 3e38 (all as f32)
  std::vector<float> in = {0.0f,
                           -0.0f,
                           0.5f,
                           1.5f,
                           2.5f,
                           -2.5f,
                           3.5f,
                           -0.5f,
                           -3.7f,
                           70000.7f,
                           1e10f,
                           -1e10f,
                           INFINITY,
                           -INFINITY,
                           NAN,
                           65520.0f,
                           65519.0f,
                           2147483520.0f,
                           2147483648.0f,
                           -2147483648.0f,
                           9.3e18f,
                           -9.3e18f,
                           -9223372036854775808.0f,
                           9223371487098961920.0f,
                           1.00048828125f,
                           3e38f};
  CastTable e;
  for (float f : in)
    e.f32.push_back(bitsOf(f));
  e.f16 = {0x0,    0x8000, 0x3800, 0x3e00, 0x4100, 0xc100, 0x4300,
           0xb800, 0xc366, 0x7c00, 0x7c00, 0xfc00, 0x7c00, 0xfc00,
           0x7e00, 0x7c00, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x7c00,
           0xfc00, 0xfc00, 0x7c00, 0x3c00, 0x7c00};
  e.bf16 = {0x0,    0x8000, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x4060,
            0xbf00, 0xc06d, 0x4789, 0x5015, 0xd015, 0x7f80, 0xff80,
            0x7fc0, 0x4780, 0x4780, 0x4f00, 0x4f00, 0xcf00, 0x5f01,
            0xdf01, 0xdf00, 0x5f00, 0x3f80, 0x7f62};
  // x != 0; NaN -> 1, -0 -> 0.
  e.i1 = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  // Ties to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2, 3.5 -> 4),
  // saturation, NaN -> 0.
  e.i32 = {0,       0,       0,       2,          2,       -2,      4,
           0,       -4,      70001,   kI32Max,    kI32Min, kI32Max, kI32Min,
           0,       65520,   65519,   2147483520, kI32Max, kI32Min, kI32Max,
           kI32Min, kI32Min, kI32Max, 1,          kI32Max};
  e.i64 = {0,       0,          0,           2,
           2,       -2,         4,           0,
           -4,      70001,      10000000000, -10000000000,
           kI64Max, kI64Min,    0,           65520,
           65519,   2147483520, 2147483648,  -2147483648,
           kI64Max, kI64Min,    kI64Min,     9223371487098961920,
           1,       kI64Max};
  checkCastTable(makeF32({int64_t(in.size())}, in), e, "f32");
}

TEST(KernelsTest, CastFromF16) {
  // 0, -0, .5, 1.5, 2.5, -2.5, 65504, -65504, inf, -inf, nan, 2^-24,
  // 1 + 2^-10, 2050, 3.140625, -1.430511474609375e-06
  std::vector<uint16_t> in = {0x0000, 0x8000, 0x3800, 0x3e00, 0x4100, 0xc100,
                              0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x0001,
                              0x3c01, 0x6801, 0x4248, 0x8018};
  CastTable e;
  e.f32 = {0x0,        0x80000000, 0x3f000000, 0x3fc00000,
           0x40200000, 0xc0200000, 0x477fe000, 0xc77fe000,
           0x7f800000, 0xff800000, 0x7fc00000, 0x33800000,
           0x3f802000, 0x45002000, 0x40490000, 0xb5c00000};
  e.f16 = in;
  e.f16[10] = 0x7e00;
  // 65504 -> 65536 (0x4780) in bf16; 1 + 2^-10 -> 1; 2050 -> 2048.
  e.bf16 = {0x0,    0x8000, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x4780, 0xc780,
            0x7f80, 0xff80, 0x7fc0, 0x3380, 0x3f80, 0x4500, 0x4049, 0xb5c0};
  e.i1 = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  e.i32 = {0,       0,       0, 2, 2, -2,   65504, -65504,
           kI32Max, kI32Min, 0, 0, 1, 2050, 3,     0};
  e.i64 = {0,       0,       0, 2, 2, -2,   65504, -65504,
           kI64Max, kI64Min, 0, 0, 1, 2050, 3,     0};
  checkCastTable(makeBits16(DType::F16, {int64_t(in.size())}, in), e, "f16");
}

TEST(KernelsTest, CastFromBF16) {
  // 0, -0, 2.5, -3.5, max (3.39e38), -max, inf, nan, 1.0078125,
  // 1.5 * 2^-25, 2^-30, 66048, 65280, 2986344448, -2^63, 0.75
  std::vector<uint16_t> in = {0x0000, 0x8000, 0x4020, 0xc060, 0x7f7f, 0xff7f,
                              0x7f80, 0x7fc0, 0x3f81, 0x3340, 0x3080, 0x4781,
                              0x477f, 0x4f32, 0xdf00, 0x3f40};
  CastTable e;
  e.f32 = {0x0,        0x80000000, 0x40200000, 0xc0600000,
           0x7f7f0000, 0xff7f0000, 0x7f800000, 0x7fc00000,
           0x3f810000, 0x33400000, 0x30800000, 0x47810000,
           0x477f0000, 0x4f320000, 0xdf000000, 0x3f400000};
  // 1.5 * 2^-25 = 0.75 * 2^-24 -> 0x0001; 2^-30 -> 0; 66048 -> inf.
  e.f16 = {0x0,    0x8000, 0x4100, 0xc300, 0x7c00, 0xfc00, 0x7c00, 0x7e00,
           0x3c08, 0x1,    0x0,    0x7c00, 0x7bf8, 0x7c00, 0xfc00, 0x3a00};
  e.bf16 = in;
  e.i1 = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  e.i32 = {0, 0, 2, -4,    kI32Max, kI32Min, kI32Max, 0,
           1, 0, 0, 66048, 65280,   kI32Max, kI32Min, 1};
  e.i64 = {0, 0, 2, -4,    kI64Max, kI64Min,    kI64Max, 0,
           1, 0, 0, 66048, 65280,   2986344448, kI64Min, 1};
  checkCastTable(makeBits16(DType::BF16, {int64_t(in.size())}, in), e, "bf16");
}

TEST(KernelsTest, CastFromI1) {
  CastTable e;
  e.f32 = {0x0, 0x3f800000};
  e.f16 = {0x0, 0x3c00};
  e.bf16 = {0x0, 0x3f80};
  e.i1 = {0, 1};
  e.i32 = {0, 1};
  e.i64 = {0, 1};
  checkCastTable(make(DType::I1, {2}, {0, 1}), e, "i1");
}

TEST(KernelsTest, CastFromI32) {
  // 2^24 + 1 = 16777217 -> f32 16777216 (tie, even), 16777219 -> 16777220.
  // 1077936129 = 2^30 + 2^22 + 1: f32 would round it to 2^30 + 2^22, the
  // exact midpoint of the bf16 values 2^30 (0x4e80) and 2^30 + 2^23
  // (0x4e81), and a second rounding to even would give 0x4e80; the correct
  // single rounding is 0x4e81. 1086324735 = 2^30 + 3*2^22 - 1: f32 gives the
  // midpoint 2^30 + 3*2^22 (-> 0x4e82 by ties-to-even), correct is 0x4e81.
  // (No such case exists for f16: every integer below the overflow
  // threshold 65520 is exact in f32.)
  std::vector<int32_t> in = {0,       1,       -1,         7,
                             -7,      2049,    2051,       65519,
                             65520,   -65520,  16777217,   16777219,
                             kI32Max, kI32Min, 1077936129, 1086324735};
  CastTable e;
  e.f32 = {0x0,        0x3f800000, 0xbf800000, 0x40e00000,
           0xc0e00000, 0x45001000, 0x45003000, 0x477fef00,
           0x477ff000, 0xc77ff000, 0x4b800000, 0x4b800002,
           0x4f000000, 0xcf000000, 0x4e808000, 0x4e818000};
  e.f16 = {0x0,    0x3c00, 0xbc00, 0x4700, 0xc700, 0x6800, 0x6802, 0x7bff,
           0x7c00, 0xfc00, 0x7c00, 0x7c00, 0x7c00, 0xfc00, 0x7c00, 0x7c00};
  e.bf16 = {0x0,    0x3f80, 0xbf80, 0x40e0, 0xc0e0, 0x4500, 0x4500, 0x4780,
            0x4780, 0xc780, 0x4b80, 0x4b80, 0x4f00, 0xcf00, 0x4e81, 0x4e81};
  e.i1 = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  e.i32.assign(in.begin(), in.end());
  e.i64.assign(in.begin(), in.end()); // sign extension
  checkCastTable(makeI32({int64_t(in.size())}, in), e, "i32");
}

TEST(KernelsTest, CastFromI64) {
  // 1152921573326323713 = 2^60 + 2^36 + 1: via double it would become
  // 2^60 + 2^36, the midpoint of the f32 values 2^60 and 2^60 + 2^37, and
  // then round to even 2^60; correct is 2^60 + 2^37 = 0x5d800001.
  // 4629700416936869889 = 2^62 + 2^54 + 1 and 4665729213955833855 =
  // 2^62 + 3*2^54 - 1 are the bf16 counterparts (correct: 0x5e81 for both;
  // through f32 they would give 0x5e80 and 0x5e82). 2^32 -> i1 is 1 (a
  // truncate-then-test would give 0).
  std::vector<int64_t> in = {0,
                             -1,
                             2049,
                             65519,
                             65520,
                             int64_t(1) << 31,
                             4294967295,
                             4294967296,
                             0x100000005,
                             -2147483649,
                             (int64_t(1) << 53) + 1,
                             1152921573326323713,
                             4629700416936869889,
                             kI64Max,
                             kI64Min,
                             4665729213955833855};
  CastTable e;
  e.f32 = {0x0,        0xbf800000, 0x45001000, 0x477fef00,
           0x477ff000, 0x4f000000, 0x4f800000, 0x4f800000,
           0x4f800000, 0xcf000000, 0x5a000000, 0x5d800001,
           0x5e808000, 0x5f000000, 0xdf000000, 0x5e818000};
  e.f16 = {0x0,    0xbc00, 0x6800, 0x7bff, 0x7c00, 0x7c00, 0x7c00, 0x7c00,
           0x7c00, 0xfc00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0xfc00, 0x7c00};
  e.bf16 = {0x0,    0xbf80, 0x4500, 0x4780, 0x4780, 0x4f00, 0x4f80, 0x4f80,
            0x4f80, 0xcf00, 0x5a00, 0x5d80, 0x5e81, 0x5f00, 0xdf00, 0x5e81};
  e.i1 = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  // Wrap to the low 32 bits.
  e.i32 = {0, -1,      2049, 65519, 65520, kI32Min, -1, 0,
           5, kI32Max, 1,    1,     1,     -1,      0,  -1};
  e.i64 = in;
  checkCastTable(makeI64({int64_t(in.size())}, in), e, "i64");
}

TEST(KernelsTest, CastKeepsShapeAndHandlesEmpty) {
  Buffer in = make(DType::F32, {2, 0, 3}, {});
  Buffer out = castOp(in, DType::I64);
  EXPECT_EQ(out.shape(), (Shape{2, 0, 3}));
  Buffer m = castOp(make(DType::I32, {2, 2}, {1, -2, 3, -4}), DType::F16);
  EXPECT_EQ(m.shape(), (Shape{2, 2}));
  expectExact(m, {1, -2, 3, -4}, "i32->f16 2x2");
}

//===----------------------------------------------------------------------===//
// Broadcasting in binary/compare/select
//===----------------------------------------------------------------------===//

TEST(KernelsTest, BinaryBroadcastingExplicit) {
  using B = k::BinaryKind;
  // [2,3] + [3].
  Buffer r1 = binaryOp(B::Add, make(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5}),
                       make(DType::F32, {3}, {10, 20, 30}));
  EXPECT_EQ(r1.shape(), (Shape{2, 3}));
  expectExact(r1, {10, 21, 32, 13, 24, 35}, "[2,3]+[3]");
  // Size-1 dims on both sides: [3,1] - [1,4] -> [3,4], r[i][j] = a[i] - b[j].
  Buffer r2 = binaryOp(B::Sub, make(DType::I32, {3, 1}, {100, 200, 300}),
                       make(DType::I32, {1, 4}, {1, 2, 3, 4}));
  EXPECT_EQ(r2.shape(), (Shape{3, 4}));
  expectInts(r2, {99, 98, 97, 96, 199, 198, 197, 196, 299, 298, 297, 296},
             "[3,1]-[1,4]");
  // Rank-different with a middle broadcast: [2,1,3] * [4,1] -> [2,4,3],
  // r[i][j][l] = a[i][0][l] * b[j][0].
  Buffer r3 = binaryOp(B::Mul, make(DType::F16, {2, 1, 3}, {1, 2, 3, 4, 5, 6}),
                       make(DType::F16, {4, 1}, {1, 10, 100, -1}));
  EXPECT_EQ(r3.shape(), (Shape{2, 4, 3}));
  expectExact(r3, {1, 2, 3, 10, 20, 30, 100, 200, 300, -1, -2, -3,
                   4, 5, 6, 40, 50, 60, 400, 500, 600, -4, -5, -6},
              "[2,1,3]*[4,1]");
  // Scalars.
  Buffer r4 = binaryOp(B::Max, make(DType::BF16, {}, {2}),
                       make(DType::BF16, {2, 2}, {1, 2, 3, -0.0}));
  EXPECT_EQ(r4.shape(), (Shape{2, 2}));
  expectExact(r4, {2, 2, 3, 2}, "scalar max");
  Buffer r5 =
      binaryOp(B::Div, make(DType::I64, {}, {-7}), make(DType::I64, {}, {2}));
  EXPECT_EQ(r5.shape(), Shape{});
  expectInts(r5, {-3}, "scalar/scalar");
  // Zero-size dimensions.
  for (auto [a, b, want] :
       std::vector<std::tuple<Shape, Shape, Shape>>{{{0, 3}, {3}, {0, 3}},
                                                    {{2, 0}, {2, 1}, {2, 0}},
                                                    {{0}, {}, {0}},
                                                    {{1, 0}, {3, 1}, {3, 0}}}) {
    Buffer x = alloc(DType::F32, a), y = alloc(DType::F32, b);
    Buffer r = binaryOp(B::Add, x, y);
    EXPECT_EQ(r.shape(), want) << str(a) << " + " << str(b);
    EXPECT_EQ(r.numElements(), 0);
  }
  // Non-contiguous runs: [2,3,4] + [2,1,4], [2,3,4] + [3,1].
  std::vector<double> v24(24);
  std::iota(v24.begin(), v24.end(), 0.0);
  Buffer big = make(DType::I32, {2, 3, 4}, v24);
  Buffer r6 = binaryOp(B::Add, big,
                       make(DType::I32, {2, 1, 4},
                            {1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000}));
  std::vector<int64_t> want6;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < 4; ++l)
        want6.push_back(i * 12 + j * 4 + l + 1000 * (i * 4 + l + 1));
  expectInts(r6, want6, "[2,3,4]+[2,1,4]");
  Buffer r7 = binaryOp(B::Add, big, make(DType::I32, {3, 1}, {100, 200, 300}));
  std::vector<int64_t> want7;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < 4; ++l)
        want7.push_back(i * 12 + j * 4 + l + 100 * (j + 1));
  expectInts(r7, want7, "[2,3,4]+[3,1]");
  // The lhs broadcast too: [4] - [2,3,4] (operand order matters for sub).
  Buffer r8 = binaryOp(B::Sub, make(DType::I32, {4}, {0, 0, 0, 0}), big);
  std::vector<int64_t> want8;
  for (int i = 0; i < 24; ++i)
    want8.push_back(-i);
  expectInts(r8, want8, "[4]-[2,3,4]");
}

TEST(KernelsTest, BinaryBroadcastingRandomVsNaive) {
  std::mt19937 rng(2024);
  using B = k::BinaryKind;
  const std::pair<DType, B> combos[] = {
      {DType::F32, B::Add}, {DType::F32, B::Div}, {DType::F32, B::Max},
      {DType::F16, B::Mul}, {DType::F16, B::Min}, {DType::BF16, B::Sub},
      {DType::I32, B::Sub}, {DType::I32, B::Div}, {DType::I64, B::Mul},
      {DType::I64, B::Max}, {DType::F32, B::Min}, {DType::I32, B::Add}};
  for (int iter = 0; iter < 400; ++iter) {
    auto [t, kind] = combos[iter % std::size(combos)];
    Shape out = randomShape(rng, 0, 5, 4, true);
    Shape sa = randomOperandShape(rng, out), sb = randomOperandShape(rng, out);
    if (rng() % 2)
      sa = out;
    Shape full = broadcastShape({sa, sb});
    Buffer a = randomBuffer(rng, t, sa), b = randomBuffer(rng, t, sb);
    Buffer got = binaryOp(kind, a, b);
    Buffer want = alloc(t, full);
    for (int64_t i = 0; i < want.numElements(); ++i) {
      std::vector<int64_t> idx = unravel(i, full);
      int64_t ia = broadcastSource(idx, sa), ib = broadcastSource(idx, sb);
      if (isFloat(t)) {
        storeFloat(want, i,
                   refFloatBinary(kind, loadFloat(a, ia), loadFloat(b, ib)));
      } else if (t == DType::I32) {
        want.as<int32_t>()[i] =
            int32_t(refIntBinary(kind, intAt(a, ia), intAt(b, ib), 32));
      } else {
        want.as<int64_t>()[i] =
            refIntBinary(kind, intAt(a, ia), intAt(b, ib), 64);
      }
    }
    expectSameValues(got, want,
                     std::string(dtypeName(t)) + " op " +
                         std::to_string(int(kind)) + " " + str(sa) + " vs " +
                         str(sb));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

TEST(KernelsTest, CompareAndSelectBroadcastingRandomVsNaive) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 300; ++iter) {
    DType t = kAllDTypes[iter % std::size(kAllDTypes)];
    k::CompareKind kind = k::CompareKind(iter % 6);
    if (t == DType::I1)
      kind = (iter / 6) % 2 ? k::CompareKind::Eq : k::CompareKind::Ne;
    Shape out = randomShape(rng, 0, 4, 4, true);
    Shape sa = randomOperandShape(rng, out), sb = randomOperandShape(rng, out),
          sc = randomOperandShape(rng, out);
    Buffer a = randomBuffer(rng, t, sa), b = randomBuffer(rng, t, sb);
    Buffer c = randomBuffer(rng, DType::I1, sc);
    // compare
    Shape full = broadcastShape({sa, sb});
    Buffer got = compareOp(kind, a, b);
    ASSERT_EQ(got.shape(), full);
    for (int64_t i = 0; i < got.numElements(); ++i) {
      std::vector<int64_t> idx = unravel(i, full);
      int64_t ia = broadcastSource(idx, sa), ib = broadcastSource(idx, sb);
      bool lt, eq, unordered = false;
      if (isFloat(t)) {
        double x = valueAt(a, ia), y = valueAt(b, ib);
        unordered = std::isnan(x) || std::isnan(y);
        lt = x < y;
        eq = x == y;
      } else { // exact integers (i64 beyond 2^53 included)
        lt = intAt(a, ia) < intAt(b, ib);
        eq = intAt(a, ia) == intAt(b, ib);
      }
      bool want = false;
      switch (kind) {
      case k::CompareKind::Eq:
        want = eq;
        break;
      case k::CompareKind::Ne:
        want = !eq;
        break;
      case k::CompareKind::Lt:
        want = lt;
        break;
      case k::CompareKind::Le:
        want = lt || eq;
        break;
      case k::CompareKind::Gt:
        want = !lt && !eq && !unordered;
        break;
      case k::CompareKind::Ge:
        want = !lt && !unordered;
        break;
      }
      ASSERT_EQ(intAt(got, i), int64_t(want))
          << dtypeName(t) << " pred " << int(kind) << " " << str(sa) << " vs "
          << str(sb) << " element " << i;
    }
    // select
    Shape full3 = broadcastShape({sc, sa, sb});
    Buffer sel = selectOp(c, a, b);
    ASSERT_EQ(sel.shape(), full3);
    for (int64_t i = 0; i < sel.numElements(); ++i) {
      std::vector<int64_t> idx = unravel(i, full3);
      uint64_t want = intAt(c, broadcastSource(idx, sc))
                          ? rawAt(a, broadcastSource(idx, sa))
                          : rawAt(b, broadcastSource(idx, sb));
      ASSERT_EQ(rawAt(sel, i), want)
          << dtypeName(t) << " select " << str(sc) << " " << str(sa) << " "
          << str(sb) << " element " << i;
    }
  }
}

//===----------------------------------------------------------------------===//
// broadcastTo, transpose, slice, concat
//===----------------------------------------------------------------------===//

/// Naive broadcast of `in` to `shape`.
Buffer naiveBroadcastTo(const Buffer &in, const Shape &shape) {
  Buffer out = alloc(in.dtype(), shape);
  size_t size = dtypeSize(in.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i)
    std::memcpy(static_cast<char *>(out.data()) + i * size,
                static_cast<const char *>(in.data()) +
                    broadcastSource(unravel(i, shape), in.shape()) * size,
                size);
  return out;
}

TEST(KernelsTest, BroadcastTo) {
  struct Case {
    Shape from, to;
  } cases[] = {{{3}, {2, 3}},
               {{2, 1}, {2, 3}},
               {{}, {2, 2}},
               {{1, 1}, {3, 2}},
               {{1}, {0}},
               {{2, 1, 1}, {2, 3, 4}},
               {{1, 3, 1}, {2, 3, 2}},
               {{4}, {4}},
               {{}, {}},
               {{1, 2}, {3, 1, 2}},
               {{3, 1}, {2, 0, 3, 5}}};
  std::mt19937 rng(5);
  for (const Case &c : cases)
    for (DType t : kAllDTypes) {
      Buffer in = randomBuffer(rng, t, c.from);
      Buffer out = alloc(t, c.to);
      poison(out);
      k::broadcastTo(in, out);
      expectSameBuffer(out, naiveBroadcastTo(in, c.to),
                       std::string(dtypeName(t)) + " " + str(c.from) + "->" +
                           str(c.to));
    }
  // Explicit: [2,1] -> [2,3].
  Buffer out = alloc(DType::F32, {2, 3});
  k::broadcastTo(make(DType::F32, {2, 1}, {7, -0.0}), out);
  expectExact(out, {7, 7, 7, -0.0, -0.0, -0.0}, "[2,1]->[2,3]");
  // Random.
  for (int iter = 0; iter < 200; ++iter) {
    Shape to = randomShape(rng, 0, 5, 4, true);
    Shape from = randomOperandShape(rng, to);
    DType t = kAllDTypes[iter % std::size(kAllDTypes)];
    Buffer in = randomBuffer(rng, t, from);
    Buffer got = alloc(t, to);
    poison(got);
    k::broadcastTo(in, got);
    expectSameBuffer(got, naiveBroadcastTo(in, to), str(from) + "->" + str(to));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

Buffer naiveTranspose(const Buffer &in, const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(in.shape()[p]);
  Buffer out = alloc(in.dtype(), shape);
  size_t size = dtypeSize(in.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> o = unravel(i, shape), src(perm.size());
    for (size_t d = 0; d < perm.size(); ++d)
      src[perm[d]] = o[d];
    std::memcpy(static_cast<char *>(out.data()) + i * size,
                static_cast<const char *>(in.data()) +
                    ravel(src, in.shape()) * size,
                size);
  }
  return out;
}

Buffer transposeOp(const Buffer &in, const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(in.shape()[p]);
  Buffer out = alloc(in.dtype(), shape);
  poison(out);
  k::transpose(in, perm, out);
  return out;
}

TEST(KernelsTest, Transpose) {
  // 2-D by hand: [[0,1,2],[3,4,5]]^T = [[0,3],[1,4],[2,5]].
  Buffer t2 = transposeOp(make(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5}), {1, 0});
  EXPECT_EQ(t2.shape(), (Shape{3, 2}));
  expectExact(t2, {0, 3, 1, 4, 2, 5}, "2-D");
  // 3-D [2,3,4] with perm [2,0,1]: result [4,2,3], r[a][b][c] = in[b][c][a]
  // = 12 b + 4 c + a.
  std::vector<double> v(24);
  std::iota(v.begin(), v.end(), 0.0);
  Buffer t3 = transposeOp(make(DType::I32, {2, 3, 4}, v), {2, 0, 1});
  EXPECT_EQ(t3.shape(), (Shape{4, 2, 3}));
  std::vector<int64_t> want;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c)
        want.push_back(12 * b + 4 * c + a);
  expectInts(t3, want, "perm [2,0,1]");
  // All six permutations of a 3-D tensor, every element size.
  std::mt19937 rng(11);
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    for (DType t : kAllDTypes) {
      Buffer in = randomBuffer(rng, t, {2, 3, 4});
      expectSameBuffer(transposeOp(in, perm), naiveTranspose(in, perm),
                       std::string(dtypeName(t)) + " perm " +
                           std::to_string(perm[0]) + std::to_string(perm[1]) +
                           std::to_string(perm[2]));
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  // Random ranks 0..5 with size-1 and zero-size dimensions.
  for (int iter = 0; iter < 200; ++iter) {
    Shape shape = randomShape(rng, 0, 5, 4, true);
    std::vector<int64_t> p(shape.size());
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    DType t = kAllDTypes[iter % std::size(kAllDTypes)];
    Buffer in = randomBuffer(rng, t, shape);
    expectSameBuffer(transposeOp(in, p), naiveTranspose(in, p),
                     "random " + str(shape));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

Buffer sliceOp(const Buffer &in, const std::vector<int64_t> &start,
               const Shape &size, const std::vector<int64_t> &stride) {
  Buffer out = alloc(in.dtype(), size);
  poison(out);
  k::slice(in, start, stride, out);
  return out;
}

Buffer naiveSlice(const Buffer &in, const std::vector<int64_t> &start,
                  const Shape &size, const std::vector<int64_t> &stride) {
  Buffer out = alloc(in.dtype(), size);
  size_t esize = dtypeSize(in.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> idx = unravel(i, size);
    for (size_t d = 0; d < idx.size(); ++d)
      idx[d] = start[d] + idx[d] * stride[d];
    std::memcpy(static_cast<char *>(out.data()) + i * esize,
                static_cast<const char *>(in.data()) +
                    ravel(idx, in.shape()) * esize,
                esize);
  }
  return out;
}

TEST(KernelsTest, Slice) {
  // [4,6] = 0..23; rows 1, 3 (start 1, stride 2), columns 0, 3 (stride 3):
  // [[6, 9], [18, 21]].
  std::vector<double> v(24);
  std::iota(v.begin(), v.end(), 0.0);
  Buffer in = make(DType::F32, {4, 6}, v);
  expectExact(sliceOp(in, {1, 0}, {2, 2}, {2, 3}), {6, 9, 18, 21}, "strided");
  // Offsets only: rows 2..3, columns 4..5: [[16, 17], [22, 23]].
  expectExact(sliceOp(in, {2, 4}, {2, 2}, {1, 1}), {16, 17, 22, 23}, "offset");
  // One column with a stride beyond the dimension (only one element read).
  expectExact(sliceOp(in, {0, 5}, {4, 1}, {1, 100}), {5, 11, 17, 23}, "column");
  // Zero-size results.
  EXPECT_EQ(sliceOp(in, {4, 0}, {0, 6}, {1, 1}).numElements(), 0);
  EXPECT_EQ(sliceOp(in, {0, 0}, {2, 0}, {1, 1}).numElements(), 0);
  // 3-D, i64 with large values, every element size via random data.
  std::mt19937 rng(3);
  for (int iter = 0; iter < 300; ++iter) {
    Shape shape = randomShape(rng, 0, 4, 6, false);
    std::vector<int64_t> start, stride;
    Shape size;
    for (int64_t dim : shape) {
      int64_t s = int64_t(rng() % uint64_t(dim));
      int64_t st = 1 + int64_t(rng() % 3);
      int64_t maxSize = (dim - 1 - s) / st + 1;
      start.push_back(s);
      stride.push_back(st);
      size.push_back(int64_t(rng() % uint64_t(maxSize + 1)));
    }
    DType t = kAllDTypes[iter % std::size(kAllDTypes)];
    Buffer x = randomBuffer(rng, t, shape);
    expectSameBuffer(sliceOp(x, start, size, stride),
                     naiveSlice(x, start, size, stride),
                     "random slice of " + str(shape));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

Buffer concatOp(const std::vector<Buffer> &inputs, int64_t axis) {
  Shape shape = inputs[0].shape();
  shape[axis] = 0;
  std::vector<const Buffer *> ptrs;
  for (const Buffer &b : inputs) {
    shape[axis] += b.shape()[axis];
    ptrs.push_back(&b);
  }
  Buffer out = alloc(inputs[0].dtype(), shape);
  poison(out);
  k::concat(ptrs, axis, out);
  return out;
}

Buffer naiveConcat(const std::vector<Buffer> &inputs, int64_t axis) {
  Shape shape = inputs[0].shape();
  shape[axis] = 0;
  for (const Buffer &b : inputs)
    shape[axis] += b.shape()[axis];
  Buffer out = alloc(inputs[0].dtype(), shape);
  size_t esize = dtypeSize(out.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> idx = unravel(i, shape);
    size_t which = 0;
    while (idx[axis] >= inputs[which].shape()[axis]) {
      idx[axis] -= inputs[which].shape()[axis];
      ++which;
    }
    std::memcpy(static_cast<char *>(out.data()) + i * esize,
                static_cast<const char *>(inputs[which].data()) +
                    ravel(idx, inputs[which].shape()) * esize,
                esize);
  }
  return out;
}

TEST(KernelsTest, Concat) {
  // By hand: [[1,2],[3,4]] ++ [[5],[6]] along axis 1 = [[1,2,5],[3,4,6]];
  // along axis 0 with [[7,8]]: [[1,2],[3,4],[7,8]].
  Buffer a = make(DType::I32, {2, 2}, {1, 2, 3, 4});
  expectInts(concatOp({a, make(DType::I32, {2, 1}, {5, 6})}, 1),
             {1, 2, 5, 3, 4, 6}, "axis 1");
  expectInts(concatOp({a, make(DType::I32, {1, 2}, {7, 8})}, 0),
             {1, 2, 3, 4, 7, 8}, "axis 0");
  // Each axis of a 3-D shape, with zero-size operands, every element size.
  std::mt19937 rng(8);
  for (int64_t axis = 0; axis < 3; ++axis)
    for (DType t : kAllDTypes) {
      std::vector<Buffer> inputs;
      for (int64_t n : {1, 0, 3, 2}) {
        Shape s = {2, 3, 4};
        s[axis] = n;
        inputs.push_back(randomBuffer(rng, t, s));
      }
      expectSameBuffer(concatOp(inputs, axis), naiveConcat(inputs, axis),
                       std::string(dtypeName(t)) + " axis " +
                           std::to_string(axis));
    }
  // A single operand; all operands empty; an empty non-concatenated dim.
  Buffer x = randomBuffer(rng, DType::F16, {3, 2});
  expectSameBuffer(concatOp({x}, 1), x, "single");
  EXPECT_EQ(concatOp({alloc(DType::F32, {2, 0}), alloc(DType::F32, {2, 0})}, 1)
                .shape(),
            (Shape{2, 0}));
  EXPECT_EQ(concatOp({alloc(DType::F32, {0, 2}), alloc(DType::F32, {0, 3})}, 1)
                .shape(),
            (Shape{0, 5}));
  // Random.
  for (int iter = 0; iter < 100; ++iter) {
    Shape base = randomShape(rng, 1, 4, 4, false);
    int64_t axis = int64_t(rng() % base.size());
    DType t = kAllDTypes[iter % std::size(kAllDTypes)];
    std::vector<Buffer> inputs;
    int n = 1 + int(rng() % 4);
    for (int i = 0; i < n; ++i) {
      Shape s = base;
      s[axis] = int64_t(rng() % 4);
      inputs.push_back(randomBuffer(rng, t, s));
    }
    expectSameBuffer(concatOp(inputs, axis), naiveConcat(inputs, axis),
                     "random concat");
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

TEST(KernelsTest, ReduceAxes) {
  using R = k::ReduceKind;
  std::vector<double> v(24);
  std::iota(v.begin(), v.end(), 0.0);
  // np.arange(24).reshape(2,3,4):
  for (DType t :
       {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Buffer x = make(t, {2, 3, 4}, v);
    // .sum(1) = [[12,15,18,21],[48,51,54,57]]
    Buffer s1 = reduceOp(R::Sum, x, {1});
    EXPECT_EQ(s1.shape(), (Shape{2, 4}));
    expectExact(s1, {12, 15, 18, 21, 48, 51, 54, 57}, "sum(1)");
    // keep_dims: same values, shape [2,1,4].
    Buffer s1k = reduceOp(R::Sum, x, {1}, true);
    EXPECT_EQ(s1k.shape(), (Shape{2, 1, 4}));
    expectExact(s1k, {12, 15, 18, 21, 48, 51, 54, 57}, "sum(1) keep");
    // .sum((0,2)) = [0+1+2+3+12+13+14+15, ...] = [60, 92, 124]
    expectExact(reduceOp(R::Sum, x, {0, 2}), {60, 92, 124}, "sum(0,2)");
    // .sum() = 276 (exact in bf16: 276 = 4 * 69, spacing 2 in [256,512)).
    expectExact(reduceOp(R::Sum, x, {0, 1, 2}), {276}, "sum all");
    // No axes: the identity.
    expectExact(reduceOp(R::Sum, x, {}), v, "sum none");
    expectExact(reduceOp(R::Max, x, {}), v, "max none");
    // .max(1) = [[8,9,10,11],[20,21,22,23]]; .min((0,2)) = [0,4,8].
    expectExact(reduceOp(R::Max, x, {1}), {8, 9, 10, 11, 20, 21, 22, 23},
                "max(1)");
    expectExact(reduceOp(R::Min, x, {0, 2}), {0, 4, 8}, "min(0,2)");
    expectExact(reduceOp(R::Max, x, {0, 1, 2}), {23}, "max all");
    expectExact(reduceOp(R::Min, x, {0, 1}), {0, 1, 2, 3}, "min(0,1)");
    if (isFloat(t)) {
      // .mean(2) = [[1.5,5.5,9.5],[13.5,17.5,21.5]]; .mean((0,2)) =
      // [60/8, 92/8, 124/8] = [7.5, 11.5, 15.5].
      expectExact(reduceOp(R::Mean, x, {2}), {1.5, 5.5, 9.5, 13.5, 17.5, 21.5},
                  "mean(2)");
      expectExact(reduceOp(R::Mean, x, {0, 2}), {7.5, 11.5, 15.5}, "mean(0,2)");
      expectExact(reduceOp(R::Mean, x, {0, 1, 2}), {11.5}, "mean all");
    }
  }
}

TEST(KernelsTest, ReduceEmpty) {
  using R = k::ReduceKind;
  for (DType t : kFloatTypes) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Buffer x = alloc(t, {2, 0});
    // The output buffers are poisoned: every element must be written.
    auto run = [&](R kind, std::vector<int64_t> axes, Shape shape) {
      Buffer out = alloc(t, shape);
      poison(out);
      k::reduce(kind, x, axes, out);
      return out;
    };
    expectExact(run(R::Sum, {1}, {2}), {0.0, 0.0}, "sum"); // +0
    expectExact(run(R::Mean, {1}, {2}), {kNaN, kNaN}, "mean");
    expectExact(run(R::Max, {1}, {2}), {-kInf, -kInf}, "max");
    expectExact(run(R::Min, {1}, {2}), {kInf, kInf}, "min");
    expectExact(run(R::Sum, {0, 1}, {}), {0.0}, "sum all");
    // Reducing the non-empty axis leaves an empty result.
    EXPECT_EQ(run(R::Sum, {0}, {0}).numElements(), 0);
  }
  for (DType t : {DType::I32, DType::I64}) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Buffer x = alloc(t, {0, 3});
    auto run = [&](R kind) {
      Buffer out = alloc(t, {3});
      poison(out);
      k::reduce(kind, x, {0}, out);
      return out;
    };
    int64_t mn = t == DType::I32 ? kI32Min : kI64Min;
    int64_t mx = t == DType::I32 ? kI32Max : kI64Max;
    expectInts(run(R::Sum), {0, 0, 0}, "sum");
    expectInts(run(R::Max), {mn, mn, mn}, "max");
    expectInts(run(R::Min), {mx, mx, mx}, "min");
  }
}

TEST(KernelsTest, ReduceNaNAndSignedZeros) {
  using R = k::ReduceKind;
  for (DType t : kFloatTypes) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    // Rows: NaN first, in the middle, last; [-0, +0]; [+0, -0]; [-0, -0].
    Buffer x = make(t, {6, 3},
                    {kNaN, 1, 3, 1, kNaN, 3, 1, 3, kNaN, -0.0, 0.0, -0.0, 0.0,
                     -0.0, -0.0, -0.0, -0.0, -0.0});
    expectExact(reduceOp(R::Max, x, {1}), {kNaN, kNaN, kNaN, 0.0, 0.0, -0.0},
                "max");
    expectExact(reduceOp(R::Min, x, {1}), {kNaN, kNaN, kNaN, -0.0, -0.0, -0.0},
                "min");
    expectExact(reduceOp(R::Sum, x, {1}), {kNaN, kNaN, kNaN, 0.0, 0.0, -0.0},
                "sum");
    // A sum of -0 elements is -0; a sum of one element is that element.
    expectExact(reduceOp(R::Sum, make(t, {1}, {-0.0}), {0}), {-0.0}, "sum -0");
    expectExact(reduceOp(R::Mean, make(t, {2}, {-0.0, -0.0}), {0}), {-0.0},
                "mean -0");
    expectExact(reduceOp(R::Sum, make(t, {2}, {kInf, -kInf}), {0}), {kNaN},
                "inf - inf");
    expectExact(reduceOp(R::Max, make(t, {2}, {-kInf, -kInf}), {0}), {-kInf},
                "max -inf");
  }
}

TEST(KernelsTest, ReduceAccumulatesInDouble) {
  using R = k::ReduceKind;
  // 4096 ones in f16: a sequential f16 sum would stop at 2048 (2048 + 1
  // rounds back to 2048); accumulated in f64 and rounded once it is 4096.
  Buffer ones = make(DType::F16, {4096}, std::vector<double>(4096, 1.0));
  expectBits16(reduceOp(R::Sum, ones, {0}), {0x6c00}, "f16 4096 ones");
  expectBits16(reduceOp(R::Mean, ones, {0}), {0x3c00}, "f16 mean of ones");
  // 3000 ones: exact in f16 (spacing 2 in [2048, 4096)).
  expectExact(reduceOp(R::Sum,
                       make(DType::F16, {3000}, std::vector<double>(3000, 1.0)),
                       {0}),
              {3000}, "f16 3000 ones");
  // bf16: sequential accumulation would stick at 256; 1000 is exact.
  expectExact(
      reduceOp(R::Sum,
               make(DType::BF16, {1000}, std::vector<double>(1000, 1.0)), {0}),
      {1000}, "bf16 1000 ones");
  // f16 mean of [65504, 65504]: the sum 131008 overflows f16 but not f64.
  expectExact(reduceOp(R::Mean, make(DType::F16, {2}, {65504, 65504}), {0}),
              {65504}, "f16 mean of max");
  // f32: 1e8 + 1 - 1e8 is 1 in f64 (0 in sequential f32).
  expectExact(reduceOp(R::Sum, make(DType::F32, {3}, {1e8, 1, -1e8}), {0}),
              {1.0}, "f32 cancellation");
  // Row-major order of the reduced elements: [[[2^60, 1]], [[-2^60, 0]]]
  // reduced over axes (0, 2) adds 2^60, 1, -2^60, 0 in that order; in f64
  // 2^60 + 1 == 2^60, so the sum is 0 (in the order 2^60, -2^60, 1, 0 it
  // would be 1).
  expectExact(reduceOp(R::Sum,
                       make(DType::F32, {2, 1, 2}, {0x1p60, 1, -0x1p60, 0}),
                       {0, 2}),
              {0.0}, "row-major order");
  // Integer sums wrap.
  expectInts(reduceOp(R::Sum, makeI32({2}, {kI32Max, 1}), {0}), {kI32Min},
             "i32 wrap");
  expectInts(reduceOp(R::Sum, makeI32({3}, {kI32Max, 1, -1}), {0}), {kI32Max},
             "i32 wrap back");
  expectInts(
      reduceOp(R::Sum, makeI32({4}, {kI32Min, kI32Min, kI32Min, 5}), {0}),
      {int64_t(int32_t(uint32_t(5) + 3u * 0x80000000u))}, "i32 wrap 3x");
  expectInts(reduceOp(R::Sum, makeI64({2}, {kI64Max, 1}), {0}), {kI64Min},
             "i64 wrap");
  int64_t big = (int64_t(1) << 53) + 1;
  expectInts(reduceOp(R::Sum, makeI64({2}, {big, big}), {0}), {2 * big},
             "i64 exact");
  expectInts(reduceOp(R::Max, makeI64({3}, {big - 1, big, kI64Min}), {0}),
             {big}, "i64 max");
  expectInts(reduceOp(R::Min, makeI32({3}, {kI32Max, -7, 3}), {0}), {-7},
             "i32 min");
}

TEST(KernelsTest, ReduceRandomVsNaive) {
  using R = k::ReduceKind;
  std::mt19937 rng(17);
  for (int iter = 0; iter < 300; ++iter) {
    DType t = std::vector<DType>{DType::F32, DType::F16, DType::BF16,
                                 DType::I32, DType::I64}[iter % 5];
    R kind = R((iter / 5) % 4);
    if (!isFloat(t) && kind == R::Mean)
      kind = R::Sum;
    Shape shape = randomShape(rng, 0, 4, 5, true);
    std::vector<int64_t> axes;
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      if (rng() % 2)
        axes.push_back(d);
    Buffer x = randomBuffer(rng, t, shape);
    Buffer got = reduceOp(kind, x, axes);
    // Naive: for every output element, visit the reduced elements in
    // row-major order; f64 accumulation from -0 for sums (the identity),
    // IEEE maximum/minimum for extrema, a single rounding at the end.
    Shape outShape = got.shape();
    Shape red;
    for (int64_t d : axes)
      red.push_back(shape[d]);
    int64_t count = numElements(red);
    for (int64_t o = 0; o < got.numElements(); ++o) {
      std::vector<int64_t> oi = unravel(o, outShape);
      double acc = kind == R::Max ? -kInf : kind == R::Min ? kInf : -0.0;
      uint64_t iacc = 0;
      int64_t imax = t == DType::I32 ? kI32Min : kI64Min;
      int64_t imin = t == DType::I32 ? kI32Max : kI64Max;
      for (int64_t r = 0; r < count; ++r) {
        std::vector<int64_t> ri = unravel(r, red), idx(shape.size());
        size_t po = 0, pr = 0;
        for (int64_t d = 0; d < int64_t(shape.size()); ++d)
          idx[d] = std::find(axes.begin(), axes.end(), d) != axes.end()
                       ? ri[pr++]
                       : oi[po++];
        int64_t flat = ravel(idx, shape);
        if (isFloat(t)) {
          double v = valueAt(x, flat);
          if (kind == R::Max)
            acc = refFloatBinary(k::BinaryKind::Max, float(acc), float(v));
          else if (kind == R::Min)
            acc = refFloatBinary(k::BinaryKind::Min, float(acc), float(v));
          else
            acc += v;
        } else {
          int64_t v = intAt(x, flat);
          iacc += uint64_t(v);
          imax = std::max(imax, v);
          imin = std::min(imin, v);
        }
      }
      std::string what = std::string(dtypeName(t)) + " kind " +
                         std::to_string(int(kind)) + " " + str(shape) +
                         " element " + std::to_string(o);
      if (isFloat(t)) {
        if (kind == R::Sum && count == 0)
          acc = 0.0;
        if (kind == R::Mean)
          acc = acc / double(count);
        double want = t == DType::F32   ? double(float(acc))
                      : t == DType::F16 ? refHalfToDouble(refRoundToHalf(acc))
                                        : refBF16ToDouble(refRoundToBF16(acc));
        ASSERT_TRUE(sameFloat(valueAt(got, o), want)) << what;
      } else {
        int64_t want = kind == R::Max    ? imax
                       : kind == R::Min  ? imin
                       : t == DType::I32 ? int64_t(int32_t(uint32_t(iacc)))
                                         : int64_t(iacc);
        ASSERT_EQ(intAt(got, o), want) << what;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// Naive batched matmul: products and sums in f64 (exact products for the
/// 16/32-bit float inputs), summed over k in order, rounded once; integers
/// in wrapping u64 arithmetic.
Buffer naiveMatmul(const Buffer &a, const Buffer &b) {
  const Shape &sa = a.shape(), &sb = b.shape();
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = broadcastShape({ba, bb});
  int64_t m = sa[sa.size() - 2], kk = sa.back(), n = sb.back();
  Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Buffer out = alloc(a.dtype(), outShape);
  for (int64_t bi = 0; bi < numElements(batch); ++bi) {
    std::vector<int64_t> idx = unravel(bi, batch);
    int64_t offA = broadcastSource(idx, ba) * m * kk;
    int64_t offB = broadcastSource(idx, bb) * kk * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t o = bi * m * n + i * n + j;
        if (isFloat(a.dtype())) {
          double acc = kk ? -0.0 : 0.0;
          for (int64_t p = 0; p < kk; ++p)
            acc += valueAt(a, offA + i * kk + p) * valueAt(b, offB + p * n + j);
          if (a.dtype() == DType::F32)
            out.as<float>()[o] = float(acc);
          else if (a.dtype() == DType::F16)
            out.as<uint16_t>()[o] = refRoundToHalf(acc);
          else
            out.as<uint16_t>()[o] = refRoundToBF16(acc);
        } else {
          uint64_t acc = 0;
          for (int64_t p = 0; p < kk; ++p)
            acc += uint64_t(intAt(a, offA + i * kk + p)) *
                   uint64_t(intAt(b, offB + p * n + j));
          if (a.dtype() == DType::I32)
            out.as<int32_t>()[o] = int32_t(uint32_t(acc));
          else
            out.as<int64_t>()[o] = int64_t(acc);
        }
      }
  }
  return out;
}

TEST(KernelsTest, MatmulByHand) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]].
  for (DType t :
       {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64}) {
    Buffer r = matmulOp(make(t, {2, 3}, {1, 2, 3, 4, 5, 6}),
                        make(t, {3, 2}, {7, 8, 9, 10, 11, 12}));
    EXPECT_EQ(r.shape(), (Shape{2, 2}));
    expectExact(r, {58, 64, 139, 154}, std::string(dtypeName(t)));
  }
  // K = 0: zeros (+0), even into a poisoned buffer.
  for (DType t : {DType::F32, DType::F16, DType::I32}) {
    Buffer out = alloc(t, {2, 3});
    poison(out);
    k::matmul(alloc(t, {2, 0}), alloc(t, {0, 3}), out);
    expectExact(out, {0, 0, 0, 0, 0, 0}, "K=0");
  }
  // M = 0 / N = 0 / empty batch: nothing to do, no crash.
  EXPECT_EQ(matmulOp(alloc(DType::F32, {0, 3}), alloc(DType::F32, {3, 2}))
                .numElements(),
            0);
  EXPECT_EQ(matmulOp(alloc(DType::F32, {2, 3}), alloc(DType::F32, {3, 0}))
                .numElements(),
            0);
  EXPECT_EQ(
      matmulOp(alloc(DType::F32, {0, 2, 3}), alloc(DType::F32, {3, 2})).shape(),
      (Shape{0, 2, 2}));
  // f16 rounds once: [1,1,1] . [2048,1,1] = 2050 (exact in f16, 0x6801); a
  // running f16 sum would give 2048 + 1 -> 2048, + 1 -> 2048.
  expectBits16(matmulOp(make(DType::F16, {1, 3}, {1, 1, 1}),
                        make(DType::F16, {3, 1}, {2048, 1, 1})),
               {0x6801}, "f16 single rounding");
  // bf16: [1,1,1] . [256,1,1] = 258 (0x4381); running bf16 sum: 256.
  expectBits16(matmulOp(make(DType::BF16, {1, 3}, {1, 1, 1}),
                        make(DType::BF16, {3, 1}, {256, 1, 1})),
               {0x4381}, "bf16 single rounding");
  // f16 products beyond the f16 range are fine in f64: 256*256 - 256*256 = 0.
  expectExact(matmulOp(make(DType::F16, {1, 2}, {256, 256}),
                       make(DType::F16, {2, 1}, {256, -256})),
              {0.0}, "f16 no intermediate overflow");
  // Integers wrap: 65536 * 65536 + 5 = 2^32 + 5 -> 5 in i32;
  // 2^62 * 4 + 7 = 2^64 + 7 -> 7 in i64.
  expectInts(matmulOp(makeI32({1, 2}, {65536, 1}), makeI32({2, 1}, {65536, 5})),
             {5}, "i32 wrap");
  expectInts(
      matmulOp(makeI64({1, 2}, {int64_t(1) << 62, 1}), makeI64({2, 1}, {4, 7})),
      {7}, "i64 wrap");
  // Batched, batch dims broadcast: [2,1,2,2] x [3,2,2] -> [2,3,2,2], vs
  // identity-like hand values: a[i] = [[i+1, 0], [0, i+1]] scales b[j].
  Buffer a = make(DType::F32, {2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  Buffer b =
      make(DType::F32, {3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Buffer r = matmulOp(a, b);
  EXPECT_EQ(r.shape(), (Shape{2, 3, 2, 2}));
  expectExact(r, {1, 2, 3, 4, 5,  6,  7,  8,  9,  10, 11, 12,
                  2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24},
              "batched");
}

TEST(KernelsTest, MatmulRandomVsNaive) {
  std::mt19937 rng(31);
  const DType types[] = {DType::F32, DType::F16, DType::BF16, DType::I32,
                         DType::I64};
  for (int iter = 0; iter < 150; ++iter) {
    DType t = types[iter % 5];
    Shape batch = randomShape(rng, 0, 3, 3, true);
    Shape ba = randomOperandShape(rng, batch),
          bb = randomOperandShape(rng, batch);
    int64_t m = int64_t(rng() % 5), kk = int64_t(rng() % 6),
            n = int64_t(rng() % 5);
    if (rng() % 4 == 0) { // larger, to cover longer inner loops
      m = 7;
      kk = 33;
      n = 9;
    }
    Shape sa = ba, sb = bb;
    sa.push_back(m);
    sa.push_back(kk);
    sb.push_back(kk);
    sb.push_back(n);
    Buffer a = randomBuffer(rng, t, sa), b = randomBuffer(rng, t, sb);
    Buffer got = matmulOp(a, b);
    expectSameValues(got, naiveMatmul(a, b),
                     std::string(dtypeName(t)) + " " + str(sa) + " x " +
                         str(sb));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

} // namespace

namespace {

// The known-answer vectors of Philox 4x32-10 published with Random123
// (kat_vectors: counter, key -> output).
TEST(KernelsTest, PhiloxKnownAnswers) {
  struct Vector {
    PhiloxCounter counter;
    PhiloxKey key;
    PhiloxCounter expected;
  } vectors[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Vector &v : vectors)
    EXPECT_EQ(philox4x32(v.counter, v.key), v.expected);
}

// randomUniform lays the words out as the dialect documents: element i is
// word i % 4 of block i / 4 (counter (i / 4, 0, step, 0), key (seed,
// stream)), its top 24 bits scaled by 2^-24.
TEST(KernelsTest, RandomUniformLayout) {
  Buffer key = Buffer::allocate(DType::I32, {2});
  key.as<int32_t>()[0] = -7; // 0xfffffff9 as the seed
  key.as<int32_t>()[1] = 12; // the step
  Buffer out = Buffer::allocate(DType::F32, {3, 3});
  k::randomUniform(key, 0x1234, out);
  for (int64_t i = 0; i < 9; ++i) {
    PhiloxCounter words =
        philox4x32({uint32_t(i / 4), 0, 12, 0}, {0xfffffff9u, 0x1234});
    float want = std::ldexp(float(words[size_t(i % 4)] >> 8), -24);
    EXPECT_EQ(out.as<float>()[i], want) << "element " << i;
    EXPECT_GE(out.as<float>()[i], 0.0f);
    EXPECT_LT(out.as<float>()[i], 1.0f);
  }
  // A tensor's numbers are uniform: the mean of 2^16 of them is 1/2 within
  // five standard deviations (1 / sqrt(12 * 2^16)), and a quarter of them
  // fall below 1/4 (binomial, within five standard deviations).
  Buffer many = Buffer::allocate(DType::F32, {1 << 16});
  k::randomUniform(key, 3, many);
  double sum = 0;
  int64_t below = 0;
  for (int64_t i = 0; i < many.numElements(); ++i) {
    sum += many.as<float>()[i];
    below += many.as<float>()[i] < 0.25f;
  }
  double n = double(many.numElements());
  EXPECT_NEAR(sum / n, 0.5, 5 / std::sqrt(12 * n));
  EXPECT_NEAR(double(below), n / 4, 5 * std::sqrt(n * 0.25 * 0.75));
}

} // namespace
