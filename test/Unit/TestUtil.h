//===- TestUtil.h - Shared helpers of the unit tests ------------*- C++ -*-===//
//
// Tolerances (defined once, here), reference conversions for the 16-bit float
// formats written independently of fusec/Support/Float16.h (plain exact
// arithmetic on doubles), and helpers to build and inspect Buffers.
//
// Expected values in the tests never come from the code under test: buffers
// of f16/bf16 are filled through refRoundToHalf/refRoundToBF16 below, and
// read back through refHalfToDouble/refBF16ToDouble.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_TEST_UNIT_TESTUTIL_H
#define FUSEC_TEST_UNIT_TESTUTIL_H

#include "fusec/Support/Buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace fusec::test {

//===----------------------------------------------------------------------===//
// Tolerances
//===----------------------------------------------------------------------===//

/// |actual - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double rtol;
  double atol;
};

inline constexpr Tolerance kF32Tol{1.3e-6, 1e-5};
// f64 computes in f64: a few ulps of 2^-52 for libm's transcendental
// functions.
inline constexpr Tolerance kF64Tol{1e-13, 1e-300};
inline constexpr Tolerance kF16Tol{1e-3, 1e-5};
inline constexpr Tolerance kBF16Tol{1.6e-2, 1e-5};
// Long chains. Generated kernels keep f16/bf16 values in f32 registers
// through a fusion and round once at the store, where the interpreter rounds
// after every operation: after k operations the two differ by about k
// roundings of the type, more where a subtraction cancels (the atol, for
// inputs of magnitude up to ~8). Used by test/Codegen (which reads them
// from this file).
inline constexpr Tolerance kF16ChainTol{1e-2, 1e-2};
inline constexpr Tolerance kBF16ChainTol{6.25e-2, 6.25e-2};
// A whole f32 model run after fusec-mixed-precision, against the f32 run,
// on inputs of its ordinary range (issue: f16 rtol 1e-2 / atol 1e-3, bf16
// rtol 3e-2 / atol 1e-2). Used by test/Transforms (which reads them from
// this file).
inline constexpr Tolerance kMixedF16Tol{1e-2, 1e-3};
inline constexpr Tolerance kMixedBF16Tol{3e-2, 1e-2};
// A model run on a GPU against the interpreter (bench/gpu/run.py), f32
// outputs: cuBLASLt adds a product's K terms in its own order (about
// sqrt(K) ulps at K = 1024) and CUDA's expf, logf, tanhf... are within 2
// ulps where the host's are within 1. f16/bf16 outputs use the chain
// tolerances above. The cpu device's matmuls (oneDNN's order) use the same,
// with atol relative to the output's largest magnitude (test/Codegen).
inline constexpr Tolerance kGpuF32Tol{1e-5, 1e-5};
// f64 outputs on a GPU: CUDA's double-precision exp, log, tanh... are within
// 2 ulps, the host's within 1, and reductions add in a tree order.
inline constexpr Tolerance kGpuF64Tol{1e-12, 1e-12};

inline Tolerance toleranceFor(DType t) {
  switch (t) {
  case DType::F16:
    return kF16Tol;
  case DType::BF16:
    return kBF16Tol;
  case DType::F64:
    return kF64Tol;
  default:
    return kF32Tol;
  }
}

//===----------------------------------------------------------------------===//
// Reference conversions (independent of Float16.h)
//===----------------------------------------------------------------------===//

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

/// Value of binary16 bits: (1024 + m) * 2^(e - 25), or m * 2^-24 when e == 0.
inline double refHalfToDouble(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  int m = h & 0x3ff;
  double v;
  if (e == 0x1f)
    v = m ? std::numeric_limits<double>::quiet_NaN()
          : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(double(m), -24);
  else
    v = std::ldexp(double(1024 + m), e - 25);
  return (h & 0x8000) ? -v : v;
}

/// Value of bfloat16 bits: (128 + m) * 2^(e - 134), or m * 2^-133 when e == 0.
inline double refBF16ToDouble(uint16_t b) {
  int e = (b >> 7) & 0xff;
  int m = b & 0x7f;
  double v;
  if (e == 0xff)
    v = m ? std::numeric_limits<double>::quiet_NaN()
          : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(double(m), -133);
  else
    v = std::ldexp(double(128 + m), e - 134);
  return (b & 0x8000) ? -v : v;
}

/// Rounds a non-negative `a` to a multiple of `quantum` (a power of two),
/// ties to even. a / quantum is exact (power-of-two scaling), and so are the
/// floor and the fraction.
inline double refRoundToQuantum(double a, double quantum) {
  double n = a / quantum;
  double fl = std::floor(n);
  double frac = n - fl;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0.0))
    fl += 1.0;
  return fl * quantum;
}

/// Correctly rounded (to nearest, ties to even) binary16 encoding of `x`.
/// NaN gives the canonical quiet NaN with the sign of `x`.
inline uint16_t refRoundToHalf(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return sign | 0x7e00;
  double a = std::fabs(x);
  // Largest half is 65504 = (2 - 2^-10) * 2^15; values from the midpoint to
  // the next (nonexistent) binade, 65520, up round to infinity.
  if (a >= 65520.0)
    return sign | 0x7c00;
  double quantum;
  if (a < 0x1p-14) {
    quantum = 0x1p-24; // subnormal spacing
  } else {
    int e;
    std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1): a in [2^(e-1), 2^e)
    quantum = std::ldexp(1.0, e - 1 - 10);
  }
  double r = refRoundToQuantum(a, quantum);
  if (r < 0x1p-14)
    return sign | uint16_t(r / 0x1p-24);
  int e;
  double m = std::frexp(r, &e);
  int exponent = e - 1; // r in [2^exponent, 2^(exponent+1))
  uint16_t mant = uint16_t((m * 2.0 - 1.0) * 1024.0);
  return sign | uint16_t((exponent + 15) << 10) | mant;
}

/// Correctly rounded bfloat16 encoding of `x` (NaN: quiet NaN with the sign).
inline uint16_t refRoundToBF16(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return sign | 0x7fc0;
  double a = std::fabs(x);
  // Largest bf16 is (2 - 2^-7) * 2^127; the midpoint to 2^128 is
  // (2 - 2^-8) * 2^127.
  if (a >= std::ldexp(2.0 - 0x1p-8, 127))
    return sign | 0x7f80;
  double quantum;
  if (a < 0x1p-126) {
    quantum = 0x1p-133;
  } else {
    int e;
    std::frexp(a, &e);
    quantum = std::ldexp(1.0, e - 1 - 7);
  }
  double r = refRoundToQuantum(a, quantum);
  if (r < 0x1p-126)
    return sign | uint16_t(r / 0x1p-133);
  int e;
  double m = std::frexp(r, &e);
  int exponent = e - 1;
  uint16_t mant = uint16_t((m * 2.0 - 1.0) * 128.0);
  return sign | uint16_t((exponent + 127) << 7) | mant;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

inline Buffer alloc(DType t, Shape shape) {
  std::string error;
  Buffer b = Buffer::allocate(t, std::move(shape), &error);
  EXPECT_TRUE(bool(b)) << error;
  return b;
}

/// A buffer of `t` holding `values` in row-major order: floats rounded to
/// nearest even with the reference conversions, integers converted from
/// double (so keep integers within +-2^53 here; see makeI64), i1 as x != 0.
inline Buffer make(DType t, Shape shape, const std::vector<double> &values) {
  Buffer b = alloc(t, std::move(shape));
  EXPECT_EQ(size_t(b.numElements()), values.size());
  for (size_t i = 0; i < values.size() && i < size_t(b.numElements()); ++i) {
    double v = values[i];
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
      b.as<uint8_t>()[i] = v != 0.0;
      break;
    case DType::I32:
      b.as<int32_t>()[i] = int32_t(v);
      break;
    case DType::I64:
      b.as<int64_t>()[i] = int64_t(v);
      break;
    case DType::F64:
      b.as<double>()[i] = v;
      break;
    }
  }
  return b;
}

inline Buffer makeF32(Shape shape, const std::vector<float> &values) {
  Buffer b = alloc(DType::F32, std::move(shape));
  EXPECT_EQ(size_t(b.numElements()), values.size());
  std::memcpy(b.data(), values.data(),
              std::min(values.size(), size_t(b.numElements())) * 4);
  return b;
}

/// f16 or bf16 buffer from raw bit patterns.
inline Buffer makeBits16(DType t, Shape shape,
                         const std::vector<uint16_t> &bits) {
  Buffer b = alloc(t, std::move(shape));
  EXPECT_EQ(size_t(b.numElements()), bits.size());
  std::memcpy(b.data(), bits.data(),
              std::min(bits.size(), size_t(b.numElements())) * 2);
  return b;
}

inline Buffer makeI32(Shape shape, const std::vector<int32_t> &values) {
  Buffer b = alloc(DType::I32, std::move(shape));
  EXPECT_EQ(size_t(b.numElements()), values.size());
  std::memcpy(b.data(), values.data(),
              std::min(values.size(), size_t(b.numElements())) * 4);
  return b;
}

inline Buffer makeI64(Shape shape, const std::vector<int64_t> &values) {
  Buffer b = alloc(DType::I64, std::move(shape));
  EXPECT_EQ(size_t(b.numElements()), values.size());
  std::memcpy(b.data(), values.data(),
              std::min(values.size(), size_t(b.numElements())) * 8);
  return b;
}

/// Element `i` as a double, decoded independently of the code under test.
inline double valueAt(const Buffer &b, int64_t i) {
  switch (b.dtype()) {
  case DType::F32:
    return b.as<float>()[i];
  case DType::F16:
    return refHalfToDouble(b.as<uint16_t>()[i]);
  case DType::BF16:
    return refBF16ToDouble(b.as<uint16_t>()[i]);
  case DType::I1:
    return b.as<uint8_t>()[i];
  case DType::I32:
    return b.as<int32_t>()[i];
  case DType::I64:
    return double(b.as<int64_t>()[i]);
  case DType::F64:
    return b.as<double>()[i];
  }
  return 0;
}

/// Raw bits of element `i`, zero-extended.
inline uint64_t rawAt(const Buffer &b, int64_t i) {
  uint64_t u = 0;
  size_t size = dtypeSize(b.dtype());
  std::memcpy(&u, static_cast<const char *>(b.data()) + size_t(i) * size, size);
  return u;
}

/// Integer element `i` (i1, i32, i64), sign extended.
inline int64_t intAt(const Buffer &b, int64_t i) {
  switch (b.dtype()) {
  case DType::I1:
    return b.as<uint8_t>()[i];
  case DType::I32:
    return b.as<int32_t>()[i];
  case DType::I64:
    return b.as<int64_t>()[i];
  default:
    ADD_FAILURE() << "intAt on a float buffer";
    return 0;
  }
}

inline std::vector<double> values(const Buffer &b) {
  std::vector<double> v;
  for (int64_t i = 0; i < b.numElements(); ++i)
    v.push_back(valueAt(b, i));
  return v;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

inline std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  if (v == 0 && std::signbit(v))
    os << " (-0)";
  return os.str();
}

/// Exact equality of float values: NaN matches only NaN, zeros must agree in
/// sign, everything else must be equal.
inline ::testing::AssertionResult sameFloat(double actual, double expected) {
  if (std::isnan(expected)) {
    if (std::isnan(actual))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "expected NaN, got " << show(actual);
  }
  if (actual == expected && std::signbit(actual) == std::signbit(expected))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << show(expected) << ", got " << show(actual);
}

/// Closeness within `tol`; NaN matches only NaN, infinities match exactly.
inline ::testing::AssertionResult closeFloat(double actual, double expected,
                                             Tolerance tol) {
  if (std::isnan(expected) || std::isinf(expected) || std::isnan(actual) ||
      std::isinf(actual))
    return sameFloat(actual, expected);
  double bound = tol.atol + tol.rtol * std::fabs(expected);
  if (std::fabs(actual - expected) <= bound)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << show(expected) << ", got " << show(actual)
         << " (difference " << std::fabs(actual - expected) << " > " << bound
         << ")";
}

/// Every element equals `expected` exactly (floats: sameFloat, so -0 != +0
/// and NaN == NaN; integers: value equality).
inline void expectExact(const Buffer &b, const std::vector<double> &expected,
                        const std::string &what = "") {
  ASSERT_EQ(size_t(b.numElements()), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(sameFloat(valueAt(b, int64_t(i)), expected[i]))
        << what << " element " << i << " (" << dtypeName(b.dtype()) << ")";
}

/// Every element is within the tolerance of its dtype.
inline void expectClose(const Buffer &b, const std::vector<double> &expected,
                        const std::string &what = "") {
  ASSERT_EQ(size_t(b.numElements()), expected.size()) << what;
  Tolerance tol = toleranceFor(b.dtype());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(closeFloat(valueAt(b, int64_t(i)), expected[i], tol))
        << what << " element " << i << " (" << dtypeName(b.dtype()) << ")";
}

inline void expectInts(const Buffer &b, const std::vector<int64_t> &expected,
                       const std::string &what = "") {
  ASSERT_EQ(size_t(b.numElements()), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(intAt(b, int64_t(i)), expected[i])
        << what << " element " << i << " (" << dtypeName(b.dtype()) << ")";
}

/// Raw 16-bit patterns of an f16/bf16 buffer.
inline void expectBits16(const Buffer &b, const std::vector<uint16_t> &bits,
                         const std::string &what = "") {
  ASSERT_EQ(size_t(b.numElements()), bits.size()) << what;
  for (size_t i = 0; i < bits.size(); ++i)
    EXPECT_EQ(b.as<uint16_t>()[i], bits[i])
        << what << " element " << i << " (" << dtypeName(b.dtype()) << ")";
}

/// Same dtype, shape and raw bits (NaN payloads included).
inline void expectSameBuffer(const Buffer &actual, const Buffer &expected,
                             const std::string &what = "") {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < expected.numElements(); ++i)
    EXPECT_EQ(rawAt(actual, i), rawAt(expected, i))
        << what << " element " << i << " (" << dtypeName(actual.dtype()) << ")";
}

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_TESTUTIL_H
