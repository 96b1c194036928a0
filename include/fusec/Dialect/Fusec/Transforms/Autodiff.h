//===- Autodiff.h - Reverse-mode automatic differentiation ------*- C++ -*-===//
//
// Builds gradient functions of fusec loss functions; the engine behind
// `fusec-autodiff` and the training-step builder (`fusec-train-step`).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_AUTODIFF_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_AUTODIFF_H

#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Support/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace fusec {

/// The options of `fusec-autodiff`.
struct AutodiffOptions {
  std::string suffix = "_grad";
  void bindOptions(OptionBinder &binder);
};

struct GradientOptions {
  /// Name of the new function (must not exist in the module yet).
  std::string name;
  /// With a seed, the gradient function takes one more argument, last, of
  /// the loss's type: the adjoint of the loss (what the gradients are
  /// multiplied by; a loss scale). Without, the seed is 1.
  bool seedArgument = false;
  /// Also returns the loss function's other results (metrics such as an
  /// accuracy), after the gradients, computed by the same forward clone.
  bool otherResults = false;
  /// When set, receives the number of operations of the forward clone: the
  /// gradient function's first operations; the others are the backward
  /// pass.
  unsigned *forwardOps = nullptr;
};

/// Whether `func` is a loss function: a body (not a declaration), at least
/// one `fusec.param` argument and a first result that is a float tensor of
/// one element (rank 0 or every dimension 1).
bool isLossFunction(mlir::func::FuncOp func);

/// Adds, right after `func`, a function named `options.name` with `func`'s
/// arguments (plus the seed) that returns `func`'s first result followed by
/// one gradient per `fusec.param` argument, in argument order, each of the
/// parameter's type. Emits an error at the offending location and returns
/// failure when `func` is not a loss function or an operation on a path
/// from a parameter to the loss has no derivative, or `options.name` is
/// taken; the module is then unchanged.
///
/// The forward operations the loss depends on are cloned (the others, and
/// the other results, are dropped unless `options.otherResults`), then the
/// adjoints are emitted in reverse order with fusec operations in each value's
/// element type. Parameters the loss does not depend on get a zero constant.
/// The derivative conventions (ties of max/min and of reduce_max/reduce_min,
/// kinks of abs/relu, pow with a base <= 0) are listed at the top of
/// lib/Dialect/Fusec/IR/FusecGradients.cpp, where the rules are, and in the
/// description of `fusec-autodiff`.
mlir::FailureOr<mlir::func::FuncOp>
buildGradientFunction(mlir::func::FuncOp func, const GradientOptions &options);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_AUTODIFF_H
