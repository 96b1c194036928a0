//===- Autodiff.cpp - Reverse-mode automatic differentiation --------------===//
//
// buildGradientFunction and the fusec-autodiff pass. A gradient function
// clones the forward operations the loss depends on, then walks them in
// reverse, turning the adjoint of each result into adjoints of its operands
// with fusec operations in the value's own element type. The rules and their
// conventions at kinks and ties are written next to each case in
// `GradientBuilder::backprop`; the summary:
//
//  * abs at 0 passes the gradient through unchanged (sign taken as +1);
//    relu at 0 passes nothing (the gradient of x > 0 only).
//  * max/min: ties give the whole gradient to the lhs. A NaN operand makes
//    the comparison false, so the gradient goes to the rhs (the result is NaN
//    anyway).
//  * reduce_max/reduce_min: the elements equal to the result share the
//    gradient equally. A NaN result matches no element: zero gradient.
//  * div: d/drhs = -(g * y) / rhs, from the forward result y = lhs / rhs.
//  * pow(a, b): d/da = g * b * pow(a, b - 1), and 0 where b == 0 (no 0 * inf
//    NaN at a == 0); d/db = g * y * log(a) where
//    a > 0 and 0 where a <= 0 (or NaN), where the real logarithm does not
//    exist.
//  * sqrt, rsqrt, log, reciprocal at 0 give the infinities (or NaN) of their
//    formulas; no special case.
//  * compare, the condition of select and casts to i1 are piecewise
//    constant: zero gradient, no error. A cast from a float to i32/i64 whose
//    input depends on a parameter and whose result reaches the loss is an
//    error (a quantization whose gradient would silently vanish), as is any
//    operation without a rule (calls, fusions, other dialects).
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

namespace fusec {
#define GEN_PASS_DEF_FUSECAUTODIFF
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

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

/// `type` as printed in IR, without the quotes diagnostics add.
std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream(s) << type;
  return s;
}

bool isParam(func::FuncOp func, unsigned index) {
  return bool(func.getArgAttr(index, kParamAttrName));
}

/// Why `func` is not a loss function, or nothing when it is one.
std::optional<std::string> notLossReason(func::FuncOp func) {
  if (func.isExternal())
    return std::string("it has no body");
  bool hasParam = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    hasParam |= isParam(func, i);
  if (!hasParam)
    return std::string("it has no '") + kParamAttrName.str() + "' argument";
  if (func.getNumResults() == 0)
    return std::string("it has no result (the loss)");
  auto loss = dyn_cast<RankedTensorType>(func.getResultTypes().front());
  if (!loss || !isa<FloatType>(loss.getElementType()) ||
      !loss.hasStaticShape() || loss.getNumElements() != 1) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "its first result (the loss) must be a float tensor of one "
          "element, not "
       << func.getResultTypes().front();
    return s;
  }
  return std::nullopt;
}

/// Builds the gradient function of one loss function: first the analysis
/// (which operations the loss needs, which values depend on a parameter,
/// whether every operation on a path between them has a rule), then the
/// forward clone and the adjoints.
class GradientBuilder {
public:
  explicit GradientBuilder(func::FuncOp func)
      : func(func), b(func.getContext()), loc(func.getLoc()) {}

  /// Computes the needed and varied sets; emits an error at the first
  /// operation on a path from a parameter to the loss without a rule.
  LogicalResult analyze();

  /// Adds the gradient function after `func`. Call after analyze().
  func::FuncOp build(const GradientOptions &options);

private:
  //===--- IR helpers (at `loc`, with `b`) --------------------------------===//

  /// A tensor of `type` with every element `value`.
  Value splat(RankedTensorType type, double value) {
    Type elem = type.getElementType();
    Attribute attr = isa<FloatType>(elem)
                         ? Attribute(b.getFloatAttr(elem, value))
                         : Attribute(b.getIntegerAttr(elem, int64_t(value)));
    return ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef<Attribute>(attr)));
  }
  /// A rank-0 constant of `like`'s element type, broadcast by binary ops.
  Value scalar(Value like, double value) {
    return splat(RankedTensorType::get({}, tensorType(like).getElementType()),
                 value);
  }
  Value zeros(ArrayRef<int64_t> shape, Type elem) {
    return splat(RankedTensorType::get(shape, elem), 0.0);
  }

  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value compare(CmpPredicate p, Value x, Value y) {
    return CompareOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value t, Value f) {
    return SelectOp::create(b, loc, c, t, f);
  }
  /// `x` with element type `elem` (itself when it has it).
  Value castTo(Value x, Type elem) {
    RankedTensorType type = tensorType(x);
    if (type.getElementType() == elem)
      return x;
    return CastOp::create(b, loc, type.clone(elem), x);
  }
  /// `x` reshaped to `shape` (itself when it has it).
  Value reshapeTo(Value x, ArrayRef<int64_t> shape) {
    RankedTensorType type = tensorType(x);
    if (type.getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, type.clone(shape), x);
  }
  Value concat(ArrayRef<Value> values, int64_t axis) {
    if (values.size() == 1)
      return values.front();
    return ConcatOp::create(b, loc, values, axis);
  }
  /// `x` with its last two dimensions swapped.
  Value transposeLastTwo(Value x) {
    int64_t rank = tensorType(x).getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    return TransposeOp::create(b, loc, x, perm);
  }

  /// Sums `g`, a gradient of the broadcast shape, back to `target`'s
  /// shape: over the leading dimensions `target` lacks and over those where
  /// `target` has 1 and `g` not, then reshapes (dropped 1s come back).
  Value reduceToShape(Value g, RankedTensorType target);

  /// The adjoint of a slice scattered into zeros of the input's shape.
  Value scatterSlice(Value g, RankedTensorType input, ArrayRef<int64_t> start,
                     ArrayRef<int64_t> size, ArrayRef<int64_t> stride);

  /// The shape of `input` with the reduced `axes` kept as 1.
  static SmallVector<int64_t> keepDimsShape(RankedTensorType input,
                                            ArrayRef<int64_t> axes) {
    SmallVector<int64_t> shape(input.getShape());
    for (int64_t axis : axes)
      shape[axis] = 1;
    return shape;
  }

  //===--- Adjoints
  //--------------------------------------------------------===//

  /// Whether `v` (of the original function) should receive an adjoint: a
  /// float value that depends on a parameter.
  bool wants(Value v) const {
    return varied.contains(v) && isFloatTensor(v.getType());
  }
  /// Adds `gradient()` (of the broadcast shape of `v`'s use, summed back to
  /// `v`'s shape here) to the adjoint of `v`, if `v` wants one.
  void give(Value v, llvm::function_ref<Value()> gradient);
  /// The clone of original value `v` in the gradient function.
  Value fwd(Value v) const { return mapping.lookup(v); }

  /// Emits the adjoints of the operands of `op` from those of its results.
  void backprop(Operation *op);

  func::FuncOp func;
  OpBuilder b;
  Location loc;
  /// Values that depend on a `fusec.param` argument.
  llvm::DenseSet<Value> varied;
  /// Operations the loss depends on, in order.
  SmallVector<Operation *> needed;
  /// Original values to their clones.
  IRMapping mapping;
  /// Original values to their adjoints (values of the gradient function).
  llvm::DenseMap<Value, Value> adjoints;
};

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// Operations with a derivative rule; integer results never carry one.
bool hasRule(Operation *op) {
  return isa<ConstantOp, NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
             ReciprocalOp, TanhOp, SigmoidOp, ReluOp, ErfOp, GeluOp, AddOp,
             SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, CompareOp, SelectOp,
             CastOp, ReshapeOp, TransposeOp, BroadcastToOp, ConcatOp, SplitOp,
             SliceOp, ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
             MatmulOp>(op);
}

/// The operands of `op`, and the values its regions use from above.
SmallVector<Value> inputsOf(Operation *op) {
  SmallVector<Value> inputs(op->getOperands());
  if (op->getNumRegions() != 0) {
    llvm::SetVector<Value> above;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, above);
    inputs.append(above.begin(), above.end());
  }
  return inputs;
}

LogicalResult GradientBuilder::analyze() {
  Block &body = func.getBody().front();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (isParam(func, i))
      varied.insert(body.getArgument(i));

  // Forward: what depends on a parameter.
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(inputsOf(&op),
                     [&](Value v) { return varied.contains(v); }))
      varied.insert(op.result_begin(), op.result_end());

  // Backward: what the loss depends on.
  llvm::DenseSet<Value> reaches;
  reaches.insert(body.getTerminator()->getOperand(0));
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (llvm::none_of(op.getResults(),
                      [&](Value v) { return reaches.contains(v); }))
      continue;
    needed.push_back(&op);
    for (Value v : inputsOf(&op))
      reaches.insert(v);
  }
  std::reverse(needed.begin(), needed.end());

  // Every operation on a path from a parameter to the loss needs a rule.
  for (Operation *op : needed) {
    if (llvm::none_of(inputsOf(op),
                      [&](Value v) { return varied.contains(v); }))
      continue;
    if (auto castOp = dyn_cast<CastOp>(op)) {
      Type from = castOp.getInput().getType().getElementType();
      Type to = castOp.getType().getElementType();
      if (isa<FloatType>(from) && to.isInteger() && !to.isInteger(1))
        return op->emitError()
               << "'" << op->getName() << "' from " << typeName(from) << " to "
               << typeName(to)
               << " is not differentiable: its input depends on a '"
               << kParamAttrName << "' argument and its result reaches the "
               << "loss (its gradient would be zero almost everywhere)";
      continue;
    }
    if (hasRule(op))
      continue;
    StringRef hint = "(no derivative rule for this operation)";
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      auto callee = dyn_cast_or_null<func::FuncOp>(call.resolveCallable());
      hint = callee && callee.isExternal()
                 ? "(its callee is a declaration without a body)"
                 : "(inline calls first)";
    } else if (isa<FusionOp>(op))
      hint = "(differentiate before fusion)";
    return op->emitError() << "cannot differentiate through '" << op->getName()
                           << "': it depends on a '" << kParamAttrName
                           << "' argument and its result reaches the loss "
                           << hint;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

Value GradientBuilder::reduceToShape(Value g, RankedTensorType target) {
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

Value GradientBuilder::scatterSlice(Value g, RankedTensorType input,
                                    ArrayRef<int64_t> start,
                                    ArrayRef<int64_t> size,
                                    ArrayRef<int64_t> stride) {
  Type elem = tensorType(g).getElementType();
  if (tensorType(g).getNumElements() == 0)
    return zeros(input.getShape(), elem);
  int64_t rank = input.getRank();
  Value v = g;
  // One dimension at a time: spread the elements `stride` apart (zeros in
  // between), then pad with zeros before and after.
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<int64_t> shape(tensorType(v).getShape());
    int64_t n = size[d], st = stride[d], len = n;
    if (st > 1 && n > 1) {
      // [.., n, ..] -> [.., n, 1, ..] ++ zeros [.., n, st-1, ..] along the
      // new axis -> [.., n * st, ..], of which the first (n-1)*st+1 count.
      SmallVector<int64_t> unit(shape);
      unit.insert(unit.begin() + d + 1, 1);
      SmallVector<int64_t> gap(unit);
      gap[d + 1] = st - 1;
      Value spread = concat({reshapeTo(v, unit), zeros(gap, elem)}, d + 1);
      SmallVector<int64_t> merged(shape);
      merged[d] = n * st;
      len = (n - 1) * st + 1;
      SmallVector<int64_t> sizes(merged);
      sizes[d] = len;
      v = SliceOp::create(b, loc, reshapeTo(spread, merged),
                          SmallVector<int64_t>(rank, 0), sizes,
                          SmallVector<int64_t>(rank, 1));
      shape = sizes;
    }
    int64_t before = start[d], after = input.getDimSize(d) - start[d] - len;
    SmallVector<Value> parts;
    if (before > 0) {
      SmallVector<int64_t> pad(shape);
      pad[d] = before;
      parts.push_back(zeros(pad, elem));
    }
    parts.push_back(v);
    if (after > 0) {
      SmallVector<int64_t> pad(shape);
      pad[d] = after;
      parts.push_back(zeros(pad, elem));
    }
    v = concat(parts, d);
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

void GradientBuilder::give(Value v, llvm::function_ref<Value()> gradient) {
  if (!wants(v))
    return;
  Value g = reduceToShape(gradient(), tensorType(v));
  auto [it, inserted] = adjoints.try_emplace(v, g);
  if (!inserted)
    it->second = add(it->second, g);
}

void GradientBuilder::backprop(Operation *op) {
  loc = op->getLoc();
  // The adjoint of the (first) result; split handles its results itself.
  Value g =
      op->getNumResults() == 0 ? Value() : adjoints.lookup(op->getResult(0));
  using P = CmpPredicate;
  llvm::TypeSwitch<Operation *>(op)
      // Unary: x the input, y the result (both clones).
      .Case([&](NegOp o) { give(o.getInput(), [&] { return neg(g); }); })
      .Case([&](AbsOp o) {
        // d|x| = sign(x), with sign(0) = +1 (and NaN x: +1).
        give(o.getInput(), [&] {
          Value x = fwd(o.getInput());
          return select(compare(P::lt, x, scalar(x, 0)), neg(g), g);
        });
      })
      .Case([&](ExpOp o) {
        give(o.getInput(), [&] { return mul(g, fwd(o.getResult())); });
      })
      .Case([&](LogOp o) {
        give(o.getInput(), [&] { return div(g, fwd(o.getInput())); });
      })
      .Case([&](SqrtOp o) {
        // 0.5 / sqrt(x)
        give(o.getInput(),
             [&] { return div(mul(g, scalar(g, 0.5)), fwd(o.getResult())); });
      })
      .Case([&](RsqrtOp o) {
        // -0.5 * x^-1.5 = -0.5 * y / x
        give(o.getInput(), [&] {
          return div(mul(mul(g, scalar(g, -0.5)), fwd(o.getResult())),
                     fwd(o.getInput()));
        });
      })
      .Case([&](ReciprocalOp o) {
        give(o.getInput(), [&] {
          Value y = fwd(o.getResult());
          return neg(mul(mul(g, y), y));
        });
      })
      .Case([&](TanhOp o) {
        give(o.getInput(), [&] {
          Value y = fwd(o.getResult());
          return mul(g, sub(scalar(y, 1), mul(y, y)));
        });
      })
      .Case([&](SigmoidOp o) {
        give(o.getInput(), [&] {
          Value y = fwd(o.getResult());
          return mul(mul(g, y), sub(scalar(y, 1), y));
        });
      })
      .Case([&](ReluOp o) {
        // The gradient of x > 0: none at 0 (nor for NaN x).
        give(o.getInput(), [&] {
          Value x = fwd(o.getInput());
          return select(compare(P::gt, x, scalar(x, 0)), g, scalar(g, 0));
        });
      })
      .Case([&](ErfOp o) {
        // 2/sqrt(pi) * exp(-x^2)
        give(o.getInput(), [&] {
          Value x = fwd(o.getInput());
          return mul(g, mul(scalar(x, 2.0 / std::sqrt(M_PI)),
                            ExpOp::create(b, loc, neg(mul(x, x)))));
        });
      })
      .Case([&](GeluOp o) {
        give(o.getInput(), [&] {
          Value x = fwd(o.getInput());
          Value x2 = mul(x, x);
          if (o.getApproximate() == GeluApproximation::none) {
            // Phi(x) + x * phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2)),
            // phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
            Value cdf =
                mul(scalar(x, 0.5),
                    add(scalar(x, 1),
                        ErfOp::create(b, loc, mul(x, scalar(x, M_SQRT1_2)))));
            Value pdf = mul(ExpOp::create(b, loc, mul(x2, scalar(x, -0.5))),
                            scalar(x, 1.0 / std::sqrt(2.0 * M_PI)));
            return mul(g, add(cdf, mul(x, pdf)));
          }
          // t = tanh(k (x + c x^3)):
          // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
          const double k = 0.7978845608, c = 0.044715;
          Value u = mul(scalar(x, k), add(x, mul(scalar(x, c), mul(x2, x))));
          Value t = TanhOp::create(b, loc, u);
          Value half = scalar(x, 0.5);
          Value left = mul(half, add(scalar(x, 1), t));
          Value du =
              mul(scalar(x, k), add(scalar(x, 1), mul(scalar(x, 3 * c), x2)));
          Value right =
              mul(mul(mul(half, x), sub(scalar(x, 1), mul(t, t))), du);
          return mul(g, add(left, right));
        });
      })
      // Binary: gradients of the broadcast shape, summed back by give().
      .Case([&](AddOp o) {
        give(o.getLhs(), [&] { return g; });
        give(o.getRhs(), [&] { return g; });
      })
      .Case([&](SubOp o) {
        give(o.getLhs(), [&] { return g; });
        give(o.getRhs(), [&] { return neg(g); });
      })
      .Case([&](MulOp o) {
        give(o.getLhs(), [&] { return mul(g, fwd(o.getRhs())); });
        give(o.getRhs(), [&] { return mul(g, fwd(o.getLhs())); });
      })
      .Case([&](DivOp o) {
        // d/dlhs = 1 / rhs; d/drhs = -lhs / rhs^2 = -y / rhs.
        give(o.getLhs(), [&] { return div(g, fwd(o.getRhs())); });
        give(o.getRhs(), [&] {
          return neg(div(mul(g, fwd(o.getResult())), fwd(o.getRhs())));
        });
      })
      .Case<MaxOp, MinOp>([&](Operation *o) {
        // Ties (and -0 vs +0) go to the lhs; a NaN operand sends the
        // gradient to the rhs.
        Value lhs = o->getOperand(0), rhs = o->getOperand(1);
        if (!wants(lhs) && !wants(rhs))
          return;
        Value mask = compare(isa<MaxOp>(o) ? P::ge : P::le, fwd(lhs), fwd(rhs));
        give(lhs, [&] { return select(mask, g, scalar(g, 0)); });
        give(rhs, [&] { return select(mask, scalar(g, 0), g); });
      })
      .Case([&](PowOp o) {
        Value a = fwd(o.getLhs()), e = fwd(o.getRhs());
        // e * a^(e-1), and 0 where e == 0 (a^0 is constant in a; the formula
        // would give 0 * inf = NaN at a == 0), as PyTorch does.
        give(o.getLhs(), [&] {
          Value da =
              mul(mul(g, e), PowOp::create(b, loc, a, sub(e, scalar(e, 1))));
          return select(compare(P::eq, e, scalar(e, 0)), scalar(g, 0), da);
        });
        // y log(a) where the base is positive, 0 elsewhere.
        give(o.getRhs(), [&] {
          Value dy = mul(mul(g, fwd(o.getResult())), LogOp::create(b, loc, a));
          return select(compare(P::gt, a, scalar(a, 0)), dy, scalar(g, 0));
        });
      })
      .Case([&](SelectOp o) {
        // The condition is piecewise constant: no gradient.
        if (!wants(o.getTrueValue()) && !wants(o.getFalseValue()))
          return;
        Value c = fwd(o.getCondition());
        give(o.getTrueValue(), [&] { return select(c, g, scalar(g, 0)); });
        give(o.getFalseValue(), [&] { return select(c, scalar(g, 0), g); });
      })
      .Case([&](CastOp o) {
        // Only float -> float carries a gradient (wants() is false for
        // integer inputs; float -> integer on a path was rejected).
        if (!isFloatTensor(o.getType()))
          return;
        give(o.getInput(), [&] {
          return castTo(g, o.getInput().getType().getElementType());
        });
      })
      // Data movement: the adjoint data movement.
      .Case([&](ReshapeOp o) {
        give(o.getInput(),
             [&] { return reshapeTo(g, o.getInput().getType().getShape()); });
      })
      .Case([&](TransposeOp o) {
        give(o.getInput(), [&] {
          ArrayRef<int64_t> perm = o.getPermutation();
          SmallVector<int64_t> inverse(perm.size());
          for (auto [d, p] : llvm::enumerate(perm))
            inverse[p] = int64_t(d);
          return Value(TransposeOp::create(b, loc, g, inverse));
        });
      })
      .Case([&](BroadcastToOp o) { give(o.getInput(), [&] { return g; }); })
      .Case([&](ConcatOp o) {
        if (llvm::none_of(o.getInputs(), [&](Value v) { return wants(v); }))
          return;
        int64_t axis = int64_t(o.getAxis());
        if (o.getInputs().size() == 1) {
          give(o.getInputs().front(), [&] { return g; });
          return;
        }
        SmallVector<int64_t> sizes;
        for (Value v : o.getInputs())
          sizes.push_back(tensorType(v).getDimSize(axis));
        auto split = SplitOp::create(b, loc, g, uint64_t(axis), sizes);
        for (auto [v, piece] : llvm::zip(o.getInputs(), split.getResults()))
          give(v, [&, piece = Value(piece)] { return piece; });
      })
      .Case([&](SplitOp o) {
        SmallVector<Value> pieces;
        for (Value r : o.getResults()) {
          Value a = adjoints.lookup(r);
          pieces.push_back(a ? a
                             : zeros(tensorType(r).getShape(),
                                     tensorType(r).getElementType()));
        }
        give(o.getInput(),
             [&] { return concat(pieces, int64_t(o.getAxis())); });
      })
      .Case([&](SliceOp o) {
        give(o.getInput(), [&] {
          return scatterSlice(g, o.getInput().getType(), o.getStart(),
                              o.getSize(), o.getStride());
        });
      })
      // Reductions: g back to the kept shape, then broadcast.
      .Case<ReduceSumOp, ReduceMeanOp>([&](Operation *o) {
        Value input = o->getOperand(0);
        give(input, [&] {
          RankedTensorType type = tensorType(input);
          ArrayRef<int64_t> axes = isa<ReduceSumOp>(o)
                                       ? cast<ReduceSumOp>(o).getAxes()
                                       : cast<ReduceMeanOp>(o).getAxes();
          Value gk = reshapeTo(g, keepDimsShape(type, axes));
          if (isa<ReduceMeanOp>(o)) {
            int64_t count = 1;
            for (int64_t axis : axes)
              count *= type.getDimSize(axis);
            // Divided in f32: a count above 65504 is inf in f16 (and
            // above 2048 not exact).
            Type element = tensorType(gk).getElementType();
            Value g32 = castTo(gk, b.getF32Type());
            gk = castTo(div(g32, scalar(g32, double(count))), element);
          }
          if (tensorType(gk).getShape() == type.getShape())
            return gk;
          return Value(BroadcastToOp::create(
              b, loc, type.clone(tensorType(gk).getElementType()), gk));
        });
      })
      .Case<ReduceMaxOp, ReduceMinOp>([&](Operation *o) {
        // The elements equal to the result share its gradient equally.
        Value input = o->getOperand(0);
        give(input, [&] {
          RankedTensorType type = tensorType(input);
          ArrayRef<int64_t> axes = isa<ReduceMaxOp>(o)
                                       ? cast<ReduceMaxOp>(o).getAxes()
                                       : cast<ReduceMinOp>(o).getAxes();
          SmallVector<int64_t> keep = keepDimsShape(type, axes);
          Value x = fwd(input);
          Value mask = compare(P::eq, x, reshapeTo(fwd(o->getResult(0)), keep));
          Value count = ReduceSumOp::create(
              b, loc, castTo(mask, type.getElementType()), axes,
              /*keep_dims=*/true);
          return select(mask, div(reshapeTo(g, keep), count), scalar(g, 0));
        });
      })
      .Case([&](MatmulOp o) {
        // dlhs = g rhs^T, drhs = lhs^T g, over the broadcast batch; summed
        // back to each operand's batch shape by give(). A result wider than
        // the operands (f32 from f16/bf16) is cast to theirs first.
        Value lhs = o.getLhs(), rhs = o.getRhs();
        if (!wants(lhs) && !wants(rhs))
          return;
        Type elem = o.getLhs().getType().getElementType();
        Value gc = castTo(g, elem);
        give(lhs, [&] {
          Value d = MatmulOp::create(b, loc, gc, transposeLastTwo(fwd(rhs)));
          return castTo(d, elem);
        });
        give(rhs, [&] {
          Value d = MatmulOp::create(b, loc, transposeLastTwo(fwd(lhs)), gc);
          return castTo(d, elem);
        });
      })
      // constant, compare: no gradient.
      .Default([](Operation *) {});
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

func::FuncOp GradientBuilder::build(const GradientOptions &options) {
  MLIRContext *context = func.getContext();
  Block &body = func.getBody().front();
  Value loss = body.getTerminator()->getOperand(0);
  auto lossType = cast<RankedTensorType>(loss.getType());

  SmallVector<Type> inputs(func.getArgumentTypes());
  SmallVector<Location> argLocs;
  for (BlockArgument arg : body.getArguments())
    argLocs.push_back(arg.getLoc());
  if (options.seedArgument) {
    inputs.push_back(lossType);
    argLocs.push_back(func.getLoc());
  }
  SmallVector<Type> results{lossType};
  SmallVector<unsigned> params;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (isParam(func, i)) {
      params.push_back(i);
      results.push_back(func.getArgumentTypes()[i]);
    }

  b.setInsertionPointAfter(func);
  auto grad = func::FuncOp::create(b, func.getLoc(), options.name,
                                   FunctionType::get(context, inputs, results));
  grad.setVisibility(func.getVisibility());
  SmallVector<DictionaryAttr> argAttrs;
  func.getAllArgAttrs(argAttrs);
  if (options.seedArgument)
    argAttrs.push_back(DictionaryAttr::get(context));
  grad.setAllArgAttrs(argAttrs);
  Block *entry = b.createBlock(&grad.getBody(), {}, inputs, argLocs);

  // Forward.
  for (auto [from, to] : llvm::zip(body.getArguments(), entry->getArguments()))
    mapping.map(from, to);
  for (Operation *op : needed)
    b.clone(*op, mapping);

  // Seed.
  loc = func.getLoc();
  adjoints[loss] = options.seedArgument ? entry->getArguments().back()
                                        : splat(lossType, 1.0);

  // Reverse.
  for (Operation *op : llvm::reverse(needed)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value r) { return adjoints.contains(r); }) ||
        llvm::none_of(op->getOperands(), [&](Value v) { return wants(v); }))
      continue;
    backprop(op);
  }

  loc = func.getLoc();
  SmallVector<Value> returned{fwd(loss)};
  for (unsigned i : params) {
    Value arg = body.getArgument(i);
    Value g = adjoints.lookup(arg);
    returned.push_back(g ? g : splat(cast<RankedTensorType>(arg.getType()), 0));
  }
  func::ReturnOp::create(b, loc, returned);
  return grad;
}

} // namespace

bool fusec::isLossFunction(func::FuncOp func) { return !notLossReason(func); }

FailureOr<func::FuncOp>
fusec::buildGradientFunction(func::FuncOp func,
                             const GradientOptions &options) {
  if (std::optional<std::string> reason = notLossReason(func))
    return func.emitError()
           << "cannot differentiate '" << func.getSymName() << "': " << *reason;
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "cannot differentiate '" << func.getSymName()
                            << "': its body has several blocks";
  // A parameter has a gradient of its own type: a statically shaped float
  // tensor (an integer "parameter" would be changed by an optimizer that
  // has no gradient for it).
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!isParam(func, i))
      continue;
    Type type = func.getArgumentTypes()[i];
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !isa<FloatType>(tensor.getElementType()))
      return emitError(func.getArgument(i).getLoc())
             << "'" << kParamAttrName << "' argument #" << i << " of '"
             << func.getSymName() << "' has type " << type
             << ": parameters must be statically shaped float tensors";
  }
  Operation *symbolTable = func->getParentOp();
  if (!symbolTable || !symbolTable->hasTrait<mlir::OpTrait::SymbolTable>())
    return func.emitError("cannot differentiate a function outside a module");
  if (SymbolTable::lookupSymbolIn(symbolTable, options.name))
    return func.emitError() << "cannot create the gradient function '"
                            << options.name << "': the name is taken";

  GradientBuilder builder(func);
  if (failed(builder.analyze()))
    return failure();
  func::FuncOp grad = builder.build(options);
  if (failed(verify(grad))) {
    grad.erase();
    return func.emitError() << "internal error: the gradient function of '"
                            << func.getSymName() << "' does not verify";
  }
  return grad;
}

namespace {
struct FusecAutodiffPass final
    : fusec::impl::FusecAutodiffBase<FusecAutodiffPass> {
  explicit FusecAutodiffPass(const AutodiffOptions &o = {})
      : options(*this, o) {}
  FusecAutodiffPass(const FusecAutodiffPass &other)
      : FusecAutodiffBase(other), options(*this, other.options.value) {}

  void runOnOperation() override {
    if (failed(options.load(getOperation())))
      return signalPassFailure();
    // Snapshot first: gradient functions are themselves loss functions.
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (std::optional<std::string> reason = notLossReason(func)) {
        // Marked parameters but no loss: say why nothing is built.
        if (!func.isExternal() &&
            llvm::any_of(llvm::seq(func.getNumArguments()),
                         [&](unsigned i) { return isParam(func, i); }))
          func.emitWarning() << "no gradient function for '"
                             << func.getSymName() << "': " << *reason;
        continue;
      }
      GradientOptions options;
      options.name = (func.getSymName() + this->options.value.suffix).str();
      if (failed(buildGradientFunction(func, options)))
        signalPassFailure();
    }
  }

  BoundPassOptions<AutodiffOptions> options;
};
} // namespace

std::unique_ptr<Pass> fusec::createFusecAutodiff(const AutodiffOptions &o) {
  return std::make_unique<FusecAutodiffPass>(o);
}

void AutodiffOptions::bindOptions(OptionBinder &binder) {
  binder.group("autodiff", "Automatic differentiation (`fusec-autodiff`)");
  binder.text("suffix", suffix, "Name suffix of the gradient functions",
              "text");
}
