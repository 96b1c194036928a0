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
  }
  return "?";
}

std::optional<DType> fusec::parseDType(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}
