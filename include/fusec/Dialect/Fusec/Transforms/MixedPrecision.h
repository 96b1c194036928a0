//===- MixedPrecision.h - float16/bfloat16 painting -------------*- C++ -*-===//
//
// The engine of `fusec-mixed-precision`, also used by `fusec-train-step` to
// paint the forward and backward computation of a training step.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_MIXEDPRECISION_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_MIXEDPRECISION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace fusec {

enum class PrecisionClass { Allow, Infer, Deny, Clear };

struct MixedPrecisionOptions {
  /// "f16" or "bf16".
  std::string precision = "f16";
  /// Operation names (without "fusec.") moved to each class.
  std::vector<std::string> allow, infer, deny, clear;
  /// Change f32 arguments and results of the functions to the low type.
  bool keepIOLowPrecision = false;
};

/// Sets the class lists of `options` from a pass's list options (any
/// ranges of strings: fusec-mixed-precision, fusec-train-step).
template <typename List>
void setClassLists(MixedPrecisionOptions &options, const List &allow,
                   const List &infer, const List &deny, const List &clear) {
  options.allow.assign(allow.begin(), allow.end());
  options.infer.assign(infer.begin(), infer.end());
  options.deny.assign(deny.begin(), deny.end());
  options.clear.assign(clear.begin(), clear.end());
}

struct MixedPrecisionStats {
  int64_t lowOps = 0;
  int64_t casts = 0;
};

/// Rewrites the functions of `funcs` (all in one module) as described in the
/// `fusec-mixed-precision` pass. Fails with an error at `anchor` for bad
/// options, or at a function with several blocks.
mlir::FailureOr<MixedPrecisionStats>
applyMixedPrecision(mlir::Operation *anchor,
                    llvm::ArrayRef<mlir::func::FuncOp> funcs,
                    const MixedPrecisionOptions &options);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_MIXEDPRECISION_H
