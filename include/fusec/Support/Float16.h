//===- Float16.h - IEEE binary16 and bfloat16 conversions -------*- C++ -*-===//
//
// Bit-exact conversions between float/double and the two 16-bit float
// formats. All narrowing conversions round to nearest, ties to even; values
// beyond the largest finite value become infinities, NaNs stay NaN (quiet,
// sign preserved). Header-only so the per-element loops of the reference
// kernels inline them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_FLOAT16_H
#define FUSEC_SUPPORT_FLOAT16_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace fusec {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// binary16 bits -> float (exact).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) // Inf or NaN; keep NaN payload, force quiet.
    return bitsToFloat(sign | 0x7f800000u | (mant << 13) |
                       (mant ? 0x00400000u : 0u));
  if (exp != 0)
    return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: value = mant * 2^-24, exact in float.
  float mag = float(mant) * 5.9604644775390625e-8f;
  return bitsToFloat(sign | floatBits(mag));
}

/// float -> binary16 bits, round to nearest even.
inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t absU = u & 0x7fffffffu;
  if (absU >= 0x7f800000u) { // Inf or NaN.
    if (absU == 0x7f800000u)
      return sign | 0x7c00u;
    return sign | 0x7e00u | uint16_t((absU >> 13) & 0x3ffu);
  }
  // 65520 = largest finite half (65504) + half an ulp: rounds to infinity.
  if (absU >= 0x477ff000u)
    return sign | 0x7c00u;
  if (absU < 0x38800000u) { // Below the smallest normal half (2^-14).
    // Subnormal result: round |f| / 2^-24 to an integer, ties to even. The
    // ulp of floats in [0.5, 1) is exactly 2^-24, so adding 0.5f makes the
    // float adder do that rounding; the mantissa of the sum is the result.
    float sum = bitsToFloat(absU) + 0.5f;
    uint32_t q = floatBits(sum) - floatBits(0.5f);
    return sign | uint16_t(q); // q == 0x400 yields the smallest normal.
  }
  // Normal: rebias exponent and round the 13 dropped mantissa bits.
  uint32_t bits = absU - 0x38000000u; // exponent bias 127 -> 15
  uint32_t lsb = (bits >> 13) & 1u;
  bits += 0x0fffu + lsb;
  return sign | uint16_t(bits >> 13);
}

/// bfloat16 bits -> float (exact).
inline float bf16ToFloat(uint16_t b) { return bitsToFloat(uint32_t(b) << 16); }

/// float -> bfloat16 bits, round to nearest even.
inline uint16_t floatToBF16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: truncate, force quiet.
    return uint16_t((u >> 16) | 0x0040u);
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb; // Overflow into the exponent gives Inf, as it should.
  return uint16_t(u >> 16);
}

/// Rounds a double to float with round-to-odd: the result is the truncation
/// toward zero, with its last bit set when the conversion was inexact. A
/// second rounding of that float to any format with at most 22 significand
/// bits (binary16, bfloat16) then equals a single correct rounding of the
/// double, which a plain double->float->half chain does not guarantee.
inline float roundToOddFloat(double d) {
  float f = float(d);
  if (std::isnan(d) || double(f) == d)
    return f;
  if (std::fabs(double(f)) > std::fabs(d))
    f = std::nextafter(f, 0.0f);
  return bitsToFloat(floatBits(f) | 1u);
}

/// double -> binary16 bits with a single rounding to nearest even.
inline uint16_t doubleToHalf(double d) {
  return floatToHalf(roundToOddFloat(d));
}

/// double -> bfloat16 bits with a single rounding to nearest even.
inline uint16_t doubleToBF16(double d) {
  return floatToBF16(roundToOddFloat(d));
}

} // namespace fusec

#endif // FUSEC_SUPPORT_FLOAT16_H
