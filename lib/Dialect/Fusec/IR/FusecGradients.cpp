//===- FusecGradients.cpp - Derivative rules of the fusec operations ------===//
//
// DifferentiableOpInterface::backprop of every fusec operation, and the
// builders of Adjoints they use. A rule reads the adjoint of its result
// (`a.of`), the forward values it needs (`a.fwd`), and gives each operand
// its adjoint (`a.give`, which sums a broadcast gradient back to the
// operand's shape and skips operands that want none). Adjoints are built
// in the value's own element type. The conventions at kinks and ties:
//
//  * abs at 0 passes the gradient through unchanged (sign taken as +1);
//    relu at 0 passes nothing (the gradient of x > 0 only).
//  * max/min: ties give the whole gradient to the lhs. A NaN operand makes
//    the comparison false, so the gradient goes to the rhs (the result is
//    NaN anyway).
//  * reduce_max/reduce_min: the elements equal to the result share the
//    gradient equally. A NaN result matches no element: zero gradient.
//  * div: d/drhs = -(g * y) / rhs, from the forward result y = lhs / rhs.
//  * pow(a, b): d/da = g * b * pow(a, b - 1), and 0 where b == 0 (no
//    0 * inf NaN at a == 0); d/db = g * y * log(a) where a > 0 and 0 where
//    a <= 0 (or NaN), where the real logarithm does not exist.
//  * sqrt, rsqrt, log, reciprocal at 0 give the infinities (or NaN) of their
//    formulas; no special case.
//  * constant, compare, the condition of select and casts to integers are
//    piecewise constant: no gradient (fusec-autodiff rejects a float to
//    i32/i64 cast between a parameter and the loss before any rule runs).
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/Adjoints.h"

#include <cmath>

using namespace mlir;
using namespace fusec;

namespace {
RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}
} // namespace

//===----------------------------------------------------------------------===//
// Adjoints
//===----------------------------------------------------------------------===//

bool Adjoints::wants(Value v) const {
  return varied.contains(v) && isFloatTensor(v.getType());
}

void Adjoints::give(Value v, llvm::function_ref<Value()> gradient) {
  if (!wants(v))
    return;
  Value g = reduceToShape(gradient(), tensorType(v));
  auto [it, inserted] = adjoints.try_emplace(v, g);
  if (!inserted)
    it->second = add(it->second, g);
}

Value Adjoints::splat(RankedTensorType type, double value) {
  Type elem = type.getElementType();
  Attribute attr = isa<FloatType>(elem)
                       ? Attribute(b.getFloatAttr(elem, value))
                       : Attribute(b.getIntegerAttr(elem, int64_t(value)));
  return ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, ArrayRef<Attribute>(attr)));
}

Value Adjoints::scalar(Value like, double value) {
  return splat(RankedTensorType::get({}, tensorType(like).getElementType()),
               value);
}

Value Adjoints::zeros(ArrayRef<int64_t> shape, Type elem) {
  return splat(RankedTensorType::get(shape, elem), 0.0);
}

Value Adjoints::add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
Value Adjoints::sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
Value Adjoints::mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
Value Adjoints::div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
Value Adjoints::neg(Value x) { return NegOp::create(b, loc, x); }

Value Adjoints::compare(CmpPredicate p, Value x, Value y) {
  return CompareOp::create(b, loc, p, x, y);
}

Value Adjoints::select(Value c, Value t, Value f) {
  return SelectOp::create(b, loc, c, t, f);
}

Value Adjoints::castTo(Value x, Type elem) {
  RankedTensorType type = tensorType(x);
  if (type.getElementType() == elem)
    return x;
  return CastOp::create(b, loc, type.clone(elem), x);
}

Value Adjoints::reshapeTo(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(x);
  if (type.getShape() == shape)
    return x;
  return ReshapeOp::create(b, loc, type.clone(shape), x);
}

Value Adjoints::concat(ArrayRef<Value> values, int64_t axis) {
  if (values.size() == 1)
    return values.front();
  return ConcatOp::create(b, loc, values, axis);
}

Value Adjoints::transposeLastTwo(Value x) {
  int64_t rank = tensorType(x).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return TransposeOp::create(b, loc, x, perm);
}

SmallVector<int64_t> Adjoints::keepDimsShape(RankedTensorType input,
                                             ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return shape;
}

Value Adjoints::reduceToShape(Value g, RankedTensorType target) {
  RankedTensorType type = tensorType(g);
  if (type.getShape() == target.getShape())
    return g;
  int64_t lead = type.getRank() - target.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (i < lead ||
        (target.getDimSize(i - lead) == 1 && type.getDimSize(i) != 1))
      axes.push_back(i);
  if (!axes.empty())
    g = ReduceSumOp::create(b, loc, g, axes, /*keep_dims=*/false);
  return reshapeTo(g, target.getShape());
}

Value Adjoints::padZeros(Value g, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                         ArrayRef<int64_t> interior) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(interior, [](int64_t v) { return v == 0; }))
    return g;
  return PadOp::create(b, loc, g, b.getDenseI64ArrayAttr(low),
                       b.getDenseI64ArrayAttr(high),
                       b.getDenseI64ArrayAttr(interior),
                       PadModeAttr::get(b.getContext(), PadMode::constant),
                       b.getF64FloatAttr(0.0));
}

Value Adjoints::scatterSlice(Value g, RankedTensorType input,
                             ArrayRef<int64_t> start, ArrayRef<int64_t> size,
                             ArrayRef<int64_t> stride) {
  Type elem = tensorType(g).getElementType();
  if (tensorType(g).getNumElements() == 0)
    return zeros(input.getShape(), elem);
  // The elements `stride` apart (interior zeros), zeros before and after.
  SmallVector<int64_t> high, interior;
  for (int64_t d = 0, e = input.getRank(); d < e; ++d) {
    interior.push_back(stride[d] - 1);
    high.push_back(input.getDimSize(d) - start[d] -
                   ((size[d] - 1) * stride[d] + 1));
  }
  return padZeros(g, start, high, interior);
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

using P = CmpPredicate;

// No gradient: constants, comparisons, logical operations (i1 values),
// random numbers (a function of an integer key).
void ConstantOp::backprop(Adjoints &) {}
void CompareOp::backprop(Adjoints &) {}
void AndOp::backprop(Adjoints &) {}
void OrOp::backprop(Adjoints &) {}
void XorOp::backprop(Adjoints &) {}
void NotOp::backprop(Adjoints &) {}
void RandomUniformOp::backprop(Adjoints &) {}

// Unary: x the input, y the result.

void NegOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] { return a.neg(g); });
}

void AbsOp::backprop(Adjoints &a) {
  // d|x| = sign(x), with sign(0) = +1 (and NaN x: +1).
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value x = a.fwd(getInput());
    return a.select(a.compare(P::lt, x, a.scalar(x, 0)), a.neg(g), g);
  });
}

void ExpOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] { return a.mul(g, a.fwd(getResult())); });
}

void LogOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] { return a.div(g, a.fwd(getInput())); });
}

void SqrtOp::backprop(Adjoints &a) {
  // 0.5 / sqrt(x)
  Value g = a.of(getResult());
  a.give(getInput(),
         [&] { return a.div(a.mul(g, a.scalar(g, 0.5)), a.fwd(getResult())); });
}

void RsqrtOp::backprop(Adjoints &a) {
  // -0.5 * x^-1.5 = -0.5 * y / x
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    return a.div(a.mul(a.mul(g, a.scalar(g, -0.5)), a.fwd(getResult())),
                 a.fwd(getInput()));
  });
}

void ReciprocalOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value y = a.fwd(getResult());
    return a.neg(a.mul(a.mul(g, y), y));
  });
}

void TanhOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value y = a.fwd(getResult());
    return a.mul(g, a.sub(a.scalar(y, 1), a.mul(y, y)));
  });
}

void SigmoidOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value y = a.fwd(getResult());
    return a.mul(a.mul(g, y), a.sub(a.scalar(y, 1), y));
  });
}

void ReluOp::backprop(Adjoints &a) {
  // The gradient of x > 0: none at 0 (nor for NaN x).
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value x = a.fwd(getInput());
    return a.select(a.compare(P::gt, x, a.scalar(x, 0)), g, a.scalar(g, 0));
  });
}

// Piecewise constant: no gradient (zero almost everywhere).
void FloorOp::backprop(Adjoints &) {}
void CeilOp::backprop(Adjoints &) {}
void RoundOp::backprop(Adjoints &) {}
void TruncOp::backprop(Adjoints &) {}

void SinOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    return a.mul(g, CosOp::create(a.b, a.loc, a.fwd(getInput())));
  });
}

void CosOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    return a.neg(a.mul(g, SinOp::create(a.b, a.loc, a.fwd(getInput()))));
  });
}

void AtanOp::backprop(Adjoints &a) {
  // 1 / (1 + x^2)
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value x = a.fwd(getInput());
    return a.div(g, a.add(a.scalar(x, 1.0), a.mul(x, x)));
  });
}

void ErfOp::backprop(Adjoints &a) {
  // 2/sqrt(pi) * exp(-x^2)
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value x = a.fwd(getInput());
    return a.mul(g, a.mul(a.scalar(x, 2.0 / std::sqrt(M_PI)),
                          ExpOp::create(a.b, a.loc, a.neg(a.mul(x, x)))));
  });
}

void GeluOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    Value x = a.fwd(getInput());
    Value x2 = a.mul(x, x);
    if (getApproximate() == GeluApproximation::none) {
      // Phi(x) + x * phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2)),
      // phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
      Value cdf = a.mul(
          a.scalar(x, 0.5),
          a.add(a.scalar(x, 1),
                ErfOp::create(a.b, a.loc, a.mul(x, a.scalar(x, M_SQRT1_2)))));
      Value pdf = a.mul(ExpOp::create(a.b, a.loc, a.mul(x2, a.scalar(x, -0.5))),
                        a.scalar(x, 1.0 / std::sqrt(2.0 * M_PI)));
      return a.mul(g, a.add(cdf, a.mul(x, pdf)));
    }
    // t = tanh(k (x + c x^3)):
    // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
    const double k = 0.7978845608, c = 0.044715;
    Value u =
        a.mul(a.scalar(x, k), a.add(x, a.mul(a.scalar(x, c), a.mul(x2, x))));
    Value t = TanhOp::create(a.b, a.loc, u);
    Value half = a.scalar(x, 0.5);
    Value left = a.mul(half, a.add(a.scalar(x, 1), t));
    Value du = a.mul(a.scalar(x, k),
                     a.add(a.scalar(x, 1), a.mul(a.scalar(x, 3 * c), x2)));
    Value right =
        a.mul(a.mul(a.mul(half, x), a.sub(a.scalar(x, 1), a.mul(t, t))), du);
    return a.mul(g, a.add(left, right));
  });
}

// Binary: gradients of the broadcast shape, summed back by give().

void AddOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getLhs(), [&] { return g; });
  a.give(getRhs(), [&] { return g; });
}

void SubOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getLhs(), [&] { return g; });
  a.give(getRhs(), [&] { return a.neg(g); });
}

void MulOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getLhs(), [&] { return a.mul(g, a.fwd(getRhs())); });
  a.give(getRhs(), [&] { return a.mul(g, a.fwd(getLhs())); });
}

void DivOp::backprop(Adjoints &a) {
  // d/dlhs = 1 / rhs; d/drhs = -lhs / rhs^2 = -y / rhs.
  Value g = a.of(getResult());
  a.give(getLhs(), [&] { return a.div(g, a.fwd(getRhs())); });
  a.give(getRhs(), [&] {
    return a.neg(a.div(a.mul(g, a.fwd(getResult())), a.fwd(getRhs())));
  });
}

namespace {
/// max and min: ties (and -0 vs +0) go to the lhs; a NaN operand sends the
/// gradient to the rhs.
void backpropExtremum(Adjoints &a, Operation *op, P lhsWins) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (!a.wants(lhs) && !a.wants(rhs))
    return;
  Value g = a.of(op->getResult(0));
  Value mask = a.compare(lhsWins, a.fwd(lhs), a.fwd(rhs));
  a.give(lhs, [&] { return a.select(mask, g, a.scalar(g, 0)); });
  a.give(rhs, [&] { return a.select(mask, a.scalar(g, 0), g); });
}
} // namespace

void MaxOp::backprop(Adjoints &a) { backpropExtremum(a, *this, P::ge); }
void MinOp::backprop(Adjoints &a) { backpropExtremum(a, *this, P::le); }

void PowOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  Value x = a.fwd(getLhs()), e = a.fwd(getRhs());
  // e * x^(e-1), and 0 where e == 0 (x^0 is constant in x; the formula
  // would give 0 * inf = NaN at x == 0), as PyTorch does.
  a.give(getLhs(), [&] {
    Value dx = a.mul(a.mul(g, e),
                     PowOp::create(a.b, a.loc, x, a.sub(e, a.scalar(e, 1))));
    return a.select(a.compare(P::eq, e, a.scalar(e, 0)), a.scalar(g, 0), dx);
  });
  // y log(x) where the base is positive, 0 elsewhere.
  a.give(getRhs(), [&] {
    Value dy =
        a.mul(a.mul(g, a.fwd(getResult())), LogOp::create(a.b, a.loc, x));
    return a.select(a.compare(P::gt, x, a.scalar(x, 0)), dy, a.scalar(g, 0));
  });
}

void SelectOp::backprop(Adjoints &a) {
  // The condition is piecewise constant: no gradient.
  if (!a.wants(getTrueValue()) && !a.wants(getFalseValue()))
    return;
  Value g = a.of(getResult());
  Value c = a.fwd(getCondition());
  a.give(getTrueValue(), [&] { return a.select(c, g, a.scalar(g, 0)); });
  a.give(getFalseValue(), [&] { return a.select(c, a.scalar(g, 0), g); });
}

void CastOp::backprop(Adjoints &a) {
  // Only float -> float carries a gradient (wants() is false for integer
  // inputs).
  if (!isFloatTensor(getType()))
    return;
  Value g = a.of(getResult());
  a.give(getInput(),
         [&] { return a.castTo(g, getInput().getType().getElementType()); });
}

// Data movement: the adjoint data movement.

void ReshapeOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(),
         [&] { return a.reshapeTo(g, getInput().getType().getShape()); });
}

void TransposeOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    ArrayRef<int64_t> perm = getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [d, p] : llvm::enumerate(perm))
      inverse[p] = int64_t(d);
    return Value(TransposeOp::create(a.b, a.loc, g, inverse));
  });
}

void BroadcastToOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] { return g; });
}

void ConcatOp::backprop(Adjoints &a) {
  if (llvm::none_of(getInputs(), [&](Value v) { return a.wants(v); }))
    return;
  Value g = a.of(getResult());
  int64_t axis = int64_t(getAxis());
  if (getInputs().size() == 1) {
    a.give(getInputs().front(), [&] { return g; });
    return;
  }
  SmallVector<int64_t> sizes;
  for (Value v : getInputs())
    sizes.push_back(tensorType(v).getDimSize(axis));
  auto split = SplitOp::create(a.b, a.loc, g, uint64_t(axis), sizes);
  for (auto [v, piece] : llvm::zip(getInputs(), split.getResults()))
    a.give(v, [&, piece = Value(piece)] { return piece; });
}

void SplitOp::backprop(Adjoints &a) {
  SmallVector<Value> pieces;
  for (Value r : getResults()) {
    Value adjoint = a.of(r);
    pieces.push_back(adjoint ? adjoint
                             : a.zeros(tensorType(r).getShape(),
                                       tensorType(r).getElementType()));
  }
  a.give(getInput(), [&] { return a.concat(pieces, int64_t(getAxis())); });
}

void PadOp::backprop(Adjoints &a) {
  // Constant mode (notDifferentiable() refuses the others): the input's
  // elements are a strided slice of the result.
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    RankedTensorType in = getInput().getType();
    SmallVector<int64_t> stride(in.getRank(), 1);
    if (std::optional<ArrayRef<int64_t>> interior = getInterior())
      for (auto [d, v] : llvm::enumerate(*interior))
        stride[d] = v + 1;
    if (in.getNumElements() == 0)
      return a.zeros(in.getShape(), in.getElementType());
    return Value(
        SliceOp::create(a.b, a.loc, g, getLow(), in.getShape(), stride));
  });
}

std::string PadOp::notDifferentiable() {
  if (getMode() == PadMode::constant)
    return "";
  return "padding in mode " + stringifyPadMode(getMode()).str() +
         " has no derivative rule; only mode constant does";
}

void GatherOp::backprop(Adjoints &a) {
  // Each input slice receives the sum of the gradients of the places that
  // read it: a one-hot [D, J] of the (wrapped, clamped) indices times the
  // gradient as [P, J, Q].
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    RankedTensorType in = getInput().getType();
    int64_t axis = int64_t(getAxis()), dim = in.getDimSize(axis);
    Type elem = in.getElementType();
    int64_t outer = 1, inner = 1,
            count = getIndices().getType().getNumElements();
    for (int64_t d = 0; d < axis; ++d)
      outer *= in.getDimSize(d);
    for (int64_t d = axis + 1; d < in.getRank(); ++d)
      inner *= in.getDimSize(d);
    if (count == 0 || in.getNumElements() == 0)
      return a.zeros(in.getShape(), elem);
    Value idx = a.reshapeTo(a.fwd(getIndices()), {1, count});
    Type it = getIndices().getType().getElementType();
    Value wrapped = a.select(a.compare(P::lt, idx, a.scalar(idx, 0)),
                             a.add(idx, a.scalar(idx, double(dim))), idx);
    Value clamped = MinOp::create(
        a.b, a.loc, MaxOp::create(a.b, a.loc, wrapped, a.scalar(idx, 0)),
        a.scalar(idx, double(dim - 1)));
    SmallVector<Attribute> positions;
    for (int64_t i = 0; i < dim; ++i)
      positions.push_back(IntegerAttr::get(it, i));
    Value iota = ConstantOp::create(
        a.b, a.loc,
        cast<ElementsAttr>(DenseElementsAttr::get(
            RankedTensorType::get({dim, 1}, it), positions)));
    Value hot = a.castTo(a.compare(P::eq, iota, Value(clamped)), elem);
    Value spread = MatmulOp::create(a.b, a.loc, hot,
                                    a.reshapeTo(g, {outer, count, inner}));
    return a.reshapeTo(spread, in.getShape());
  });
}

void PatchesOp::backprop(Adjoints &a) {
  // Every window position (p, q) scatters its slice of the adjoint back
  // where it read: strided by the stride, offset by p * DH (q * DW). The
  // sum of those KH * KW padded slices fuses into one kernel.
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    RankedTensorType in = getInput().getType();
    ArrayRef<int64_t> out = getType().getShape();
    Window2D w = getWindow2D();
    if (getType().getNumElements() == 0)
      return a.zeros(in.getShape(), in.getElementType());
    int64_t n = out[0], oh = out[1], ow = out[2], c = out[5];
    Value sum;
    for (int64_t p = 0; p < w.size[0]; ++p)
      for (int64_t q = 0; q < w.size[1]; ++q) {
        Value piece = SliceOp::create(a.b, a.loc, g,
                                      SmallVector<int64_t>{0, 0, 0, p, q, 0},
                                      SmallVector<int64_t>{n, oh, ow, 1, 1, c},
                                      SmallVector<int64_t>(6, 1));
        piece = a.reshapeTo(piece, {n, oh, ow, c});
        int64_t top = p * w.dilations[0], left = q * w.dilations[1];
        SmallVector<int64_t> low{0, top, left, 0};
        SmallVector<int64_t> high{
            0, in.getDimSize(1) - top - ((oh - 1) * w.strides[0] + 1),
            in.getDimSize(2) - left - ((ow - 1) * w.strides[1] + 1), 0};
        SmallVector<int64_t> interior{0, w.strides[0] - 1, w.strides[1] - 1, 0};
        Value scattered = a.padZeros(piece, low, high, interior);
        sum = sum ? a.add(sum, scattered) : scattered;
      }
    return sum;
  });
}

void SliceOp::backprop(Adjoints &a) {
  Value g = a.of(getResult());
  a.give(getInput(), [&] {
    return a.scatterSlice(g, getInput().getType(), getStart(), getSize(),
                          getStride());
  });
}

// Reductions: the adjoint back to the kept shape, then broadcast.

namespace {
/// reduce_sum and reduce_mean: every element receives the gradient of its
/// row (divided by the count for the mean).
void backpropSum(Adjoints &a, ReductionOpInterface op) {
  Value input = op.getInput(), g = a.of(op->getResult(0));
  a.give(input, [&] {
    RankedTensorType type = tensorType(input);
    ArrayRef<int64_t> axes = op.getAxes();
    Value gk = a.reshapeTo(g, Adjoints::keepDimsShape(type, axes));
    if (op.getCombiner() == ReductionCombiner::Mean) {
      // The count as a double: exact up to 2^53, never negative (an int64
      // product of huge dimensions would overflow).
      double count = 1;
      for (int64_t axis : axes)
        count *= double(type.getDimSize(axis));
      // Divided in f32 (f64 for f64): a count above 65504 is inf in f16
      // (and above 2048 not exact).
      Type element = tensorType(gk).getElementType();
      Value wide = a.castTo(gk, element.isF64() ? element : a.b.getF32Type());
      gk = a.castTo(a.div(wide, a.scalar(wide, count)), element);
    }
    if (tensorType(gk).getShape() == type.getShape())
      return gk;
    return Value(BroadcastToOp::create(
        a.b, a.loc, type.clone(tensorType(gk).getElementType()), gk));
  });
}

/// Of the places where `mask` holds, the first in row-major order over
/// `axes` (i1, the input's shape): the least row-major position over the
/// reduced axes among them. Null when the reduced axes hold 2^24 elements
/// or more (their positions would not be exact in f32).
Value firstOfMask(Adjoints &a, Value mask, ArrayRef<int64_t> axes) {
  RankedTensorType type = tensorType(mask);
  SmallVector<int64_t> shape(size_t(type.getRank()), 1);
  int64_t count = 1;
  for (int64_t axis : axes) {
    shape[size_t(axis)] = type.getDimSize(axis);
    count *= type.getDimSize(axis);
  }
  if (count >= (int64_t(1) << 24))
    return Value();
  // Positions in f32, exact.
  std::vector<float> positions(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    positions[size_t(i)] = float(i);
  auto positionType = RankedTensorType::get(shape, a.b.getF32Type());
  Value iota = ConstantOp::create(
      a.b, a.loc,
      DenseElementsAttr::get(positionType, ArrayRef<float>(positions)));
  // Select and compare broadcast the positions (a broadcast_to of the
  // constant would fold into a constant of the input's size).
  Value candidates = a.select(mask, iota, a.scalar(iota, double(count)));
  Value first =
      ReduceMinOp::create(a.b, a.loc, candidates, axes, /*keep_dims=*/true);
  return a.compare(P::eq, iota, first);
}

/// reduce_max and reduce_min: the elements equal to the result share its
/// gradient equally; a `pooling` maximum gives all of it to the first
/// (NaN included: a NaN maximum came from a NaN element).
void backpropExtremum(Adjoints &a, ReductionOpInterface op) {
  Value input = op.getInput(), g = a.of(op->getResult(0));
  a.give(input, [&] {
    RankedTensorType type = tensorType(input);
    ArrayRef<int64_t> axes = op.getAxes();
    SmallVector<int64_t> keep = Adjoints::keepDimsShape(type, axes);
    Value x = a.fwd(input);
    Value mask =
        a.compare(P::eq, x, a.reshapeTo(a.fwd(op->getResult(0)), keep));
    auto max = dyn_cast<ReduceMaxOp>(op.getOperation());
    if (max && max.getPooling()) {
      Value hit = mask;
      if (isa<FloatType>(type.getElementType()))
        hit = OrOp::create(a.b, a.loc, hit, a.compare(P::ne, x, x));
      if (Value first = firstOfMask(a, hit, axes))
        return a.select(first, a.reshapeTo(g, keep), a.scalar(g, 0));
    }
    Value count =
        ReduceSumOp::create(a.b, a.loc, a.castTo(mask, type.getElementType()),
                            axes, /*keep_dims=*/true);
    return a.select(mask, a.div(a.reshapeTo(g, keep), count), a.scalar(g, 0));
  });
}
} // namespace

/// reduce_prod: each element receives the product of the others. Where the
/// row has no zero that is `prod / x`; an element that is the row's only
/// zero receives the product of the rest; every other element of a row
/// with zeros receives 0 (`prod / x` is already 0 there for nonzero x).
void ReduceProdOp::backprop(Adjoints &a) {
  Value input = getInput(), g = a.of(getResult());
  a.give(input, [&] {
    RankedTensorType type = tensorType(input);
    ArrayRef<int64_t> axes = getAxes();
    SmallVector<int64_t> keep = Adjoints::keepDimsShape(type, axes);
    Value x = a.fwd(input);
    Value prod = a.reshapeTo(a.fwd(getResult()), keep);
    Value isZero = a.compare(P::eq, x, a.scalar(x, 0));
    Value zeros =
        ReduceSumOp::create(a.b, a.loc, a.castTo(isZero, type.getElementType()),
                            axes, /*keep_dims=*/true);
    Value rest = ReduceProdOp::create(a.b, a.loc,
                                      a.select(isZero, a.scalar(x, 1), x), axes,
                                      /*keep_dims=*/true);
    Value onlyZero = a.select(a.compare(P::eq, zeros, a.scalar(zeros, 1)), rest,
                              a.scalar(rest, 0));
    Value others = a.select(isZero, onlyZero, a.div(prod, x));
    return a.mul(a.reshapeTo(g, keep), others);
  });
}

void ReduceSumOp::backprop(Adjoints &a) { backpropSum(a, *this); }
void ReduceMeanOp::backprop(Adjoints &a) { backpropSum(a, *this); }
void ReduceMaxOp::backprop(Adjoints &a) { backpropExtremum(a, *this); }
void ReduceMinOp::backprop(Adjoints &a) { backpropExtremum(a, *this); }

void MatmulOp::backprop(Adjoints &a) {
  // dlhs = g rhs^T, drhs = lhs^T g, over the broadcast batch; summed back
  // to each operand's batch shape by give(). A result wider than the
  // operands (f32 from f16/bf16) is cast to theirs first.
  Value lhs = getLhs(), rhs = getRhs();
  if (!a.wants(lhs) && !a.wants(rhs))
    return;
  Type elem = getLhs().getType().getElementType();
  Value gc = a.castTo(a.of(getResult()), elem);
  a.give(lhs, [&] {
    Value d = MatmulOp::create(a.b, a.loc, gc, a.transposeLastTwo(a.fwd(rhs)));
    return a.castTo(d, elem);
  });
  a.give(rhs, [&] {
    Value d = MatmulOp::create(a.b, a.loc, a.transposeLastTwo(a.fwd(lhs)), gc);
    return a.castTo(d, elem);
  });
}
