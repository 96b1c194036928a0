//===- FusionKind.cpp - What kind of kernel a fusion is -------------------===//

#include "fusec/Support/FusionKind.h"

using namespace fusec;

std::string_view fusec::fusionKindName(FusionKind kind) {
  switch (kind) {
  case FusionKind::Loop:
    return "loop";
  case FusionKind::RowReduction:
    return "row_reduction";
  case FusionKind::Reduction:
    return "reduction";
  case FusionKind::Matmul:
    return "matmul";
  }
  return "?";
}

std::optional<FusionKind> fusec::parseFusionKind(std::string_view name) {
  for (FusionKind kind : kAllFusionKinds)
    if (fusionKindName(kind) == name)
      return kind;
  return std::nullopt;
}
