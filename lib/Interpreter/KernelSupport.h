//===- KernelSupport.h - What the reference kernels share ----*- C++ -*-===//
//
// Private to lib/Interpreter: the element types (storage and compute
// types, conversions) as template parameters, the dispatch from a runtime
// DType, and strided iteration in runs along the innermost dimension.
// Loops are written so that the common cases vectorise: operands are
// visited as runs with a stride of 0 or 1 handled by dedicated loops, and
// the element type is a template parameter, so there is no per-element
// dispatch.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_INTERPRETER_KERNELSUPPORT_H
#define FUSEC_LIB_INTERPRETER_KERNELSUPPORT_H

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Float16.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace fusec::kernels::detail {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Storage type, compute type and the conversions between them. Floats
/// compute in f32; integers in themselves; i1 as uint8_t 0/1.
template <DType D> struct Elem;
template <> struct Elem<DType::F32> {
  using Storage = float;
  using Compute = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
  static float storeWide(double v) { return float(v); }
};
template <> struct Elem<DType::F16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return halfToFloat(v); }
  static uint16_t store(float v) { return floatToHalf(v); }
  static uint16_t storeWide(double v) { return doubleToHalf(v); }
};
template <> struct Elem<DType::BF16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return bf16ToFloat(v); }
  static uint16_t store(float v) { return floatToBF16(v); }
  static uint16_t storeWide(double v) { return doubleToBF16(v); }
};
template <> struct Elem<DType::F64> {
  using Storage = double;
  using Compute = double;
  static double load(double v) { return v; }
  static double store(double v) { return v; }
  static double storeWide(double v) { return v; }
};
template <> struct Elem<DType::I1> {
  using Storage = uint8_t;
  using Compute = uint8_t;
  static uint8_t load(uint8_t v) { return v; }
  static uint8_t store(uint8_t v) { return v != 0; }
};
template <> struct Elem<DType::I32> {
  using Storage = int32_t;
  using Compute = int32_t;
  static int32_t load(int32_t v) { return v; }
  static int32_t store(int32_t v) { return v; }
};
template <> struct Elem<DType::I64> {
  using Storage = int64_t;
  using Compute = int64_t;
  static int64_t load(int64_t v) { return v; }
  static int64_t store(int64_t v) { return v; }
};

template <DType D> using DTypeTag = std::integral_constant<DType, D>;

/// Calls fn(DTypeTag<D>{}) for the runtime dtype `t`.
template <typename Fn> void visitDType(DType t, Fn &&fn) {
  switch (t) {
  case DType::F32:
    return fn(DTypeTag<DType::F32>());
  case DType::F16:
    return fn(DTypeTag<DType::F16>());
  case DType::BF16:
    return fn(DTypeTag<DType::BF16>());
  case DType::I1:
    return fn(DTypeTag<DType::I1>());
  case DType::I32:
    return fn(DTypeTag<DType::I32>());
  case DType::I64:
    return fn(DTypeTag<DType::I64>());
  case DType::F64:
    return fn(DTypeTag<DType::F64>());
  }
}

//===----------------------------------------------------------------------===//
// Strided iteration
//===----------------------------------------------------------------------===//

/// a * b, wrapping instead of overflowing. Products of dimensions only
/// overflow for empty tensors with huge other dimensions, whose strides are
/// then never used; wrapping keeps computing them defined behaviour.
inline int64_t mulWrap(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}

inline Shape contiguousStrides(const Shape &shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s = mulWrap(s, shape[i]);
  }
  return strides;
}

/// Element strides of a tensor of shape `in` broadcast to `out` (NumPy rules,
/// right-aligned): 0 along broadcast dimensions.
inline Shape broadcastStrides(const Shape &in, const Shape &out) {
  Shape strides(out.size(), 0);
  Shape inStrides = contiguousStrides(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[offset + i] =
        (in[i] == 1 && out[offset + i] != 1) ? 0 : inStrides[i];
  return strides;
}

/// Visits the index space `shape` as runs along its innermost dimension. For
/// each of the N operands `strides[k]` gives its element stride per dimension.
/// Dimensions of size 1 are dropped and adjacent dimensions that are
/// contiguous for every operand are merged, so that e.g. a same-shape
/// elementwise op is a single run. body(offsets, n, innerStrides) handles
/// elements offsets[k] + i * innerStrides[k] for i in [0, n).
template <size_t N, typename Body>
void forEachRun(const Shape &shape, const std::array<Shape, N> &strides,
                Body &&body) {
  Shape dims;
  std::array<Shape, N> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      return;
    if (shape[d] == 1)
      continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == strides[k][d] * shape[d];
    if (merge) {
      dims.back() *= shape[d];
      for (size_t k = 0; k < N; ++k)
        st[k].back() = strides[k][d];
      continue;
    }
    dims.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k)
      st[k].push_back(strides[k][d]);
  }
  std::array<int64_t, N> inner{};
  int64_t n = 1;
  if (!dims.empty()) {
    n = dims.back();
    for (size_t k = 0; k < N; ++k)
      inner[k] = st[k].back();
    dims.pop_back();
    for (size_t k = 0; k < N; ++k)
      st[k].pop_back();
  }
  // Odometer over the outer dimensions.
  size_t rank = dims.size();
  Shape counter(rank, 0);
  std::array<int64_t, N> offsets{};
  while (true) {
    body(offsets, n, inner);
    size_t d = rank;
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++counter[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k)
          offsets[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= st[k][d] * (dims[d] - 1);
      counter[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// Scalar semantics shared by elementwise operations and reductions
//===----------------------------------------------------------------------===//

/// IEEE 754-2019 maximum: NaN if either is NaN, +0 > -0 (float or double).
template <typename F> F ieeeMax(F a, F b) {
  if (a > b)
    return a;
  if (b > a)
    return b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a + b; // At least one NaN; the sum is a NaN.
}
template <typename F> F ieeeMin(F a, F b) {
  if (a < b)
    return a;
  if (b < a)
    return b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a + b;
}

} // namespace fusec::kernels::detail

#endif // FUSEC_LIB_INTERPRETER_KERNELSUPPORT_H
