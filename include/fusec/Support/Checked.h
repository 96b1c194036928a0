//===- Checked.h - Arithmetic on sizes that come from input -----*- C++ -*-===//
//
// Sizes derived from a model or a file (element counts, byte counts, cost
// estimates) can be as large as int64 allows, so their sums and products
// are either checked (an error when the exact value matters: an allocation,
// a kernel's element count) or saturating (an estimate that only needs to
// compare and print sensibly: the fusion cost model). Never plain `+`/`*`,
// whose overflow is undefined behaviour.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_CHECKED_H
#define FUSEC_SUPPORT_CHECKED_H

#include <cstdint>
#include <optional>

namespace fusec {

/// a + b and a * b, or nullopt when the result does not fit int64.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// a + b and a * b clamped to [INT64_MIN, INT64_MAX].
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a > 0 ? INT64_MAX : INT64_MIN;
  return r;
}
inline int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) == (b < 0) ? INT64_MAX : INT64_MIN;
  return r;
}

} // namespace fusec

#endif // FUSEC_SUPPORT_CHECKED_H
