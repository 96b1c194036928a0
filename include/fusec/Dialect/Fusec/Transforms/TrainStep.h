//===- TrainStep.h - Training-step builder ----------------------*- C++ -*-===//
//
// The engine of `fusec-train-step` (see its description in Passes.td for
// the signature of the step function and the attributes that describe it).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H

#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Dialect/Fusec/Transforms/AddLoss.h"
#include "fusec/Dialect/Fusec/Transforms/MixedPrecision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fusec {

enum class Optimizer { SGD, Adam };

/// The options of training (`fusec-train-step`, the `fusec` command line and
/// the pipeline share this one declaration). The painting of the forward and
/// backward computation is a MixedPrecisionOptions of its own.
struct TrainingOptions {
  /// The loss function; empty: no training step.
  std::string train;
  Optimizer optimizer = Optimizer::SGD;
  double learningRate = 0.01;
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double weightDecay = 0;
  /// dynamic | static:VALUE | off | default (dynamic for f16, else off).
  std::string lossScale = "default";
  double lossScaleInit = 65536, lossScaleGrowth = 2, lossScaleBackoff = 0.5;
  int64_t lossScaleInterval = 2000;
  /// A loss added to a model that has none (fusec-add-loss).
  LossOptions loss;
  /// fusec-recompute-activations on the step: On, Off, or Auto (when the
  /// step's memory plan exceeds the memory limit; the driver decides).
  enum class Recompute { Auto, On, Off } recompute = Recompute::Auto;

  /// With a loss to add and no `train`, trains the added loss function.
  void resolve() {
    if (train.empty() && loss.kind != LossKind::None)
      train = kAddedLossName.str();
  }
  void bindOptions(OptionBinder &binder);
};

/// Adds `<train>_train_step` to `module` and returns it; on bad options or a
/// function that cannot be differentiated, emits an error and fails with
/// the module unchanged. `mixed` paints the forward and backward
/// computation (keep-io-low-precision does not apply: parameters are f32
/// master weights).
mlir::FailureOr<mlir::func::FuncOp>
buildTrainStep(mlir::ModuleOp module, const TrainingOptions &options,
               const MixedPrecisionOptions &mixed);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_TRAINSTEP_H
