//===- MixedPrecision.h - float16/bfloat16 painting -------------*- C++ -*-===//
//
// The engine of `fusec-mixed-precision`, also used by `fusec-train-step` to
// paint the forward and backward computation of a training step.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_MIXEDPRECISION_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_MIXEDPRECISION_H

#include "fusec/Support/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace fusec {

/// The low-precision type, or Off (nothing is painted).
enum class LowPrecision { Off, F16, BF16 };

/// The options of mixed precision (`fusec-mixed-precision`,
/// `fusec-train-step`, the `fusec` command line and the pipeline share this
/// one declaration).
struct MixedPrecisionOptions {
  LowPrecision precision = LowPrecision::Off;
  /// Change f32 arguments and results of the functions to the low type.
  bool keepIOLowPrecision = false;
  /// Operation names (without "fusec.") moved to each class.
  std::vector<std::string> allow, infer, deny, clear;

  void bindOptions(OptionBinder &binder);
};

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
