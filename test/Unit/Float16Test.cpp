//===- Float16Test.cpp - Tests of the binary16/bfloat16 conversions -------===//
//
// Expected encodings are derived by hand from the IEEE 754 formats (each
// case says how), or come from the reference conversions in TestUtil.h,
// which are exact arithmetic on doubles written without looking at
// Float16.h:
//
//   binary16:  (-1)^s * (1024 + m) * 2^(e - 25), e in 1..30; m * 2^-24 if e=0
//   bfloat16:  (-1)^s * (128 + m)  * 2^(e - 134), e in 1..254; m * 2^-133
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/Float16.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>

using namespace fusec;
using namespace fusec::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool isHalfNaN(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
bool isBF16NaN(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }

float up(float f) { return std::nextafter(f, kInf); }
float down(float f) { return std::nextafter(f, -kInf); }

//===----------------------------------------------------------------------===//
// Exhaustive widening and round trips
//===----------------------------------------------------------------------===//

TEST(Float16Test, HalfToFloatAllPatterns) {
  for (uint32_t i = 0; i < 0x10000; ++i) {
    uint16_t h = uint16_t(i);
    float f = halfToFloat(h);
    if (isHalfNaN(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      ASSERT_EQ(std::signbit(f), bool(h & 0x8000)) << std::hex << h;
      ASSERT_TRUE(bitsOf(f) & 0x00400000u) << "not quiet: " << std::hex << h;
      continue;
    }
    ASSERT_TRUE(sameFloat(f, refHalfToDouble(h))) << std::hex << h;
  }
}

TEST(Float16Test, HalfRoundTripAllPatterns) {
  for (uint32_t i = 0; i < 0x10000; ++i) {
    uint16_t h = uint16_t(i);
    uint16_t back = floatToHalf(halfToFloat(h));
    uint16_t backD = doubleToHalf(double(halfToFloat(h)));
    if (isHalfNaN(h)) {
      for (uint16_t r : {back, backD}) {
        ASSERT_TRUE(isHalfNaN(r)) << std::hex << h << " -> " << r;
        ASSERT_EQ(r & 0x8000, h & 0x8000) << std::hex << h << " -> " << r;
        ASSERT_TRUE(r & 0x0200)
            << "not quiet: " << std::hex << h << " -> " << r;
      }
      continue;
    }
    ASSERT_EQ(back, h) << std::hex << h;
    ASSERT_EQ(backD, h) << std::hex << h;
    // The reference decoding goes back to the same bits too.
    ASSERT_EQ(floatToHalf(float(refHalfToDouble(h))), h) << std::hex << h;
  }
}

TEST(Float16Test, BF16ToFloatAndRoundTripAllPatterns) {
  for (uint32_t i = 0; i < 0x10000; ++i) {
    uint16_t b = uint16_t(i);
    float f = bf16ToFloat(b);
    uint16_t back = floatToBF16(f);
    uint16_t backD = doubleToBF16(double(f));
    if (isBF16NaN(b)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_EQ(std::signbit(f), bool(b & 0x8000)) << std::hex << b;
      for (uint16_t r : {back, backD}) {
        ASSERT_TRUE(isBF16NaN(r)) << std::hex << b << " -> " << r;
        ASSERT_EQ(r & 0x8000, b & 0x8000) << std::hex << b << " -> " << r;
        ASSERT_TRUE(r & 0x0040)
            << "not quiet: " << std::hex << b << " -> " << r;
      }
      continue;
    }
    ASSERT_TRUE(sameFloat(f, refBF16ToDouble(b))) << std::hex << b;
    ASSERT_EQ(back, b) << std::hex << b;
    ASSERT_EQ(backD, b) << std::hex << b;
  }
}

//===----------------------------------------------------------------------===//
// binary16 rounding, by hand
//===----------------------------------------------------------------------===//

// Around 1: half ulp is 2^-10, so 1 + 2^-11 is the midpoint of 0x3c00 (1)
// and 0x3c01 (1 + 2^-10); 1 + 3*2^-11 the midpoint of 0x3c01 and 0x3c02.
TEST(Float16Test, HalfTiesToEvenNormal) {
  float tieDown = 1.0f + 0x1p-11f;   // -> even 0x3c00
  float tieUp = 1.0f + 3 * 0x1p-11f; // -> even 0x3c02
  EXPECT_EQ(floatToHalf(tieDown), 0x3c00);
  EXPECT_EQ(floatToHalf(tieUp), 0x3c02);
  EXPECT_EQ(floatToHalf(-tieDown), 0xbc00);
  EXPECT_EQ(floatToHalf(-tieUp), 0xbc02);
  // One float ulp either side of a tie decides it.
  EXPECT_EQ(floatToHalf(up(tieDown)), 0x3c01);
  EXPECT_EQ(floatToHalf(down(tieDown)), 0x3c00);
  EXPECT_EQ(floatToHalf(down(tieUp)), 0x3c01);
  EXPECT_EQ(floatToHalf(up(tieUp)), 0x3c02);
  EXPECT_EQ(floatToHalf(-up(tieDown)), 0xbc01);
  EXPECT_EQ(floatToHalf(-down(tieUp)), 0xbc01);
  // Integers in [2048, 4096) have a spacing of 2 (0x6800 = 2048):
  // 2049 -> 2048, 2051 -> 2052, 2050 exact.
  EXPECT_EQ(floatToHalf(2049.0f), 0x6800);
  EXPECT_EQ(floatToHalf(2050.0f), 0x6801);
  EXPECT_EQ(floatToHalf(2051.0f), 0x6802);
  EXPECT_EQ(floatToHalf(-2051.0f), 0xe802);
  // In [32768, 65536) the spacing is 32 (0x7800 = 32768).
  EXPECT_EQ(floatToHalf(32768.0f + 16), 0x7800);
  EXPECT_EQ(floatToHalf(32768.0f + 48), 0x7802);
  EXPECT_EQ(floatToHalf(32768.0f + 17), 0x7801);
  // A tie whose rounding carries into the exponent: 2 - 2^-11 lies between
  // 0x3fff (2 - 2^-10 = 1.9990234375) and 2 (0x4000); even is 0x4000.
  EXPECT_EQ(floatToHalf(2.0f - 0x1p-11f), 0x4000);
  EXPECT_EQ(floatToHalf(down(2.0f - 0x1p-11f)), 0x3fff);
}

// Subnormal halves are k * 2^-24, k = 0..1023; 0x0400 = 1024 * 2^-24 = 2^-14
// is the smallest normal, with the same spacing.
TEST(Float16Test, HalfTiesToEvenSubnormal) {
  const float q = 0x1p-24f;
  EXPECT_EQ(floatToHalf(1.5f * q), 0x0002);
  EXPECT_EQ(floatToHalf(2.5f * q), 0x0002);
  EXPECT_EQ(floatToHalf(3.5f * q), 0x0004);
  EXPECT_EQ(floatToHalf(1022.5f * q), 0x03fe);
  EXPECT_EQ(floatToHalf(-2.5f * q), 0x8002);
  EXPECT_EQ(floatToHalf(-3.5f * q), 0x8004);
  // Largest subnormal (1023 q) vs smallest normal (1024 q): the tie goes to
  // the even 1024, i.e. the smallest normal.
  EXPECT_EQ(floatToHalf(1023.5f * q), 0x0400);
  EXPECT_EQ(floatToHalf(-1023.5f * q), 0x8400);
  EXPECT_EQ(floatToHalf(down(1023.5f * q)), 0x03ff);
  EXPECT_EQ(floatToHalf(up(1023.5f * q)), 0x0400);
  EXPECT_EQ(floatToHalf(1023.0f * q), 0x03ff);
  EXPECT_EQ(floatToHalf(0x1p-14f), 0x0400);
  // Just above the smallest normal: 2^-14 + q/2 -> 0x0400, + 3q/2 -> 0x0402.
  EXPECT_EQ(floatToHalf(0x1p-14f + 0.5f * q), 0x0400);
  EXPECT_EQ(floatToHalf(0x1p-14f + 1.5f * q), 0x0402);
  EXPECT_EQ(floatToHalf(up(0x1p-14f + 0.5f * q)), 0x0401);
  EXPECT_EQ(floatToHalf(down(1.5f * q)), 0x0001);
  EXPECT_EQ(floatToHalf(up(2.5f * q)), 0x0003);
}

TEST(Float16Test, HalfOverflow) {
  // 65504 = (2 - 2^-10) * 2^15 = 0x7bff is the largest half; the spacing
  // there is 32, so 65520 is the midpoint to 2^16 and rounds (to even) up to
  // infinity, while everything below it comes back to 65504.
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(floatToHalf(down(65520.0f)), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(floatToHalf(-65520.0f), 0xfc00);
  EXPECT_EQ(floatToHalf(-down(65520.0f)), 0xfbff);
  EXPECT_EQ(floatToHalf(65536.0f), 0x7c00);
  EXPECT_EQ(floatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalf(FLT_MAX), 0x7c00);
  EXPECT_EQ(floatToHalf(-FLT_MAX), 0xfc00);
  EXPECT_EQ(floatToHalf(kInf), 0x7c00);
  EXPECT_EQ(floatToHalf(-kInf), 0xfc00);
}

TEST(Float16Test, HalfUnderflowAndSignedZero) {
  // Half of the smallest subnormal (2^-24) is 2^-25: a tie between 0 (even)
  // and 0x0001.
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);
  EXPECT_EQ(floatToHalf(-0x1p-25f), 0x8000);
  EXPECT_EQ(floatToHalf(up(0x1p-25f)), 0x0001);
  EXPECT_EQ(floatToHalf(-up(0x1p-25f)), 0x8001);
  EXPECT_EQ(floatToHalf(down(0x1p-25f)), 0x0000);
  EXPECT_EQ(floatToHalf(0x1p-26f), 0x0000);
  EXPECT_EQ(floatToHalf(-0x1p-26f), 0x8000);
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::denorm_min()), 0x8000);
  EXPECT_EQ(floatToHalf(FLT_MIN), 0x0000);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_TRUE(sameFloat(halfToFloat(0x8000), -0.0));
  EXPECT_TRUE(sameFloat(halfToFloat(0x0000), 0.0));
}

TEST(Float16Test, HalfNaN) {
  // Quiet, signalling (payload only in low bits, which half cannot hold: it
  // must not turn into infinity), negative.
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0xffc00000u,
                        0xff800001u, 0x7fffffffu}) {
    uint16_t h = floatToHalf(floatOf(bits));
    EXPECT_TRUE(isHalfNaN(h)) << std::hex << bits << " -> " << h;
    EXPECT_TRUE(h & 0x0200) << "not quiet: " << std::hex << bits;
    EXPECT_EQ(bool(h & 0x8000), bool(bits & 0x80000000u)) << std::hex << bits;
    uint16_t hd = doubleToHalf(double(floatOf(bits)));
    EXPECT_TRUE(isHalfNaN(hd)) << std::hex << bits << " -> " << hd;
    EXPECT_EQ(bool(hd & 0x8000), bool(bits & 0x80000000u)) << std::hex << bits;
  }
  // Signalling half NaN widens to a quiet float NaN.
  EXPECT_TRUE(bitsOf(halfToFloat(0x7c01)) & 0x00400000u);
  EXPECT_TRUE(std::isnan(halfToFloat(0xfc01)));
  EXPECT_TRUE(std::signbit(halfToFloat(0xfc01)));
}

//===----------------------------------------------------------------------===//
// bfloat16 rounding, by hand
//===----------------------------------------------------------------------===//

// bf16 keeps 7 fraction bits: around 1 the spacing is 2^-7, so 1 + 2^-8 is
// the midpoint of 0x3f80 and 0x3f81.
TEST(Float16Test, BF16TiesAndOverflow) {
  float tieDown = 1.0f + 0x1p-8f;   // -> 0x3f80 (even)
  float tieUp = 1.0f + 3 * 0x1p-8f; // -> 0x3f82 (even)
  EXPECT_EQ(floatToBF16(tieDown), 0x3f80);
  EXPECT_EQ(floatToBF16(tieUp), 0x3f82);
  EXPECT_EQ(floatToBF16(-tieUp), 0xbf82);
  EXPECT_EQ(floatToBF16(up(tieDown)), 0x3f81);
  EXPECT_EQ(floatToBF16(down(tieUp)), 0x3f81);
  EXPECT_EQ(floatToBF16(down(tieDown)), 0x3f80);
  // 256 + 1: spacing 2 in [256, 512) -> 256 (0x4380); 256 + 3 -> 260 (0x4382).
  EXPECT_EQ(floatToBF16(257.0f), 0x4380);
  EXPECT_EQ(floatToBF16(259.0f), 0x4382);
  // Carry into the exponent: 2 - 2^-8 is the midpoint of 0x3fff
  // (2 - 2^-7) and 2 (0x4000), which is even.
  EXPECT_EQ(floatToBF16(2.0f - 0x1p-8f), 0x4000);
  // Largest bf16 is 0x7f7f = (2 - 2^-7) * 2^127 (float bits 0x7f7f0000);
  // the midpoint to 2^128 is float 0x7f7f8000, which rounds to even = inf.
  // FLT_MAX (0x7f7fffff) lies above that midpoint: infinity.
  EXPECT_EQ(floatToBF16(floatOf(0x7f7f0000u)), 0x7f7f);
  EXPECT_EQ(floatToBF16(floatOf(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(floatToBF16(floatOf(0x7f7f8000u)), 0x7f80);
  EXPECT_EQ(floatToBF16(FLT_MAX), 0x7f80);
  EXPECT_EQ(floatToBF16(-FLT_MAX), 0xff80);
  EXPECT_EQ(floatToBF16(kInf), 0x7f80);
  EXPECT_EQ(floatToBF16(-kInf), 0xff80);
  // Subnormals: bf16 subnormal k has float bits k << 16; the float 0x8000
  // (= 2^-134) is the midpoint of 0 and 0x0001; 0x18000 that of 1 and 2.
  EXPECT_EQ(floatToBF16(floatOf(0x00008000u)), 0x0000);
  EXPECT_EQ(floatToBF16(floatOf(0x00008001u)), 0x0001);
  EXPECT_EQ(floatToBF16(floatOf(0x00018000u)), 0x0002);
  EXPECT_EQ(floatToBF16(floatOf(0x80008000u)), 0x8000);
  // Largest subnormal 0x007f vs smallest normal 0x0080: even is 0x0080.
  EXPECT_EQ(floatToBF16(floatOf(0x007f8000u)), 0x0080);
  EXPECT_EQ(floatToBF16(0.0f), 0x0000);
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  // NaN stays NaN, quiet, with its sign (0x7f800001 must not become inf).
  for (uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0xffc00000u}) {
    uint16_t b = floatToBF16(floatOf(bits));
    EXPECT_TRUE(isBF16NaN(b)) << std::hex << bits << " -> " << b;
    EXPECT_TRUE(b & 0x0040) << std::hex << bits;
    EXPECT_EQ(bool(b & 0x8000), bool(bits & 0x80000000u)) << std::hex << bits;
  }
}

//===----------------------------------------------------------------------===//
// double -> 16-bit: one rounding
//===----------------------------------------------------------------------===//

// A double that lies just off a half midpoint, closer to it than half a
// float ulp, first rounds to the midpoint itself when converted to float; a
// second rounding of that float to half then resolves the now exact tie to
// even, which can be the wrong neighbour. doubleToHalf must round once.
TEST(Float16Test, DoubleToHalfSingleRounding) {
  // d = 1 + 2^-11 + 2^-40: above the midpoint of 0x3c00/0x3c01, so the
  // correct result is 0x3c01. float(d) = 1 + 2^-11 (2^-40 is below half a
  // float ulp, 2^-24), and floatToHalf(1 + 2^-11) = 0x3c00.
  double d1 = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(double(float(d1)), 1.0 + 0x1p-11); // The hazard is real.
  EXPECT_EQ(doubleToHalf(d1), 0x3c01);
  EXPECT_EQ(doubleToHalf(-d1), 0xbc01);
  // d = 1 + 3*2^-11 - 2^-40: below the midpoint of 0x3c01/0x3c02 -> 0x3c01;
  // via float it would be the tie, rounded to even 0x3c02.
  double d2 = 1.0 + 3 * 0x1p-11 - 0x1p-40;
  EXPECT_EQ(double(float(d2)), 1.0 + 3 * 0x1p-11);
  EXPECT_EQ(doubleToHalf(d2), 0x3c01);
  // Subnormal: 2^-25 + 2^-60 is just above half the smallest subnormal, so it
  // rounds to 0x0001; float(d) = 2^-25 (the float ulp there is 2^-48), which
  // would round to 0.
  double d3 = 0x1p-25 + 0x1p-60;
  EXPECT_EQ(double(float(d3)), 0x1p-25);
  EXPECT_EQ(doubleToHalf(d3), 0x0001);
  EXPECT_EQ(doubleToHalf(-d3), 0x8001);
  // Just below the largest-subnormal/smallest-normal midpoint 1023.5 * 2^-24:
  // correct 0x03ff; via float the tie would give 0x0400.
  double d4 = 1023.5 * 0x1p-24 - 0x1p-60; // double ulp here: 2^-67
  EXPECT_EQ(double(float(d4)), 1023.5 * 0x1p-24);
  EXPECT_EQ(doubleToHalf(d4), 0x03ff);
  // Just below the overflow threshold 65520: correct 65504 (0x7bff); float(d)
  // is 65520 (float ulp 2^-8 there), which would overflow to infinity.
  double d5 = 65520.0 - 0x1p-30;
  EXPECT_EQ(double(float(d5)), 65520.0);
  EXPECT_EQ(doubleToHalf(d5), 0x7bff);
  EXPECT_EQ(doubleToHalf(-d5), 0xfbff);
  // Exact ties are still ties.
  EXPECT_EQ(doubleToHalf(1.0 + 0x1p-11), 0x3c00);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7c00);
  EXPECT_EQ(doubleToHalf(0x1p-25), 0x0000);
  // Far outside the float range.
  EXPECT_EQ(doubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(doubleToHalf(-1e300), 0xfc00);
  EXPECT_EQ(doubleToHalf(1e-300), 0x0000);
  EXPECT_EQ(doubleToHalf(-1e-300), 0x8000);
  EXPECT_EQ(doubleToHalf(0.0), 0x0000);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_TRUE(isHalfNaN(doubleToHalf(std::nan(""))));
  EXPECT_EQ(doubleToHalf(std::numeric_limits<double>::infinity()), 0x7c00);
}

TEST(Float16Test, DoubleToBF16SingleRounding) {
  // 1 + 2^-8 + 2^-40: above the midpoint of 0x3f80/0x3f81 -> 0x3f81; float(d)
  // is the midpoint, which would round to even 0x3f80.
  double d1 = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(double(float(d1)), 1.0 + 0x1p-8);
  EXPECT_EQ(doubleToBF16(d1), 0x3f81);
  // 1 + 3*2^-8 - 2^-40 -> 0x3f81 (via float: tie -> 0x3f82).
  double d2 = 1.0 + 3 * 0x1p-8 - 0x1p-40;
  EXPECT_EQ(double(float(d2)), 1.0 + 3 * 0x1p-8);
  EXPECT_EQ(doubleToBF16(d2), 0x3f81);
  EXPECT_EQ(doubleToBF16(-d2), 0xbf81);
  // Just below the overflow midpoint (2 - 2^-8) * 2^127: correct is the
  // largest bf16 0x7f7f; float(d) is the midpoint (float ulp 2^104 there,
  // 2^100 is less than half of it), which would become infinity.
  double d3 = std::ldexp(2.0 - 0x1p-8, 127) - 0x1p100;
  EXPECT_EQ(double(float(d3)), std::ldexp(2.0 - 0x1p-8, 127));
  EXPECT_EQ(doubleToBF16(d3), 0x7f7f);
  EXPECT_EQ(doubleToBF16(std::ldexp(2.0 - 0x1p-8, 127)), 0x7f80);
  // Beyond the float range: infinity (bf16 and float share the exponent
  // range); below it: signed zero.
  EXPECT_EQ(doubleToBF16(1e300), 0x7f80);
  EXPECT_EQ(doubleToBF16(-1e300), 0xff80);
  EXPECT_EQ(doubleToBF16(1e-300), 0x0000);
  EXPECT_EQ(doubleToBF16(-1e-300), 0x8000);
  // 2^-134 (midpoint of 0 and the smallest bf16 subnormal) + 2^-170 (the
  // double ulp at 2^-134 is 2^-186): above it, so 0x0001. float(d) is exactly
  // 2^-134 (a float subnormal, spacing 2^-149), a tie that would round to 0.
  double d4 = 0x1p-134 + 0x1p-170;
  EXPECT_EQ(double(float(d4)), 0x1p-134);
  EXPECT_EQ(doubleToBF16(d4), 0x0001);
  EXPECT_TRUE(isBF16NaN(doubleToBF16(-std::nan(""))));
  EXPECT_TRUE(doubleToBF16(-std::nan("")) & 0x8000);
}

//===----------------------------------------------------------------------===//
// Sweeps against the reference implementation
//===----------------------------------------------------------------------===//

void checkHalf(uint32_t bits) {
  float f = floatOf(bits);
  uint16_t got = floatToHalf(f);
  if (std::isnan(f)) {
    ASSERT_TRUE(isHalfNaN(got) && (got & 0x200) &&
                bool(got & 0x8000) == bool(bits >> 31))
        << std::hex << bits << " -> " << got;
    return;
  }
  uint16_t want = refRoundToHalf(double(f));
  ASSERT_EQ(got, want) << "float bits 0x" << std::hex << bits << " (" << show(f)
                       << ")";
}

void checkBF16(uint32_t bits) {
  float f = floatOf(bits);
  uint16_t got = floatToBF16(f);
  if (std::isnan(f)) {
    ASSERT_TRUE(isBF16NaN(got) && (got & 0x40) &&
                bool(got & 0x8000) == bool(bits >> 31))
        << std::hex << bits << " -> " << got;
    return;
  }
  uint16_t want = refRoundToBF16(double(f));
  ASSERT_EQ(got, want) << "float bits 0x" << std::hex << bits << " (" << show(f)
                       << ")";
}

TEST(Float16Test, FloatToHalfMatchesReference) {
  // Every exponent and sign, every value of the 10 mantissa bits half keeps,
  // with the 13 dropped bits at the interesting points (exact, just above
  // zero, just below/at/above the midpoint, all ones) and two random ones.
  std::mt19937 rng(12345);
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exp = 0; exp < 256; ++exp)
      for (uint32_t high = 0; high < 1024; ++high)
        for (uint32_t low :
             {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu,
              uint32_t(rng() & 0x1fff), uint32_t(rng() & 0x1fff)}) {
          checkHalf(sign << 31 | exp << 23 | high << 13 | low);
          if (::testing::Test::HasFatalFailure())
            return;
        }
  // Every positive float in [2^-26, 2^-13): the whole subnormal-half range
  // (where more than 13 bits are dropped) and the first normal binade, plus
  // the top binade [2^15, 2^16) where overflow happens, with all mantissas.
  for (uint32_t exp : {101u, 102u, 103u, 104u, 105u, 106u, 107u, 108u, 109u,
                       110u, 111u, 112u, 113u, 142u}) {
    for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
      uint32_t bits = exp << 23 | mant;
      if (floatToHalf(floatOf(bits)) != refRoundToHalf(double(floatOf(bits))))
        return checkHalf(bits); // Reports the failure.
    }
  }
  // Random bit patterns.
  for (int i = 0; i < 2000000; ++i) {
    checkHalf(uint32_t(rng()));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

TEST(Float16Test, FloatToBF16MatchesReference) {
  std::mt19937 rng(54321);
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exp = 0; exp < 256; ++exp)
      for (uint32_t high = 0; high < 128; ++high)
        for (uint32_t low :
             {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu,
              uint32_t(rng() & 0xffff), uint32_t(rng() & 0xffff)}) {
          checkBF16(sign << 31 | exp << 23 | high << 16 | low);
          if (::testing::Test::HasFatalFailure())
            return;
        }
  // All float subnormals, the first normal binade, and the top binade.
  for (uint32_t exp : {0u, 1u, 254u}) {
    for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
      uint32_t bits = exp << 23 | mant;
      if (floatToBF16(floatOf(bits)) != refRoundToBF16(double(floatOf(bits))))
        return checkBF16(bits);
    }
  }
  for (int i = 0; i < 2000000; ++i) {
    checkBF16(uint32_t(rng()));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

/// Doubles near 16-bit values: exact midpoints, midpoints nudged by far less
/// than a float ulp (the double-rounding cases), and random offsets.
TEST(Float16Test, DoubleConversionsMatchReference) {
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 400000; ++i) {
    bool half = i & 1;
    uint16_t h = uint16_t(rng());
    double v = half ? refHalfToDouble(h) : refBF16ToDouble(h);
    if (!std::isfinite(v))
      continue;
    // Spacing of the format at v.
    double a = std::fabs(v);
    double ulp;
    int e;
    std::frexp(a, &e);
    if (half)
      ulp = a < 0x1p-14 ? 0x1p-24 : std::ldexp(1.0, e - 11);
    else
      ulp = a < 0x1p-126 ? 0x1p-133 : std::ldexp(1.0, e - 8);
    double d;
    switch (rng() % 5) {
    case 0:
      d = v + ulp / 2; // exact midpoint
      break;
    case 1:
      d = v + ulp / 2 + ulp * 0x1p-30; // nudged up, below float resolution
      break;
    case 2:
      d = v + ulp / 2 - ulp * 0x1p-30;
      break;
    case 3:
      d = v - ulp / 2 + ulp * 0x1p-35;
      break;
    default:
      d = v + ulp * unit(rng);
      break;
    }
    if (half)
      ASSERT_EQ(doubleToHalf(d), refRoundToHalf(d))
          << "half " << std::hex << h << std::dec << " d=" << show(d);
    else
      ASSERT_EQ(doubleToBF16(d), refRoundToBF16(d))
          << "bf16 " << std::hex << h << std::dec << " d=" << show(d);
  }
  // Arbitrary double bit patterns (all exponents).
  for (int i = 0; i < 500000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d))
      continue;
    ASSERT_EQ(doubleToHalf(d), refRoundToHalf(d)) << show(d);
    ASSERT_EQ(doubleToBF16(d), refRoundToBF16(d)) << show(d);
  }
}

} // namespace
