//===- Arrays.h - NumPy arrays to fusec buffers and back ----------*- C++
//-*-===//
//
// Shared by the compiler module and the runtime module: C-contiguous CPU
// arrays of the dtypes fusec has are copied into Buffers; results become
// NumPy arrays that own their Buffer (no copy). bf16 crosses as raw 16-bit
// patterns (fusec/__init__.py views them as ml_dtypes.bfloat16).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_BINDINGS_PYTHON_ARRAYS_H
#define FUSEC_BINDINGS_PYTHON_ARRAYS_H

#include "fusec/Support/Buffer.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace fusec::python {

namespace nb = nanobind;

using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;

inline std::optional<DType> dtypeOf(const nb::dlpack::dtype &t) {
  using nb::dlpack::dtype_code;
  auto code = dtype_code(t.code);
  if (t.lanes != 1)
    return std::nullopt;
  if (code == dtype_code::Float && t.bits == 32)
    return DType::F32;
  if (code == dtype_code::Float && t.bits == 16)
    return DType::F16;
  if (code == dtype_code::Float && t.bits == 64)
    return DType::F64;
  if (code == dtype_code::Bfloat && t.bits == 16)
    return DType::BF16;
  if (code == dtype_code::Int && t.bits == 32)
    return DType::I32;
  if (code == dtype_code::Int && t.bits == 64)
    return DType::I64;
  if (code == dtype_code::Bool && t.bits == 8)
    return DType::I1;
  return std::nullopt;
}

inline nb::dlpack::dtype dlpackOf(DType t) {
  switch (t) {
  case DType::F32:
    return nb::dtype<float>();
  case DType::F64:
    return nb::dtype<double>();
  case DType::I32:
    return nb::dtype<int32_t>();
  case DType::I64:
    return nb::dtype<int64_t>();
  case DType::I1:
    return nb::dtype<bool>();
  case DType::F16:
    return {uint8_t(nb::dlpack::dtype_code::Float), 16, 1};
  case DType::BF16:
    // NumPy has no bfloat16: the raw 16-bit patterns (fusec/__init__.py
    // views them as ml_dtypes.bfloat16 when that is installed).
    return nb::dtype<uint16_t>();
  }
  return nb::dtype<float>();
}

using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;

/// A copy of `a` as a Buffer; a null Buffer with `error` (naming argument
/// `name`) for a dtype fusec does not have or memory it cannot get.
inline Buffer toBuffer(const Array &a, const std::string &name,
                       std::string &error) {
  std::optional<DType> dtype = dtypeOf(a.dtype());
  if (!dtype) {
    error = "argument '" + name +
            "': an array of a data type fusec does not have (float32, "
            "float16, bfloat16, float64, int32, int64, bool)";
    return Buffer();
  }
  Shape shape;
  for (size_t d = 0; d < a.ndim(); ++d)
    shape.push_back(int64_t(a.shape(d)));
  Buffer b = Buffer::allocate(*dtype, shape, &error);
  if (!b) {
    error = "argument '" + name + "': " + error;
    return Buffer();
  }
  if (b.sizeInBytes())
    std::memcpy(b.data(), a.data(), b.sizeInBytes());
  return b;
}

/// A NumPy array owning `buffer`.
inline nb::object toArray(Buffer buffer) {
  auto *owned = new Buffer(std::move(buffer));
  nb::capsule owner(owned,
                    [](void *p) noexcept { delete static_cast<Buffer *>(p); });
  std::vector<size_t> shape(owned->shape().begin(), owned->shape().end());
  nb::ndarray<nb::numpy> array(owned->data(), shape.size(), shape.data(), owner,
                               nullptr, dlpackOf(owned->dtype()));
  return array.cast();
}

} // namespace fusec::python

#endif // FUSEC_BINDINGS_PYTHON_ARRAYS_H
