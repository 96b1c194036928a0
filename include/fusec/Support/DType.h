//===- DType.h - Element types of fusec tensors -----------------*- C++ -*-===//
//
// The element types a fusec tensor can hold, independent of MLIR, so that the
// reference kernels, the .npy reader and (later) the GPU runtime share them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_DTYPE_H
#define FUSEC_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fusec {

/// Element type of a tensor. Storage: f16 and bf16 are kept as their 16-bit
/// patterns, i1 as one byte holding 0 or 1, integers as two's complement.
/// f64 computes in f64; the other floats compute in f32.
enum class DType : uint8_t { F32, F16, BF16, I1, I32, I64, F64 };

/// Every DType, in declaration order (for tests and table-driven code).
inline constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                       DType::I1,  DType::I32, DType::I64,
                                       DType::F64};

/// Size in bytes of one stored element.
constexpr size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
    return 1;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 0;
}

constexpr bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::F64;
}

constexpr bool isInteger(DType t) { return t == DType::I32 || t == DType::I64; }

/// The MLIR spelling of the element type ("f32", "bf16", "i1", ...).
std::string_view dtypeName(DType t);

/// Inverse of dtypeName.
std::optional<DType> parseDType(std::string_view name);

/// What to add to a message about data of dtype `got` where `expected` is
/// wanted: for float64 data where another float is wanted (NumPy's default
/// dtype, the usual cause), how to convert it; else nothing.
std::string dtypeMismatchHint(DType got, DType expected);

} // namespace fusec

#endif // FUSEC_SUPPORT_DTYPE_H
