//===- AddLoss.h - A loss for a model that has none -------------*- C++ -*-===//
//
// The engine of `fusec-add-loss` (see its description in Passes.td): a
// loss function over one output of a model function, with an accuracy
// where the loss is a classification's, Keras's `compile(loss=...)` for an
// exported model.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_ADDLOSS_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_ADDLOSS_H

#include "fusec/Support/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fusec {

enum class LossKind {
  None,
  /// Logits and one-hot (or probability) labels of the same shape.
  SoftmaxCrossEntropy,
  /// Logits [..., C] and integer class labels [...].
  SparseSoftmaxCrossEntropy,
  /// Probabilities (a softmax's output) and one-hot labels (Keras's
  /// categorical_crossentropy).
  CrossEntropy,
  /// Probabilities and integer class labels.
  SparseCrossEntropy,
  /// Mean squared error against labels of the output's shape.
  MeanSquaredError,
  /// Probabilities of a sigmoid and 0/1 labels of the same shape.
  BinaryCrossEntropy,
};

/// The name of the loss function fusec-add-loss builds (its evaluation
/// twin is `loss_eval`).
inline constexpr llvm::StringLiteral kAddedLossName = "loss";

/// The options of `fusec-add-loss` (bound with the training options).
struct LossOptions {
  LossKind kind = LossKind::None;
  /// The model output the loss reads (a result's fusec.name, or resultN);
  /// empty: the model's only output.
  std::string output;
  /// The name of the labels argument the loss function adds.
  std::string labels = "labels";
  /// The model function; empty: the only public function that is not
  /// another's evaluation twin.
  std::string model;
  void bindOptions(OptionBinder &binder);
};

/// Adds `loss` (and `loss_eval`, when the model function has an evaluation
/// twin) to `module`: the model function's arguments and the labels, the
/// model called, the loss and metrics of the chosen output, the model's
/// state updates. Emits an error and leaves the module unchanged when the
/// model, the output or the options do not fit.
mlir::FailureOr<mlir::func::FuncOp> buildLossFunction(mlir::ModuleOp module,
                                                      const LossOptions &);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_ADDLOSS_H
