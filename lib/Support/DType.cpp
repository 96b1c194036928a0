//===- DType.cpp - Element types of fusec tensors -------------------------===//

#include "fusec/Support/DType.h"

using namespace fusec;

std::string_view fusec::dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::F64:
    return "f64";
  }
  return "?";
}

std::optional<DType> fusec::parseDType(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}

std::string fusec::dtypeMismatchHint(DType got, DType expected) {
  if (got != DType::F64 || !isFloat(expected) || expected == DType::F64)
    return "";
  std::string numpy = expected == DType::F32   ? "np.float32"
                      : expected == DType::F16 ? "np.float16"
                                               : "ml_dtypes.bfloat16";
  return " (NumPy arrays are float64 by default: save it with "
         "np.save(path, array.astype(" +
         numpy + ")))";
}
