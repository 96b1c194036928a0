//===- TrainStep.h - Training-step builder ----------------------*- C++ -*-===//
//
// The engine of `fusec-train-step` (see its description in Passes.td for
// the signature of the step function and the attributes that describe it).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H

#include "fusec/Dialect/Fusec/Transforms/MixedPrecision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fusec {

/// Attribute names on the step function's arguments and results.
inline constexpr llvm::StringLiteral kInitAttrName = "fusec.init";
inline constexpr llvm::StringLiteral kUpdatesAttrName = "fusec.updates";
inline constexpr llvm::StringLiteral kLossAttrName = "fusec.loss";
inline constexpr llvm::StringLiteral kSkippedAttrName = "fusec.skipped";
inline constexpr llvm::StringLiteral kLossScaleAttrName = "fusec.loss_scale";
inline constexpr llvm::StringLiteral kStateAttrName = "fusec.state";

struct TrainStepOptions {
  std::string func;
  std::string optimizer = "sgd"; // sgd | adam
  double learningRate = 0.01;
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double weightDecay = 0;
  /// off | f16 | bf16; `precision` of `mixed` is set from it.
  std::string mixedPrecision = "off";
  MixedPrecisionOptions mixed;
  /// dynamic | static:VALUE | off | default.
  std::string lossScale = "default";
  double initScale = 65536, growthFactor = 2, backoffFactor = 0.5;
  int64_t growthInterval = 2000;
};

/// Adds `<func>_train_step` to `module` and returns it; on bad options or a
/// function that cannot be differentiated, emits an error and fails with
/// the module unchanged.
mlir::FailureOr<mlir::func::FuncOp>
buildTrainStep(mlir::ModuleOp module, const TrainStepOptions &options);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H
