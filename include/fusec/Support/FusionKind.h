//===- FusionKind.h - What kind of kernel a fusion is -----------*- C++ -*-===//
//
// The one definition of a fusion's kind: decided by the fusion planner,
// recorded on `fusec.fusion` (its `kind`), checked by the op's verifier,
// read by code generation, and written into the executable artifact for the
// kernels it becomes. Plain C++ so that the runtime shares it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_FUSIONKIND_H
#define FUSEC_SUPPORT_FUSIONKIND_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace fusec {

enum class FusionKind : uint8_t {
  /// Elementwise work and index arithmetic over one iteration space: a
  /// grid-stride loop over the outputs' elements.
  Loop,
  /// One reduction of the innermost dimensions (rows of more than one
  /// element), its producers fused in and consumers of its result (the
  /// epilogue) after it: one block per row.
  RowReduction,
  /// Any other reduction with its producers fused in: one thread per output.
  Reduction,
  /// A matrix product with what cuBLASLt computes with it: transposed
  /// operands, a bias along rows, relu or tanh-gelu, a cast of the result.
  Matmul,
};

inline constexpr FusionKind kAllFusionKinds[] = {
    FusionKind::Loop, FusionKind::RowReduction, FusionKind::Reduction,
    FusionKind::Matmul};

/// "loop", "row_reduction", "reduction", "matmul": the spelling of the IR
/// and of the artifact.
std::string_view fusionKindName(FusionKind kind);

/// Inverse of fusionKindName.
std::optional<FusionKind> parseFusionKind(std::string_view name);

} // namespace fusec

#endif // FUSEC_SUPPORT_FUSIONKIND_H
