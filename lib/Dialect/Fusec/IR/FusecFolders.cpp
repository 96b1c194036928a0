//===- FusecFolders.cpp - Folders and canonicalizations of fusec ops ------===//
//
// Constant evaluation of operations on literals, the algebraic identities
// (x + 0, x * 1, ...), and the chains of data movement that compose into
// one operation (canonicalization patterns). Constants are evaluated
// through each operation's EvaluableOpInterface (FusecEval.cpp, the
// interpreter's kernels), so a folded constant is what the interpreter
// computes.
//
//===----------------------------------------------------------------------===//

#include "OpSupport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Interpreter/Kernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::detail;

//===----------------------------------------------------------------------===//
// Folding
//===----------------------------------------------------------------------===//

namespace {

/// Folds `op` by evaluating it on constant operands (dense literals or
/// resource blobs). Elementwise operations on splats are evaluated on one
/// element, whatever the tensor size; other folds only run when every
/// operand and result has at most kMaxFoldElements elements, unless
/// `unlimited` (data movement that copies a constant once, such as a
/// weight's layout change).
LogicalResult foldByEvaluation(Operation *op, ArrayRef<Attribute> operands,
                               SmallVectorImpl<OpFoldResult> &results,
                               bool unlimited = false) {
  auto evaluable = dyn_cast<EvaluableOpInterface>(op);
  if (!evaluable)
    return failure();
  SmallVector<ElementsAttr> constants;
  for (Attribute attr : operands) {
    auto elements = dyn_cast_or_null<ElementsAttr>(attr);
    if (!elements)
      return failure();
    constants.push_back(elements);
  }
  bool scalar =
      isElementwise(op) &&
      llvm::all_of(constants, [](ElementsAttr a) { return a.isSplat(); });
  if (!scalar && !unlimited) {
    for (ElementsAttr elements : constants)
      if (elements.getNumElements() > kMaxFoldElements)
        return failure();
    for (Type type : op->getResultTypes())
      if (cast<RankedTensorType>(type).getNumElements() > kMaxFoldElements)
        return failure();
  }
  EvalContext ctx;
  SmallVector<Buffer> buffers;
  for (ElementsAttr elements : constants) {
    auto dense = dyn_cast<DenseElementsAttr>(elements);
    buffers.push_back(dense ? denseToBuffer(dense, /*splatAsScalar=*/scalar)
                            : elementsToBuffer(elements, ctx));
    if (!buffers.back())
      return failure();
  }
  SmallVector<Buffer> values;
  if (failed(evaluable.evaluate(buffers, ctx, values)))
    return failure();
  for (auto [value, type] : llvm::zip(values, op->getResultTypes())) {
    DenseElementsAttr attr = bufferToDense(value, cast<RankedTensorType>(type));
    if (!attr)
      return failure();
    results.push_back(attr);
  }
  return success();
}

} // namespace

OpFoldResult fusec::detail::foldSingle(Operation *op,
                                       ArrayRef<Attribute> operands,
                                       bool unlimited) {
  SmallVector<OpFoldResult, 1> results;
  if (failed(foldByEvaluation(op, operands, results, unlimited)))
    return {};
  return results.front();
}

namespace {

/// True when `attr` is a splat equal to `value` (floats compared including
/// the sign of zero).
bool isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type elementType = dense.getElementType();
  if (isa<FloatType>(elementType)) {
    APFloat v = dense.getSplatValue<APFloat>();
    bool lost = false;
    APFloat expected(value);
    expected.convert(v.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return v.bitwiseIsEqual(expected);
  }
  if (elementType.isInteger(1))
    return false;
  return dense.getSplatValue<APInt>().getSExtValue() == int64_t(value);
}

bool isFloatTensor(Type type) {
  return isa<FloatType>(cast<RankedTensorType>(type).getElementType());
}

} // namespace

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define FUSEC_FOLD_BY_EVALUATION(Op)                                           \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldSingle(*this, adaptor.getOperands());                           \
  }
FUSEC_FOLD_BY_EVALUATION(NegOp)
FUSEC_FOLD_BY_EVALUATION(AbsOp)
FUSEC_FOLD_BY_EVALUATION(ExpOp)
FUSEC_FOLD_BY_EVALUATION(LogOp)
FUSEC_FOLD_BY_EVALUATION(SqrtOp)
FUSEC_FOLD_BY_EVALUATION(RsqrtOp)
FUSEC_FOLD_BY_EVALUATION(ReciprocalOp)
FUSEC_FOLD_BY_EVALUATION(TanhOp)
FUSEC_FOLD_BY_EVALUATION(SigmoidOp)
FUSEC_FOLD_BY_EVALUATION(ReluOp)
FUSEC_FOLD_BY_EVALUATION(ErfOp)
FUSEC_FOLD_BY_EVALUATION(FloorOp)
FUSEC_FOLD_BY_EVALUATION(CeilOp)
FUSEC_FOLD_BY_EVALUATION(RoundOp)
FUSEC_FOLD_BY_EVALUATION(TruncOp)
FUSEC_FOLD_BY_EVALUATION(SinOp)
FUSEC_FOLD_BY_EVALUATION(CosOp)
FUSEC_FOLD_BY_EVALUATION(AtanOp)
FUSEC_FOLD_BY_EVALUATION(GeluOp)
FUSEC_FOLD_BY_EVALUATION(PowOp)
FUSEC_FOLD_BY_EVALUATION(MatmulOp)
FUSEC_FOLD_BY_EVALUATION(AndOp)
FUSEC_FOLD_BY_EVALUATION(OrOp)
FUSEC_FOLD_BY_EVALUATION(XorOp)
FUSEC_FOLD_BY_EVALUATION(NotOp)
#undef FUSEC_FOLD_BY_EVALUATION

/// x op c -> x for identities that hold for every x, including -0 and
/// infinities, and map NaN to NaN (a signaling NaN may come out unquieted,
/// which the dialect allows), and only when no broadcasting changes the
/// shape.
template <typename Op>
static OpFoldResult foldRightIdentity(Op op, Attribute rhs, double identity) {
  if (op.getLhs().getType() == op.getType() && isSplatOf(rhs, identity))
    return op.getLhs();
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  // x + (-0) == x for floats (x + (+0) is not: -0 + +0 == +0).
  return foldRightIdentity(*this, adaptor.getRhs(),
                           isFloatTensor(getType()) ? -0.0 : 0.0);
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  return foldRightIdentity(*this, adaptor.getRhs(), 0.0);
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  return foldRightIdentity(*this, adaptor.getRhs(), 1.0);
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  return foldRightIdentity(*this, adaptor.getRhs(), 1.0);
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  if (getLhs() == getRhs())
    return getLhs();
  return {};
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  if (getLhs() == getRhs())
    return getLhs();
  return {};
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  // x <pred> x is known for integers (floats: NaN != NaN).
  if (getLhs() == getRhs() &&
      !isa<FloatType>(getLhs().getType().getElementType())) {
    bool value = getPredicate() == CmpPredicate::eq ||
                 getPredicate() == CmpPredicate::le ||
                 getPredicate() == CmpPredicate::ge;
    return DenseElementsAttr::get(getType(), value);
  }
  return {};
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldSingle(*this, adaptor.getOperands()))
    return r;
  if (getTrueValue() == getFalseValue() &&
      getTrueValue().getType() == getType())
    return getTrueValue();
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  if (cond && cond.isSplat()) {
    Value chosen =
        cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
    if (chosen.getType() == getType())
      return chosen;
  }
  return {};
}

/// Whether every value of element type `from` is exactly representable in
/// `to`, so that converting there and on equals converting directly.
static bool isLosslessConversion(Type from, Type to) {
  if (from == to)
    return true;
  if (from.isInteger(1))
    return true; // 0 and 1 exist everywhere, and i1 -> i1 is x != 0.
  if ((from.isF16() || from.isBF16()) && to.isF32())
    return true;
  // f64 holds every f32, f16, bf16 and i32 value exactly.
  if ((from.isF32() || from.isF16() || from.isBF16() || from.isInteger(32)) &&
      to.isF64())
    return true;
  return from.isInteger(32) && to.isInteger(64);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x)) where the first cast loses nothing is a cast of x, and x
  // itself when it returns to x's type (f16 -> f32 -> f16).
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Value x = inner.getInput();
    if (x.getType() == getType() &&
        isLosslessConversion(getElementTypeOrSelf(x.getType()),
                             getElementTypeOrSelf(inner.getType())))
      return x;
  }
  return foldSingle(*this, adaptor.getOperands());
}

// The chains below (a cast of a cast, a reshape of a reshape, ...) become
// one operation of the inner one's input through canonicalization patterns
// rather than in-place folds: replacing the outer operation makes the
// greedy driver revisit the inner one, erased in the same sweep when
// nothing else reads it, where an in-place fold left it for another sweep
// over the whole function (a sweep is most of the folding pass's time on a
// large graph: bench/scaling.py).

LogicalResult CastOp::canonicalize(CastOp op, PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<CastOp>();
  if (!inner ||
      !isLosslessConversion(getElementTypeOrSelf(inner.getInput().getType()),
                            getElementTypeOrSelf(inner.getType())))
    return failure();
  rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), inner.getInput());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() || dense.getNumElements() <= kMaxFoldElements)
      return dense.reshape(getType());
  return {};
}

/// reshape(reshape(x)) -> reshape(x).
LogicalResult ReshapeOp::canonicalize(ReshapeOp op, PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<ReshapeOp>();
  if (!inner)
    return failure();
  rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput());
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  auto isIdentity = [](ArrayRef<int64_t> p) {
    for (auto [i, v] : llvm::enumerate(p))
      if (int64_t(i) != v)
        return false;
    return true;
  };
  if (isIdentity(perm))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(getType());
  // transpose(transpose(x, p), q) is x when p o q is the identity (else
  // canonicalize composes them).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    if (isIdentity(composed) && inner.getInput().getType() == getType())
      return inner.getInput();
  }
  // A constant only this transpose reads (a weight in another layout) is
  // transposed once here, whatever its size.
  return foldSingle(*this, adaptor.getOperands(),
                    /*unlimited=*/getInput().hasOneUse());
}

/// transpose(transpose(x, p), q) -> transpose(x, p o q).
LogicalResult TransposeOp::canonicalize(TransposeOp op,
                                        PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return failure();
  ArrayRef<int64_t> innerPerm = inner.getPermutation();
  SmallVector<int64_t> composed;
  for (int64_t p : op.getPermutation())
    composed.push_back(innerPerm[size_t(p)]);
  rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), composed);
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(getType());
  return foldSingle(*this, adaptor.getOperands());
}

/// Broadcasting is transitive.
LogicalResult BroadcastToOp::canonicalize(BroadcastToOp op,
                                          PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<BroadcastToOp>();
  if (!inner)
    return failure();
  rewriter.replaceOpWithNewOp<BroadcastToOp>(op, op.getType(),
                                             inner.getInput());
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return foldSingle(*this, adaptor.getOperands());
}

LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  if (getNumResults() == 1 && getInput().getType() == getType(0)) {
    results.push_back(getInput());
    return success();
  }
  return foldByEvaluation(*this, adaptor.getOperands(), results);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // The stride of a dimension of size 0 or 1 is irrelevant: make it 1, so
  // that equal slices look equal (CSE) whatever stride they were written
  // with.
  if (llvm::any_of(llvm::zip(getSize(), getStride()), [](auto sizeStride) {
        return std::get<0>(sizeStride) <= 1 && std::get<1>(sizeStride) != 1;
      })) {
    SmallVector<int64_t> stride(getStride());
    for (auto [size, st] : llvm::zip(getSize(), stride))
      if (size <= 1)
        st = 1;
    setStride(stride);
    return getResult();
  }
  if (getInput().getType() == getType() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getStride(), [](int64_t s) { return s == 1; }))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return dense.resizeSplat(getType());
  return foldSingle(*this, adaptor.getOperands());
}

/// slice(slice(x)) -> slice(x): composed start and stride.
LogicalResult SliceOp::canonicalize(SliceOp op, PatternRewriter &rewriter) {
  auto inner = op.getInput().getDefiningOp<SliceOp>();
  if (!inner)
    return failure();
  SmallVector<int64_t> start, stride;
  for (auto [s1, st1, s2, st2, size] :
       llvm::zip(inner.getStart(), inner.getStride(), op.getStart(),
                 op.getStride(), op.getSize())) {
    int64_t offset = 0, step = 1;
    if (__builtin_mul_overflow(s2, st1, &offset) ||
        __builtin_add_overflow(s1, offset, &offset) ||
        __builtin_mul_overflow(st1, st2, &step))
      return failure();
    start.push_back(offset);
    stride.push_back(size <= 1 ? 1 : step); // Unused for size <= 1.
  }
  rewriter.replaceOpWithNewOp<SliceOp>(op, op.getType(), inner.getInput(),
                                       start, op.getSize(), stride);
  return success();
}

/// A reduction whose result type equals its input type reduces nothing but
/// singleton dimensions: each result is one input element, unchanged (sums
/// start from -0, extrema from -inf/+inf, the mean divides by 1, products
/// start from 1).
template <typename Op>
static OpFoldResult foldReduce(Op op, ArrayRef<Attribute> operands) {
  if (op.getInput().getType() == op.getType())
    return op.getInput();
  return foldSingle(op, operands);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldReduce(*this, adaptor.getOperands());
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldReduce(*this, adaptor.getOperands());
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldReduce(*this, adaptor.getOperands());
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor adaptor) {
  return foldReduce(*this, adaptor.getOperands());
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldReduce(*this, adaptor.getOperands());
}
