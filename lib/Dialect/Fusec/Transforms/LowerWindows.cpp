//===- LowerWindows.cpp - Convolution and pooling as patches --------------===//
//
// `fusec-lower-windows` (see its description in Passes.td): each window
// operation becomes pad + patches + a matmul or a reduction, built with
// the operations' own builders so that every intermediate type is
// inferred (and verified) as if written by hand.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>
#include <limits>

namespace fusec {
#define GEN_PASS_DEF_FUSECLOWERWINDOWS
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

class WindowLowering {
public:
  WindowLowering(Operation *op) : b(op), loc(op->getLoc()) {}

  RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (typeOf(v).getShape() == shape)
      return v;
    return ReshapeOp::create(b, loc, typeOf(v).clone(shape), v);
  }

  Value transpose(Value v, ArrayRef<int64_t> perm) {
    return TransposeOp::create(b, loc, v, perm);
  }

  Value castTo(Value v, Type element) {
    if (typeOf(v).getElementType() == element)
      return v;
    return CastOp::create(b, loc, typeOf(v).clone(element), v);
  }

  /// `x` padded as `w` says with `value`, then cut into windows.
  Value patches(Value x, const Window2D &w, double value) {
    if (w.padded())
      x = PadOp::create(
          b, loc, x,
          b.getDenseI64ArrayAttr({0, w.padBefore(0), w.padBefore(1), 0}),
          b.getDenseI64ArrayAttr({0, w.padAfter(0), w.padAfter(1), 0}),
          DenseI64ArrayAttr(),
          PadModeAttr::get(b.getContext(), PadMode::constant),
          b.getF64FloatAttr(value));
    return PatchesOp::create(b, loc, x, b.getDenseI64ArrayAttr(w.size),
                             b.getDenseI64ArrayAttr(w.strides),
                             b.getDenseI64ArrayAttr(w.dilations));
  }

  Value conv2d(Conv2DOp op);
  Value maxPool(MaxPool2DOp op);
  Value avgPool(AvgPool2DOp op);

  OpBuilder b;
  Location loc;
};

Value WindowLowering::conv2d(Conv2DOp op) {
  Value x = op.getInput(), filter = op.getFilter(), bias = op.getBias();
  Window2D w = op.getWindow2D();
  ArrayRef<int64_t> in = typeOf(x).getShape(), fs = typeOf(filter).getShape(),
                    out = op.getType().getShape();
  int64_t n = in[0], c = in[3], kh = fs[0], kw = fs[1], cg = fs[2], f = fs[3],
          oh = out[1], ow = out[2];
  int64_t groups = op.getGroups(), fg = f / groups;
  int64_t m = n * oh * ow, window = kh * kw;
  Type element = typeOf(x).getElementType();
  Value y;
  if (groups > 1 && cg == 1) {
    // Depthwise: sum over the window of patches x filter, per channel.
    Type compute = element.isF64() ? element : b.getF32Type();
    // [N, OH, OW, KH, KW, C] x [KH, KW, C] with one filter per channel,
    // [..., C, 1] x [KH, KW, C, Fg] with several.
    Value p = patches(x, w, 0.0), k;
    if (fg > 1) {
      p = reshape(p, {n, oh, ow, kh, kw, c, 1});
      k = reshape(filter, {kh, kw, c, fg});
    } else {
      k = reshape(filter, {kh, kw, c});
    }
    Value prod = MulOp::create(b, loc, castTo(p, compute), castTo(k, compute));
    y = ReduceSumOp::create(b, loc, prod, ArrayRef<int64_t>{3, 4},
                            /*keep_dims=*/false);
    y = castTo(reshape(y, {n, oh, ow, f}), element);
    if (bias)
      y = AddOp::create(b, loc, y, bias);
    return y;
  }
  if (groups == 1) {
    bool direct = kh == 1 && kw == 1 && w.strides[0] == 1 &&
                  w.strides[1] == 1 && !w.padded();
    Value lhs = reshape(direct ? x : patches(x, w, 0.0), {m, window * c});
    y = MatmulOp::create(b, loc, lhs, reshape(filter, {window * c, f}));
  } else {
    // Grouped: one matmul per group, batched.
    Value p = reshape(patches(x, w, 0.0), {m, window, groups, cg});
    Value lhs = reshape(transpose(p, {2, 0, 1, 3}), {groups, m, window * cg});
    Value k = reshape(filter, {window * cg, groups, fg});
    Value rhs = transpose(k, {1, 0, 2});
    y = MatmulOp::create(b, loc, lhs, rhs); // [G, M, Fg]
    y = reshape(transpose(y, {1, 0, 2}), {m, f});
  }
  if (bias)
    y = AddOp::create(b, loc, y, bias);
  return reshape(y, {n, oh, ow, f});
}

Value WindowLowering::maxPool(MaxPool2DOp op) {
  Type element = typeOf(op.getInput()).getElementType();
  double lowest = -std::numeric_limits<double>::infinity();
  if (element.isInteger(32))
    lowest = double(std::numeric_limits<int32_t>::min());
  else if (element.isInteger(64))
    lowest = double(std::numeric_limits<int64_t>::min());
  Value p = patches(op.getInput(), op.getWindow2D(), lowest);
  return ReduceMaxOp::create(b, loc, p, ArrayRef<int64_t>{3, 4},
                             /*keep_dims=*/false, /*pooling=*/true);
}

Value WindowLowering::avgPool(AvgPool2DOp op) {
  Window2D w = op.getWindow2D();
  Value p = patches(op.getInput(), w, 0.0);
  if (op.getCountIncludePad() || !w.padded())
    return ReduceMeanOp::create(b, loc, p, ArrayRef<int64_t>{3, 4},
                                /*keep_dims=*/false);
  // The number of window elements inside the input, per output position.
  ArrayRef<int64_t> in = typeOf(op.getInput()).getShape(),
                    out = op.getType().getShape();
  int64_t oh = out[1], ow = out[2];
  auto inside = [&](int d, int64_t i) {
    int64_t count = 0;
    for (int64_t k = 0; k < w.size[d]; ++k) {
      int64_t at = w.inputAt(d, i, k);
      count += at >= 0 && at < in[1 + d];
    }
    return count;
  };
  std::vector<float> counts;
  counts.reserve(size_t(oh * ow));
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      counts.push_back(float(inside(0, i) * inside(1, j)));
  auto countType = RankedTensorType::get({1, oh, ow, 1}, b.getF32Type());
  Value count = ConstantOp::create(
      b, loc, DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
  Type element = typeOf(p).getElementType();
  Value sum = ReduceSumOp::create(b, loc, p, ArrayRef<int64_t>{3, 4},
                                  /*keep_dims=*/false);
  return DivOp::create(b, loc, sum, castTo(count, element));
}

struct FusecLowerWindowsPass final
    : fusec::impl::FusecLowerWindowsBase<FusecLowerWindowsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> windows;
    getOperation().walk([&](Operation *op) {
      if (isa<Conv2DOp, MaxPool2DOp, AvgPool2DOp>(op))
        windows.push_back(op);
    });
    for (Operation *op : windows) {
      WindowLowering lowering(op);
      Value replacement;
      if (auto conv = dyn_cast<Conv2DOp>(op))
        replacement = lowering.conv2d(conv);
      else if (auto pool = dyn_cast<MaxPool2DOp>(op))
        replacement = lowering.maxPool(pool);
      else
        replacement = lowering.avgPool(cast<AvgPool2DOp>(op));
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
      ++numLowered;
    }
  }
};

} // namespace
