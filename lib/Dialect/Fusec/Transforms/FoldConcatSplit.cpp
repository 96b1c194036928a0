//===- FoldConcatSplit.cpp - Fold concatenate/split/slice pairs -----------===//
//
// Rewrites that remove data movement: values concatenated and then taken
// apart again are read from where they came from. See the pass description
// in Passes.td for the list.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECFOLDCONCATSPLIT
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// slice(x, start, size, stride), or x itself when that is the identity.
Value buildSlice(PatternRewriter &rewriter, Location loc, Value x,
                 ArrayRef<int64_t> start, ArrayRef<int64_t> size,
                 ArrayRef<int64_t> stride) {
  RankedTensorType type = tensorType(x);
  bool identity = type.getShape() == size;
  for (auto [s, st, n] : llvm::zip(start, stride, size))
    identity &= s == 0 && (st == 1 || n <= 1);
  if (identity)
    return x;
  SmallVector<int64_t> normalized(stride);
  for (auto [st, n] : llvm::zip(normalized, size))
    if (n <= 1)
      st = 1; // The stride of a dimension with one element is irrelevant.
  return SliceOp::create(rewriter, loc, type.clone(size), x, start, size,
                         normalized);
}

/// concat(values) along `axis`, or the value itself when there is one.
Value buildConcat(PatternRewriter &rewriter, Location loc, ValueRange values,
                  int64_t axis, RankedTensorType type) {
  if (values.size() == 1)
    return values.front();
  return ConcatOp::create(rewriter, loc, type, values, axis);
}

/// The part of one concat operand read by a selection along the concat
/// axis: `start` and `count` elements with the selection's stride, in the
/// operand's own indices.
struct Touched {
  Value operand;
  int64_t start, count;
};

/// The operands of `concat` that the indices s + i * st, 0 <= i < n, along
/// its axis read, in order.
SmallVector<Touched> touchedOperands(ConcatOp concat, int64_t s, int64_t n,
                                     int64_t st) {
  SmallVector<Touched> touched;
  if (n == 0)
    return touched;
  if (n == 1)
    st = 1;
  int64_t axis = concat.getAxis(), offset = 0;
  for (Value operand : concat.getInputs()) {
    int64_t len = tensorType(operand).getDimSize(axis);
    int64_t begin = offset, end = offset + len; // [begin, end)
    offset = end;
    if (len == 0 || end <= s)
      continue;
    int64_t first = begin <= s ? 0 : ceilDiv(begin - s, st);
    int64_t last = std::min(n - 1, floorDiv(end - 1 - s, st));
    if (first <= last)
      touched.push_back({operand, s + first * st - begin, last - first + 1});
  }
  return touched;
}

/// The part of `concat` selected, along its axis, by the indices
/// start + i * stride for 0 <= i < size, and in every other dimension d by
/// (start[d], size[d], stride[d]): one value per concat operand that
/// contributes, in order.
struct Selection {
  SmallVector<int64_t> start, size, stride;
};
SmallVector<Value> selectFromConcat(PatternRewriter &rewriter, Location loc,
                                    ConcatOp concat, const Selection &sel) {
  int64_t axis = concat.getAxis();
  int64_t st = sel.size[axis] == 1 ? 1 : sel.stride[axis];
  SmallVector<Value> pieces;
  for (const Touched &t :
       touchedOperands(concat, sel.start[axis], sel.size[axis], st)) {
    Selection local = sel;
    local.start[axis] = t.start;
    local.size[axis] = t.count;
    local.stride[axis] = st;
    pieces.push_back(buildSlice(rewriter, loc, t.operand, local.start,
                                local.size, local.stride));
  }
  return pieces;
}

//===----------------------------------------------------------------------===//
// slice(concat) and split(concat)
//===----------------------------------------------------------------------===//

/// Whether every use of `producer` is by `op` (x * x uses it twice).
bool onlyUsedBy(Operation *producer, Operation *op) {
  return llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == op; });
}

/// The operands of `concat` that are not empty along its axis.
int64_t nonEmptyInputs(ConcatOp concat) {
  return llvm::count_if(concat.getInputs(), [&](Value v) {
    return tensorType(v).getDimSize(concat.getAxis()) != 0;
  });
}

struct SliceOfConcat : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto concat = slice.getInput().getDefiningOp<ConcatOp>();
    if (!concat || slice.getType().getNumElements() == 0)
      return failure();
    int64_t axis = concat.getAxis();
    int64_t n = slice.getSize()[axis];
    // Spanning every (non-empty) operand helps only when the concat goes
    // away.
    if (int64_t(touchedOperands(concat, slice.getStart()[axis], n,
                                slice.getStride()[axis])
                    .size()) == nonEmptyInputs(concat) &&
        !concat->hasOneUse())
      return failure();
    Selection sel{SmallVector<int64_t>(slice.getStart()),
                  SmallVector<int64_t>(slice.getSize()),
                  SmallVector<int64_t>(slice.getStride())};
    SmallVector<Value> pieces =
        selectFromConcat(rewriter, slice.getLoc(), concat, sel);
    rewriter.replaceOp(slice, buildConcat(rewriter, slice.getLoc(), pieces,
                                          axis, slice.getType()));
    return success();
  }
};

struct SplitOfConcat : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp split,
                                PatternRewriter &rewriter) const override {
    auto concat = split.getInput().getDefiningOp<ConcatOp>();
    if (!concat || concat.getAxis() != split.getAxis())
      return failure();
    RankedTensorType type = tensorType(split.getInput());
    int64_t rank = type.getRank(), axis = split.getAxis();
    SmallVector<Value> replacements;
    int64_t offset = 0;
    for (Value result : split.getResults()) {
      RankedTensorType pieceType = tensorType(result);
      Selection sel{SmallVector<int64_t>(rank, 0),
                    SmallVector<int64_t>(pieceType.getShape()),
                    SmallVector<int64_t>(rank, 1)};
      sel.start[axis] = offset;
      offset += pieceType.getDimSize(axis);
      SmallVector<Value> pieces =
          selectFromConcat(rewriter, split.getLoc(), concat, sel);
      if (pieces.empty()) { // An empty piece: an empty slice of any input.
        sel.start[axis] = 0;
        replacements.push_back(buildSlice(rewriter, split.getLoc(),
                                          concat.getInputs().front(), sel.start,
                                          sel.size, sel.stride));
        continue;
      }
      replacements.push_back(
          buildConcat(rewriter, split.getLoc(), pieces, axis, pieceType));
    }
    rewriter.replaceOp(split, replacements);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// concat cleanups
//===----------------------------------------------------------------------===//

/// A concat operand seen as a strided window of some source tensor.
struct View {
  Value source;
  SmallVector<int64_t> start, size, stride;
};

std::optional<View> viewOf(Value value) {
  if (auto slice = value.getDefiningOp<SliceOp>())
    return View{slice.getInput(), SmallVector<int64_t>(slice.getStart()),
                SmallVector<int64_t>(slice.getSize()),
                SmallVector<int64_t>(slice.getStride())};
  if (auto split = value.getDefiningOp<SplitOp>()) {
    RankedTensorType type = tensorType(value);
    int64_t rank = type.getRank(), axis = split.getAxis();
    View view{split.getInput(), SmallVector<int64_t>(rank, 0),
              SmallVector<int64_t>(type.getShape()),
              SmallVector<int64_t>(rank, 1)};
    unsigned index = cast<OpResult>(value).getResultNumber();
    for (unsigned i = 0; i < index; ++i)
      view.start[axis] += split.getSizes()[i];
    return view;
  }
  return std::nullopt;
}

/// Merges `next` into `view` if it continues it along `axis`.
bool tryExtend(View &view, const View &next, int64_t axis) {
  if (view.source != next.source)
    return false;
  for (int64_t d = 0, e = view.size.size(); d < e; ++d) {
    if (d == axis)
      continue;
    if (view.start[d] != next.start[d] || view.size[d] != next.size[d] ||
        (view.size[d] > 1 && view.stride[d] != next.stride[d]))
      return false;
  }
  int64_t n1 = view.size[axis], n2 = next.size[axis];
  if (n1 == 0 || n2 == 0)
    return false;
  // The common stride: any one-element window can take the other's.
  int64_t st = n1 > 1   ? view.stride[axis]
               : n2 > 1 ? next.stride[axis]
                        : next.start[axis] - view.start[axis];
  if (st < 1 || (n1 > 1 && view.stride[axis] != st) ||
      (n2 > 1 && next.stride[axis] != st) ||
      next.start[axis] != view.start[axis] + n1 * st)
    return false;
  view.size[axis] = n1 + n2;
  view.stride[axis] = st;
  return true;
}

struct ConcatOfSlices : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    int64_t axis = concat.getAxis();
    SmallVector<Value> operands;
    std::optional<View> run; // The window being extended.
    Value runValue;          // Its value while it is a single operand.
    bool merged = false;
    auto flush = [&]() {
      if (!run)
        return;
      operands.push_back(runValue ? runValue
                                  : buildSlice(rewriter, concat.getLoc(),
                                               run->source, run->start,
                                               run->size, run->stride));
      run.reset();
    };
    for (Value operand : concat.getInputs()) {
      std::optional<View> view = viewOf(operand);
      if (view && run && tryExtend(*run, *view, axis)) {
        runValue = nullptr;
        merged = true;
        continue;
      }
      flush();
      if (view) {
        run = view;
        runValue = operand;
      } else {
        operands.push_back(operand);
      }
    }
    flush();
    if (!merged)
      return failure();
    rewriter.replaceOp(concat, buildConcat(rewriter, concat.getLoc(), operands,
                                           axis, concat.getType()));
    return success();
  }
};

/// Drops zero-size operands and inlines nested concats along the same axis.
struct FlattenConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    int64_t axis = concat.getAxis();
    SmallVector<Value> operands;
    bool changed = false;
    for (Value operand : concat.getInputs()) {
      if (tensorType(operand).getDimSize(axis) == 0) {
        changed = true;
        continue;
      }
      auto inner = operand.getDefiningOp<ConcatOp>();
      if (inner && int64_t(inner.getAxis()) == axis) {
        for (Value v : inner.getInputs())
          if (tensorType(v).getDimSize(axis) != 0)
            operands.push_back(v);
        changed = true;
        continue;
      }
      operands.push_back(operand);
    }
    if (!changed)
      return failure();
    if (operands.empty()) // Everything was empty: keep one empty operand.
      operands.push_back(concat.getInputs().front());
    rewriter.replaceOp(concat, buildConcat(rewriter, concat.getLoc(), operands,
                                           axis, concat.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pushing ops through concats
//===----------------------------------------------------------------------===//

/// reduce(concat(x_0, ..., x_n)) over the concat axis ==
/// combine(reduce(x_0), ..., reduce(x_n)).
template <typename ReduceOpT, typename CombineOpT>
struct ReduceOfConcat : OpRewritePattern<ReduceOpT> {
  ReduceOfConcat(MLIRContext *context, bool reassociate)
      : OpRewritePattern<ReduceOpT>(context), reassociate(reassociate) {}

  LogicalResult matchAndRewrite(ReduceOpT reduce,
                                PatternRewriter &rewriter) const override {
    auto concat = reduce.getInput().template getDefiningOp<ConcatOp>();
    if (!concat || !concat->hasOneUse() || nonEmptyInputs(concat) == 0 ||
        !llvm::is_contained(reduce.getAxes(), concat.getAxis()))
      return failure();
    Type elementType = reduce.getType().getElementType();
    if (std::is_same_v<ReduceOpT, ReduceSumOp> &&
        !elementType.isSignlessInteger() &&
        !(reassociate && elementType.isF32()))
      return failure();
    Value result;
    for (Value part : concat.getInputs()) {
      // An empty part contributes the reduction's identity: skip it.
      if (tensorType(part).getDimSize(concat.getAxis()) == 0)
        continue;
      Value reduced =
          ReduceOpT::create(rewriter, reduce.getLoc(), reduce.getType(), part,
                            reduce.getAxes(), reduce.getKeepDims());
      result = result ? CombineOpT::create(rewriter, reduce.getLoc(),
                                           reduce.getType(), result, reduced)
                      : reduced;
    }
    rewriter.replaceOp(reduce, result);
    return success();
  }

  bool reassociate;
};

/// op(concat(a_0, ..., a_n), concat(b_0, ..., b_n), c) ==
/// concat(op(a_0, b_0, c), ..., op(a_n, b_n, c)) for elementwise ops whose
/// concat operands share boundaries along one axis and whose other operands
/// broadcast along it.
struct ElementwiseOfConcats : RewritePattern {
  ElementwiseOfConcats(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    std::optional<int64_t> axis; // In result dimensions.
    SmallVector<int64_t> sizes;  // Piece sizes along the axis.
    bool singleUse = false;
    for (Value operand : op->getOperands()) {
      auto concat = operand.getDefiningOp<ConcatOp>();
      if (!concat)
        continue;
      int64_t a = concat.getAxis() + rank - tensorType(operand).getRank();
      if (tensorType(operand).getDimSize(concat.getAxis()) !=
          resultType.getDimSize(a))
        return failure(); // The concat itself is broadcast.
      SmallVector<int64_t> pieceSizes;
      for (Value v : concat.getInputs())
        pieceSizes.push_back(tensorType(v).getDimSize(concat.getAxis()));
      if (axis && (*axis != a || sizes != pieceSizes))
        return failure();
      axis = a;
      sizes = pieceSizes;
      singleUse |= onlyUsedBy(concat, op);
    }
    if (!axis || sizes.size() < 2 || !singleUse)
      return failure();
    // Every other operand must broadcast along the axis.
    for (Value operand : op->getOperands()) {
      if (operand.getDefiningOp<ConcatOp>())
        continue;
      RankedTensorType type = tensorType(operand);
      int64_t d = *axis - (rank - type.getRank());
      if (d >= 0 && type.getDimSize(d) != 1)
        return failure();
    }
    SmallVector<Value> pieces;
    for (auto [i, size] : llvm::enumerate(sizes)) {
      SmallVector<Value> operands;
      for (Value operand : op->getOperands()) {
        auto concat = operand.getDefiningOp<ConcatOp>();
        operands.push_back(concat ? concat.getInputs()[i] : operand);
      }
      SmallVector<int64_t> shape(resultType.getShape());
      shape[*axis] = size;
      OperationState state(op->getLoc(), op->getName(), operands,
                           {resultType.clone(shape)}, op->getAttrs());
      pieces.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(
        op, buildConcat(rewriter, op->getLoc(), pieces, *axis, resultType));
    return success();
  }
};

struct FusecFoldConcatSplitPass final
    : fusec::impl::FusecFoldConcatSplitBase<FusecFoldConcatSplitPass> {
  explicit FusecFoldConcatSplitPass(const FoldOptions &o = {})
      : options(*this, o) {}
  FusecFoldConcatSplitPass(const FusecFoldConcatSplitPass &other)
      : FusecFoldConcatSplitBase(other), options(*this, other.options.value) {}

  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    if (!options.binder.load(error))
      return emitError(UnknownLoc::get(context)) << error;
    RewritePatternSet set(context);
    populateFoldConcatSplitPatterns(set, options.value.reassociate);
    populateSinkDataMovementPatterns(set);
    // Also every registered op's canonicalization patterns: together with
    // the folding the greedy driver does, this pass subsumes canonicalize.
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(set, context);
    patterns = std::move(set);
    return success();
  }

  void runOnOperation() override {
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), patterns, config)))
      getOperation()->emitWarning()
          << "fusec-fold-concat-split did not reach a fixed point";
  }

  BoundPassOptions<FoldOptions> options;
  FrozenRewritePatternSet patterns;
};

} // namespace

std::unique_ptr<Pass> fusec::createFusecFoldConcatSplit(const FoldOptions &o) {
  return std::make_unique<FusecFoldConcatSplitPass>(o);
}

void FoldOptions::bindOptions(OptionBinder &binder) {
  binder.group("fold", "Folding (`fusec-fold-concat-split`)");
  binder.flag("reassociate", reassociate,
              "Let folding reassociate f32 sums (reduce_sum of a concat "
              "becomes a sum of per-operand sums)");
}

void fusec::populateFoldConcatSplitPatterns(RewritePatternSet &patterns,
                                            bool reassociate) {
  MLIRContext *context = patterns.getContext();
  patterns.add<SliceOfConcat, SplitOfConcat, ConcatOfSlices, FlattenConcat,
               ElementwiseOfConcats>(context);
  patterns.add<ReduceOfConcat<ReduceSumOp, AddOp>,
               ReduceOfConcat<ReduceMaxOp, MaxOp>,
               ReduceOfConcat<ReduceMinOp, MinOp>>(context, reassociate);
}
