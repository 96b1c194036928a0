//===- FusionPreparation.cpp - Before planning ----------------------------===//
//
// The fusion options, and the rewrites that prepare a block for planning:
// splits become slices, integer matmuls a broadcast multiply and a sum,
// cheap producers with several fusible users one copy per user when the
// cost model says so.
//
//===----------------------------------------------------------------------===//

#include "FusionSupport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Support/Checked.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fusec-fusion"

using namespace mlir;
using namespace fusec;
using namespace fusec::fusion;

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

void FusionOptions::bindOptions(OptionBinder &binder) {
  binder.group("fusion", "Fusion into kernels (`fusec-fuse-elementwise`)");
  binder.integer("fusion-launch-cost-bytes", launchCostBytes,
                 "Cost model: a kernel launch, in bytes of memory traffic", 0);
  binder.integer("fusion-max-ops", maxOps, "Most operations in one fusion", 1);
  binder.integer("fusion-inline-constant-elements", inlineConstantElements,
                 "Constants with at most this many elements (and splats) are "
                 "copied into the kernels that read them",
                 0);
  binder.flag("fusion-duplicate", duplicate,
              "Duplicate cheap producers into several kernels when that "
              "moves fewer bytes");
  binder.flag("fusion-multi-output", multiOutput,
              "Form multi-output fusions (extra outputs, siblings reading "
              "the same input)");
  binder.flag("fusion-horizontal", horizontal,
              "Merge loop kernels to save launches: those that read only "
              "arguments and constants into one prologue kernel, and "
              "siblings that each move less than a launch costs (with "
              "--fusion-multi-output)");
  binder.integer("fusion-reachability-budget", reachabilityBudget,
                 "Visits allowed per cycle check of a multi-output merge "
                 "before it is refused",
                 0);
  binder.flag("fusion-matmul-epilogues", matmulEpilogues,
              "Fold operand transposes, a bias, relu or tanh gelu and a "
              "result cast into matmul steps (cuBLASLt epilogues)");
}

int64_t fusec::countKernels(Block &block) {
  return llvm::count_if(block, [](Operation &op) {
    return !isa<ConstantOp, ReshapeOp>(op) &&
           !op.hasTrait<mlir::OpTrait::IsTerminator>();
  });
}

int64_t fusec::prepareForFusion(Block &block, const FusionOptions &options) {
  int64_t added = 0;
  // What nothing reads needs no kernel (and a matmul step needs a user: its
  // result or its epilogue's): erased, readers before their producers, as
  // dead-code elimination would. The pipeline's folding and CSE leave none;
  // an embedder's pipeline may not run them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isOpTriviallyDead(&op))
      op.erase();
  FusionClassifier classify;
  OpBuilder builder(block.getParentOp()->getContext());
  // split -> slices.
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto split = dyn_cast<SplitOp>(op);
    if (!split)
      continue;
    builder.setInsertionPoint(split);
    auto type = cast<RankedTensorType>(split.getInput().getType());
    SmallVector<int64_t> start(type.getRank(), 0), stride(type.getRank(), 1);
    int64_t axis = split.getAxis();
    for (Value result : split.getResults()) {
      auto pieceType = cast<RankedTensorType>(result.getType());
      if (!result.use_empty()) { // Unused pieces need no kernel.
        Value slice = SliceOp::create(builder, split.getLoc(), pieceType,
                                      split.getInput(), start,
                                      pieceType.getShape(), stride);
        result.replaceAllUsesWith(slice);
        ++added;
      }
      start[axis] += pieceType.getDimSize(axis);
    }
    split.erase();
    --added;
  }
  // Integer matmuls: [..., M, K] x [..., K, N] as the sum over K of
  // lhs[..., M, 1, K] * rhs^T[..., 1, N, K], both broadcast to
  // [batch..., M, N, K]; the index arithmetic fuses into one reduction.
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto matmul = dyn_cast<MatmulOp>(op);
    if (!matmul)
      continue;
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(matmul.getRhs().getType());
    auto outType = cast<RankedTensorType>(matmul.getType());
    if (!isa<IntegerType>(lhsType.getElementType()))
      continue;
    builder.setInsertionPoint(matmul);
    Location loc = matmul.getLoc();
    Type element = outType.getElementType();
    ArrayRef<int64_t> outShape = outType.getShape();
    int64_t k = lhsType.getShape().back(), n = outShape.back();
    SmallVector<int64_t> full(outShape.begin(), outShape.end());
    full.push_back(k); // [batch..., M, N, K]
    auto fullType = RankedTensorType::get(full, lhsType.getElementType());
    // lhs [..., M, K] -> [..., M, 1, K].
    SmallVector<int64_t> lhsShape(lhsType.getShape().begin(),
                                  lhsType.getShape().end());
    lhsShape.insert(lhsShape.end() - 1, 1);
    Value lhs = ReshapeOp::create(
        builder, loc, RankedTensorType::get(lhsShape, lhsType.getElementType()),
        matmul.getLhs());
    // rhs [..., K, N] -> [..., N, K] -> [..., 1, N, K].
    int64_t rank = rhsType.getRank();
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank - 2; ++d)
      perm.push_back(d);
    perm.push_back(rank - 1);
    perm.push_back(rank - 2);
    SmallVector<int64_t> rhsT(rhsType.getShape().begin(),
                              rhsType.getShape().end());
    std::swap(rhsT[size_t(rank - 1)], rhsT[size_t(rank - 2)]);
    Value rhs = TransposeOp::create(
        builder, loc, RankedTensorType::get(rhsT, rhsType.getElementType()),
        matmul.getRhs(), perm);
    rhsT.insert(rhsT.end() - 2, 1);
    rhs = ReshapeOp::create(
        builder, loc, RankedTensorType::get(rhsT, rhsType.getElementType()),
        rhs);
    (void)n;
    Value a = BroadcastToOp::create(builder, loc, fullType, lhs);
    Value b = BroadcastToOp::create(builder, loc, fullType, rhs);
    Value product = MulOp::create(builder, loc, fullType, a, b);
    if (element != lhsType.getElementType())
      product = CastOp::create(builder, loc,
                               RankedTensorType::get(full, element), product);
    Value sum = ReduceSumOp::create(builder, loc, outType, product,
                                    ArrayRef<int64_t>{int64_t(full.size()) - 1},
                                    /*keep_dims=*/false);
    matmul.replaceAllUsesWith(sum);
    matmul.erase();
    added += 7;
  }
  if (!options.duplicate)
    return added;
  // Cheap producers with several fusible users: one copy per user when the
  // cost model says that moves fewer bytes. With k fusible users and no
  // other, the copies read the inputs k times instead of the producer
  // reading them once, writing its result and the users reading it k times,
  // plus a launch. When other (boundary) users keep the original, the
  // copies only pay off if the inputs are no larger than the result.
  // (Copies that end up in one kernel are merged again by CSE.)
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.getNumResults() != 1 || op.getResult(0).hasOneUse() ||
        op.getResult(0).use_empty())
      continue;
    FusionClass c = classify(&op);
    if ((c != FusionClass::Elementwise && c != FusionClass::Index) ||
        isExpensive(&op))
      continue;
    // The first step of a matmul's epilogue joins the matmul step instead.
    if (options.matmulEpilogues && isa<AddOp, CastOp, ReluOp>(op) &&
        llvm::any_of(op.getOperands(), [](Value v) {
          auto matmul = v.getDefiningOp<MatmulOp>();
          return matmul && v.hasOneUse() &&
                 isa<FloatType>(getElementTypeOrSelf(matmul.getLhs()));
        }))
      continue;
    Value result = op.getResult(0);
    int64_t inputBytes = 0;
    for (Value operand : op.getOperands())
      if (!isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
        inputBytes = saturatingAdd(inputBytes, bytesOf(operand));
    int64_t outputBytes = bytesOf(result);
    llvm::SetVector<Operation *> fusibleUsers;
    bool otherUsers = false;
    for (Operation *user : result.getUsers()) {
      if (user->getBlock() == &block && isFusible(classify(user)))
        fusibleUsers.insert(user);
      else
        otherUsers = true;
    }
    int64_t k = fusibleUsers.size();
    if (k < 2)
      continue;
    // Saturating: byte counts of huge shapes (up to INT64_MAX) and the
    // launch cost option compare without overflowing.
    bool profitable =
        otherUsers ? inputBytes <= outputBytes
                   : saturatingMul(k, inputBytes) <=
                         saturatingAdd(
                             saturatingAdd(inputBytes,
                                           saturatingMul(k + 1, outputBytes)),
                             options.launchCostBytes);
    if (!profitable)
      continue;
    // The first fusible user keeps the original, unless other (boundary)
    // users need it.
    for (Operation *user :
         llvm::drop_begin(fusibleUsers.getArrayRef(), otherUsers ? 0 : 1)) {
      builder.setInsertionPoint(&op);
      Operation *copy = builder.clone(op);
      user->replaceUsesOfWith(result, copy->getResult(0));
      ++added;
    }
  }
  return added;
}
