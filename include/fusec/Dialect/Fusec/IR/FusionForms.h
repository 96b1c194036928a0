//===- FusionForms.h - What each kind of fusion may hold --------*- C++ -*-===//
//
// The one definition of the decisions behind a fusion's kind (see
// fusec/Support/FusionKind.h): which kernel a reduction becomes, and the
// chain of operations a matmul step computes with cuBLASLt. The fusion
// planner forms fusions with them, the verifier of `fusec.fusion` checks a
// body against them, and code generation reads them; none re-derives them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_FUSIONFORMS_H
#define FUSEC_DIALECT_FUSEC_IR_FUSIONFORMS_H

#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include <optional>
#include <string>

namespace fusec {

/// Whether `op` is a reduction (ReductionOpInterface).
bool isReduction(mlir::Operation *op);

/// The kernel a reduction becomes: RowReduction when its axes are the
/// innermost dimensions and each row has more than one element (one block
/// per row pays off), else Reduction (one thread per output).
FusionKind reductionKind(mlir::Operation *reduce);

/// Whether `op` is a transpose of the last two dimensions only: a matmul
/// reads its result through cuBLASLt's transpose flag.
bool isMatrixTranspose(mlir::Operation *op);

/// What cuBLASLt applies to a product (the artifact's MatmulEpilogue).
enum class EpilogueActivation { None, Relu, Gelu };

/// The chain a matmul step computes, grown one operation at a time:
///
///   matmul [-> cast f32 to the operands' f16/bf16]
///          [-> add of a bias broadcast along the rows (the bias may be the
///              cast of an f32 value, used by the add only: cuBLASLt then
///              reads the f32 bias)]
///          [-> relu | gelu(tanh)]
///          [-> cast f32 to the operands' f16/bf16]
///
/// in that order, each at most once, with at most one of the two casts.
/// The result type stays one cuBLASLt produces with f32 compute: the
/// operands' type or f32.
class MatmulChain {
public:
  explicit MatmulChain(MatmulOp matmul);

  /// Appends `op` if it may come next (its chain operand must be value(),
  /// and value() must have no other user); otherwise returns why not.
  std::optional<std::string> append(mlir::Operation *op);

  MatmulOp getMatmul() const { return matmul; }
  /// The end of the chain: the step's result.
  mlir::Value value() const { return end; }
  /// What cuBLASLt reads as the bias: the add's operand, or the f32 input
  /// of its cast; null without a bias.
  mlir::Value getBias() const { return bias; }
  /// The cast of an f32 bias to the add's type, or null.
  CastOp getBiasCast() const { return biasCast; }
  EpilogueActivation getActivation() const { return activation; }
  /// The operations after the matmul, in order.
  llvm::ArrayRef<mlir::Operation *> getOps() const { return ops; }

private:
  MatmulOp matmul;
  mlir::Value end, bias;
  CastOp biasCast;
  EpilogueActivation activation = EpilogueActivation::None;
  /// How far the chain has come (an enum of FusionForms.cpp).
  int stage = 0;
  llvm::SmallVector<mlir::Operation *, 4> ops;
};

/// The windows of a one-group convolution as `fusec-lower-windows` writes
/// them for a matmul's lhs: `reshape` to [N*OH*OW, KH*KW*C] of the
/// `patches` of an NHWC `input`, padded (`pad`, or null) with +0.0 around
/// its rows and columns only (constant mode, no interior). A matmul step
/// that reads them through these operations is a convolution: the artifact
/// holds it as a ConvStep, which a device with convolutions computes from
/// `input` without writing the windows.
struct ConvWindows {
  PadOp pad;
  PatchesOp patches;
  ReshapeOp reshape;
  mlir::Value input;
};
/// Matches `lhs`, a matmul's left operand, with each operation of the
/// windows used once.
std::optional<ConvWindows> matchConvWindows(mlir::Value lhs);

/// The body of a matmul fusion: its matmul, the operand transposes inside
/// it (or the lhs's convolution windows), and its chain. Fails with `why` when
/// the body is not of that form: one matmul whose operands are body arguments
/// or matrix transposes of body arguments (used only by the matmul), followed
/// by a MatmulChain whose every operation is in the body, whose bias is a body
/// argument and whose end is the fusion's only result, and nothing else.
struct MatmulFusionForm {
  MatmulOp matmul;
  /// The transposes read through the transpose flags, or null.
  TransposeOp transposeLhs, transposeRhs;
  /// The lhs's convolution windows, whose input is a body argument.
  std::optional<ConvWindows> windows;
  MatmulChain chain;
};
std::optional<MatmulFusionForm> matchMatmulFusion(FusionOp fusion,
                                                  std::string &why);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_FUSIONFORMS_H
