//===- TrainingAttributes.h - Roles of arguments and results ----*- C++ -*-===//
//
// The discardable attributes that describe what the arguments and results
// of a function are for training, in one place: the importers write them
// (ONNX initializers as parameters and model state), fusec-add-loss,
// fusec-autodiff and fusec-train-step read and write them, the driver reads
// them into a TrainStepSignature (docs/training.md, "The attributes").
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_TRAININGATTRIBUTES_H
#define FUSEC_DIALECT_FUSEC_IR_TRAININGATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace fusec {

/// Argument, unit: a trainable parameter (differentiated, updated by the
/// optimizer).
inline constexpr llvm::StringLiteral kParamAttrName = "fusec.param";
/// Argument: its initial value, a scalar attribute (every element holds it)
/// or an elements attribute of the argument's type (a model's weights).
inline constexpr llvm::StringLiteral kInitAttrName = "fusec.init";
/// Argument, string: state that is not a parameter, and its role (the
/// optimizer's "adam.m", the model's "batch_norm.running_mean", the
/// dropout generator's "dropout.key").
inline constexpr llvm::StringLiteral kStateAttrName = "fusec.state";
/// Argument, integer: the parameter (argument index) optimizer state
/// belongs to.
inline constexpr llvm::StringLiteral kStateOfAttrName = "fusec.state_of";
/// Result, integer: the argument whose next value it is.
inline constexpr llvm::StringLiteral kUpdatesAttrName = "fusec.updates";
/// Results of a step function: the loss, the loss scale, whether the step
/// was skipped, and a metric (the loss function's result index).
inline constexpr llvm::StringLiteral kLossAttrName = "fusec.loss";
inline constexpr llvm::StringLiteral kSkippedAttrName = "fusec.skipped";
inline constexpr llvm::StringLiteral kLossScaleAttrName = "fusec.loss_scale";
inline constexpr llvm::StringLiteral kMetricAttrName = "fusec.metric";
/// A name for an argument or a result (ONNX inputs, outputs and
/// initializers: their names); the default is argN / resultN.
inline constexpr llvm::StringLiteral kNameAttrName = "fusec.name";
/// Operation, unit: part of a training step's backward pass or update,
/// set by fusec-train-step on every operation after the forward pass (a
/// fusion containing one is a backward kernel). The memory report counts
/// the forward values kept for the backward pass by it, and
/// fusec-recompute-activations decides what it may recompute.
inline constexpr llvm::StringLiteral kBackwardAttrName = "fusec.backward";
/// Function, integer: the operations fusec-recompute-activations cloned
/// into its backward pass.
inline constexpr llvm::StringLiteral kRecomputedAttrName = "fusec.recomputed";
/// Function, symbol: its evaluation twin, the same computation in
/// inference semantics (batch normalization with the running statistics,
/// no dropout) with the same arguments and without the state updates;
/// validation runs it.
inline constexpr llvm::StringLiteral kEvalAttrName = "fusec.eval";

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_TRAININGATTRIBUTES_H
