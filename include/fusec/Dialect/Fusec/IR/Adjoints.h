//===- Adjoints.h - What a derivative rule builds with ----------*- C++ -*-===//
//
// The state of reverse-mode differentiation that the operations' derivative
// rules (DifferentiableOpInterface::backprop, in FusecGradients.cpp) read
// and extend: the forward values cloned into the gradient function, the
// adjoints found so far, and builders for the fusec operations a rule
// emits. fusec-autodiff (Transforms/Autodiff.cpp) owns the analysis and the
// walk; the rules live with the operations.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_ADJOINTS_H
#define FUSEC_DIALECT_FUSEC_IR_ADJOINTS_H

#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace fusec {

class Adjoints {
public:
  explicit Adjoints(mlir::MLIRContext *context)
      : b(context), loc(mlir::UnknownLoc::get(context)) {}

  //===--- For the rules -------------------------------------------------===//

  /// Whether `v` (of the original function) should receive an adjoint: a
  /// float value that depends on a parameter.
  bool wants(mlir::Value v) const;
  /// The adjoint of original value `v` found so far; null if none.
  mlir::Value of(mlir::Value v) const { return adjoints.lookup(v); }
  /// The clone of original value `v` in the gradient function.
  mlir::Value fwd(mlir::Value v) const { return mapping.lookup(v); }
  /// Adds `gradient()` (of the broadcast shape of `v`'s use, summed back to
  /// `v`'s shape here) to the adjoint of `v`, if `v` wants one; `gradient`
  /// is not called otherwise.
  void give(mlir::Value v, llvm::function_ref<mlir::Value()> gradient);

  /// A tensor of `type` with every element `value`.
  mlir::Value splat(mlir::RankedTensorType type, double value);
  /// A rank-0 constant of `like`'s element type, broadcast by binary ops.
  mlir::Value scalar(mlir::Value like, double value);
  mlir::Value zeros(llvm::ArrayRef<int64_t> shape, mlir::Type elem);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y);
  mlir::Value neg(mlir::Value x);
  mlir::Value compare(CmpPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value t, mlir::Value f);
  /// `x` with element type `elem` (itself when it has it).
  mlir::Value castTo(mlir::Value x, mlir::Type elem);
  /// `x` reshaped to `shape` (itself when it has it).
  mlir::Value reshapeTo(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value concat(llvm::ArrayRef<mlir::Value> values, int64_t axis);
  /// `x` with its last two dimensions swapped.
  mlir::Value transposeLastTwo(mlir::Value x);
  /// Sums `g`, a gradient of the broadcast shape, back to `target`'s
  /// shape: over the leading dimensions `target` lacks and over those where
  /// `target` has 1 and `g` not, then reshapes (dropped 1s come back).
  mlir::Value reduceToShape(mlir::Value g, mlir::RankedTensorType target);
  /// `g` padded with zeros (`fusec.pad` in constant mode); itself when
  /// nothing is added.
  mlir::Value padZeros(mlir::Value g, llvm::ArrayRef<int64_t> low,
                       llvm::ArrayRef<int64_t> high,
                       llvm::ArrayRef<int64_t> interior);
  /// The adjoint of a slice scattered into zeros of the input's shape.
  mlir::Value scatterSlice(mlir::Value g, mlir::RankedTensorType input,
                           llvm::ArrayRef<int64_t> start,
                           llvm::ArrayRef<int64_t> size,
                           llvm::ArrayRef<int64_t> stride);
  /// The shape of `input` with the reduced `axes` kept as 1.
  static llvm::SmallVector<int64_t> keepDimsShape(mlir::RankedTensorType input,
                                                  llvm::ArrayRef<int64_t> axes);

  /// Where the rules insert, and the location they give what they build
  /// (the differentiated operation's).
  mlir::OpBuilder b;
  mlir::Location loc;

protected:
  /// Values that depend on a `fusec.param` argument.
  llvm::DenseSet<mlir::Value> varied;
  /// Original values to their clones.
  mlir::IRMapping mapping;
  /// Original values to their adjoints (values of the gradient function).
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
};

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_ADJOINTS_H
