//===- SinkDataMovement.cpp - Move reshapes and transposes down -----------===//
//
// Rewrites that move data movement past the operations that read it, so
// that it meets its inverse and cancels, or reaches a kernel boundary where
// it is free:
//
//  * op(reshape(x), c) -> reshape(op(x, c)) for elementwise ops: a lowered
//    convolution's relu and bias then apply to its matmul's [N*OH*OW, F]
//    result (a cuBLASLt epilogue) instead of the [N, OH, OW, F] view;
//  * op(transpose(x, p), c) -> transpose(op(x, c'), p), with c' the
//    constant c transposed back: an NCHW model's transposes around each
//    NHWC convolution then meet between layers and cancel, through batch
//    norms, activations and residual additions;
//  * reduce(transpose(x, p)) -> transpose(reduce(x)) over the permuted
//    axes (global average pooling of an NCHW tensor);
//  * concat(transpose(a, p), transpose(b, p)) -> transpose(concat(a, b)),
//    along the permuted axis (the branches of an inception block);
//  * a transpose that only moves dimensions of size 1 is a reshape.
//
// Each applies only when every reshape or transpose it moves has no other
// user, so nothing is computed twice.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace fusec;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

bool onlyUsedBy(Operation *producer, Operation *op) {
  return llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == op; });
}

/// A new `op` with `operands` and result type `type` (same attributes).
Value cloneWith(PatternRewriter &rewriter, Operation *op, ValueRange operands,
                Type type) {
  OperationState state(op->getLoc(), op->getName(), operands, {type},
                       op->getAttrs());
  return rewriter.create(state)->getResult(0);
}

struct ElementwiseOfReshapes : RewritePattern {
  ElementwiseOfReshapes(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = typeOf(op->getResult(0));
    ArrayRef<int64_t> source; // The shape before the reshapes.
    for (Value operand : op->getOperands()) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (!reshape)
        continue;
      if (typeOf(operand).getShape() != resultType.getShape() ||
          !onlyUsedBy(reshape, op))
        return failure();
      ArrayRef<int64_t> from = reshape.getInput().getType().getShape();
      if (!source.empty() && from != source)
        return failure();
      source = from;
    }
    if (source.empty())
      return failure();
    // Other operands: their dimensions, leading 1s aside, must be trailing
    // dimensions both shapes share.
    ArrayRef<int64_t> target = resultType.getShape();
    auto significant = [](ArrayRef<int64_t> shape) {
      while (!shape.empty() && shape.front() == 1)
        shape = shape.drop_front();
      return shape;
    };
    for (Value operand : op->getOperands()) {
      if (operand.getDefiningOp<ReshapeOp>())
        continue;
      ArrayRef<int64_t> own = significant(typeOf(operand).getShape());
      int64_t r = int64_t(own.size());
      if (r > int64_t(source.size()) || source.take_back(r) != own ||
          target.take_back(r) != own)
        return failure();
    }
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (auto reshape = operand.getDefiningOp<ReshapeOp>()) {
        operands.push_back(reshape.getInput());
        continue;
      }
      RankedTensorType type = typeOf(operand);
      ArrayRef<int64_t> own = significant(type.getShape());
      operands.push_back(own.size() == size_t(type.getRank())
                             ? operand
                             : rewriter.createOrFold<ReshapeOp>(
                                   op->getLoc(), type.clone(own), operand));
    }
    Value inner = cloneWith(rewriter, op, operands, resultType.clone(source));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType, inner);
    return success();
  }
};

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [d, p] : llvm::enumerate(perm))
    inv[size_t(p)] = int64_t(d);
  return inv;
}

struct ElementwiseOfTransposes : RewritePattern {
  ElementwiseOfTransposes(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = typeOf(op->getResult(0));
    int64_t rank = resultType.getRank();
    std::optional<SmallVector<int64_t>> perm;
    for (Value operand : op->getOperands()) {
      auto transpose = operand.getDefiningOp<TransposeOp>();
      if (!transpose)
        continue;
      if (typeOf(operand).getShape() != resultType.getShape() ||
          !onlyUsedBy(transpose, op))
        return failure();
      SmallVector<int64_t> p(transpose.getPermutation());
      if (perm && *perm != p)
        return failure();
      perm = p;
    }
    if (!perm)
      return failure();
    // Other operands must be constants small enough to be transposed back
    // at compile time (the folders' limit), so that no transpose is left
    // for this pattern to move again.
    // (Resource blobs, as torch-mlir writes even small constants, fold
    // through the transpose but not through a reshape: those must already
    // have the full rank.)
    for (Value operand : op->getOperands()) {
      if (operand.getDefiningOp<TransposeOp>())
        continue;
      ElementsAttr value;
      if (!matchPattern(operand, m_Constant(&value)) ||
          (!value.isSplat() && value.getNumElements() > kMaxFoldElements) ||
          (!isa<DenseElementsAttr>(value) && typeOf(operand).getRank() != rank))
        return failure();
    }
    SmallVector<int64_t> inv = inverse(*perm);
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (auto transpose = operand.getDefiningOp<TransposeOp>()) {
        operands.push_back(transpose.getInput());
        continue;
      }
      // Right-aligned broadcast: pad the constant's shape with leading 1s
      // to the full rank, then transpose it back.
      RankedTensorType type = typeOf(operand);
      SmallVector<int64_t> full(size_t(rank - type.getRank()), 1);
      llvm::append_range(full, type.getShape());
      Value v = operand;
      if (type.getRank() != rank)
        v = rewriter.createOrFold<ReshapeOp>(op->getLoc(), type.clone(full), v);
      operands.push_back(
          rewriter.createOrFold<TransposeOp>(op->getLoc(), v, inv));
    }
    SmallVector<int64_t> inner(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
      inner[size_t((*perm)[size_t(d)])] = resultType.getDimSize(d);
    Value result = cloneWith(rewriter, op, operands, resultType.clone(inner));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, result, *perm);
    return success();
  }
};

/// reduce(transpose(x, p), A) == transpose(reduce(x, p[A]), p') with the
/// reduced dimensions kept (p' = p) or dropped (p restricted to the rest).
struct ReduceOfTranspose : RewritePattern {
  ReduceOfTranspose(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto reduce = dyn_cast<ReductionOpInterface>(op);
    if (!reduce)
      return failure();
    auto transpose = reduce.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !onlyUsedBy(transpose, op))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> axes;
    for (int64_t a : reduce.getAxes())
      axes.push_back(perm[size_t(a)]);
    llvm::sort(axes);
    bool keep = reduce.getKeepDims();
    RankedTensorType inType = typeOf(transpose.getInput());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      bool reduced = llvm::is_contained(axes, d);
      if (!reduced || keep)
        shape.push_back(reduced ? 1 : inType.getDimSize(d));
    }
    SmallVector<int64_t> outPerm;
    if (keep) {
      outPerm.assign(perm.begin(), perm.end());
    } else {
      // The kept dimensions in result order, renumbered.
      SmallVector<int64_t> kept;
      for (int64_t d = 0; d < int64_t(perm.size()); ++d)
        if (!llvm::is_contained(reduce.getAxes(), d))
          kept.push_back(perm[size_t(d)]);
      for (int64_t k : kept)
        outPerm.push_back(
            llvm::count_if(kept, [&](int64_t o) { return o < k; }));
    }
    OperationState state(op->getLoc(), op->getName(), {transpose.getInput()},
                         {typeOf(op->getResult(0)).clone(shape)},
                         op->getAttrs());
    state.attributes.set("axes", rewriter.getDenseI64ArrayAttr(axes));
    Value inner = rewriter.create(state)->getResult(0);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner, outPerm);
    return success();
  }
};

/// concat(transpose(a, p), transpose(b, p), axis) ==
/// transpose(concat(a, b, p[axis]), p): the branches of an NCHW inception
/// block join in NHWC.
struct ConcatOfTransposes : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> inputs;
    for (Value v : op.getInputs()) {
      auto transpose = v.getDefiningOp<TransposeOp>();
      if (!transpose || !onlyUsedBy(transpose, op))
        return failure();
      SmallVector<int64_t> p(transpose.getPermutation());
      if (perm && *perm != p)
        return failure();
      perm = p;
      inputs.push_back(transpose.getInput());
    }
    if (!perm)
      return failure();
    Value joined = ConcatOp::create(rewriter, op.getLoc(), inputs,
                                    uint64_t((*perm)[op.getAxis()]));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, joined, *perm);
    return success();
  }
};

/// A transpose that keeps the order of the dimensions larger than 1 moves
/// no data: a reshape.
struct TransposeOfUnitDims : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType in = op.getInput().getType();
    int64_t last = -1;
    for (int64_t p : op.getPermutation()) {
      if (in.getDimSize(p) == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

} // namespace

void fusec::populateSinkDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseOfReshapes, ElementwiseOfTransposes,
               ReduceOfTranspose, ConcatOfTransposes, TransposeOfUnitDims>(
      patterns.getContext());
}
