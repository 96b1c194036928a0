//===- OnnxElementwise.cpp - ONNX elementwise operators -------------------===//
//
// Operators that map onto fusec's elementwise operations, alone or as a
// small composition (LeakyRelu as a select, HardSwish as a product with a
// clamp, ...). ONNX's multidirectional broadcasting is NumPy's, which fusec
// implements: operands pass through unchanged.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

/// Fails unless input `i` exists and is a float tensor.
LogicalResult needFloat(Node &n, unsigned i = 0) {
  Value v = n.input(i);
  if (!v)
    return n.fail("input " + Twine(i) + " is missing");
  if (!isa<FloatType>(n.elementOf(v)))
    return n.fail("input " + Twine(i) + " is not a float tensor");
  return success();
}

/// The operands must share an element type (ONNX requires it).
LogicalResult sameElement(Node &n, Value x, Value y) {
  if (n.elementOf(x) != n.elementOf(y))
    return n.fail("operands of different element types");
  return success();
}

template <typename Op> LogicalResult unary(Node &n) {
  if (failed(n.need(1)))
    return failure();
  n.outputs.push_back(n.make<Op>(n.input(0)));
  return success();
}

template <typename Op> LogicalResult floatUnary(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  n.outputs.push_back(n.make<Op>(n.input(0)));
  return success();
}

template <typename Op> LogicalResult binary(Node &n) {
  if (failed(n.need(2)) || failed(sameElement(n, n.input(0), n.input(1))))
    return failure();
  n.outputs.push_back(n.binary<Op>(n.input(0), n.input(1)));
  return success();
}

/// Max, Min, Sum, Mean: one or more operands, folded left.
template <typename Op> LogicalResult variadic(Node &n) {
  if (n.numInputs() == 0 || !n.input(0))
    return n.fail("needs at least one input");
  Value acc = n.input(0);
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    if (!n.input(i) || failed(sameElement(n, acc, n.input(i))))
      return n.fail("input " + Twine(i) + " is missing or of another type");
    acc = n.binary<Op>(acc, n.input(i));
  }
  n.outputs.push_back(acc);
  return success();
}

LogicalResult mean(Node &n) {
  if (failed(variadic<AddOp>(n)) || failed(needFloat(n)))
    return failure();
  Value sum = n.outputs.front();
  n.outputs.front() =
      n.div(sum, n.scalar(n.elementOf(sum), double(n.numInputs())));
  return success();
}

template <CmpPredicate P> LogicalResult comparison(Node &n) {
  if (failed(n.need(2)) || failed(sameElement(n, n.input(0), n.input(1))))
    return failure();
  n.outputs.push_back(n.compare(P, n.input(0), n.input(1)));
  return success();
}

LogicalResult where(Node &n) {
  if (failed(n.need(3)))
    return failure();
  n.outputs.push_back(n.select(n.input(0), n.input(1), n.input(2)));
  return success();
}

LogicalResult pow(Node &n) {
  if (failed(needFloat(n)) || failed(n.need(2)))
    return failure();
  Value x = n.input(0);
  n.outputs.push_back(n.binary<PowOp>(x, n.castTo(n.input(1), n.elementOf(x))));
  return success();
}

LogicalResult identity(Node &n) {
  if (failed(n.need(1)))
    return failure();
  n.outputs.push_back(n.input(0));
  return success();
}

/// Clip: bounds as attributes before opset 11, optional inputs after.
LogicalResult clip(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  Value lo, hi;
  if (n.opset < 11) {
    if (n.attribute("min"))
      lo = n.scalar(t, n.getFloat("min", 0));
    if (n.attribute("max"))
      hi = n.scalar(t, n.getFloat("max", 0));
  } else {
    lo = n.input(1);
    hi = n.input(2);
  }
  if (lo)
    x = n.max(x, n.castTo(lo, t));
  if (hi)
    x = n.min(x, n.castTo(hi, t));
  n.outputs.push_back(x);
  return success();
}

/// x < 0 ? f(x) : x.
LogicalResult negativePart(Node &n, function_ref<Value(Value)> f,
                           bool orEqual = false) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  Value zero = n.scalar(n.elementOf(x), 0);
  n.outputs.push_back(n.select(
      n.compare(orEqual ? CmpPredicate::le : CmpPredicate::lt, x, zero), f(x),
      x));
  return success();
}

LogicalResult leakyRelu(Node &n) {
  double alpha = n.getFloat("alpha", 0.01f);
  return negativePart(
      n, [&](Value x) { return n.mul(x, n.scalar(n.elementOf(x), alpha)); });
}

LogicalResult prelu(Node &n) {
  if (failed(n.need(2)) || failed(sameElement(n, n.input(0), n.input(1))))
    return failure();
  Value slope = n.input(1);
  return negativePart(n, [&](Value x) { return n.mul(x, slope); });
}

/// alpha * (exp(x) - 1).
Value expm1Times(Node &n, Value x, double alpha) {
  Type t = n.elementOf(x);
  return n.mul(n.scalar(t, alpha), n.sub(n.make<ExpOp>(x), n.scalar(t, 1.0)));
}

LogicalResult elu(Node &n) {
  double alpha = n.getFloat("alpha", 1.0f);
  return negativePart(n, [&](Value x) { return expm1Times(n, x, alpha); });
}

LogicalResult selu(Node &n) {
  double alpha = n.getFloat("alpha", 1.67326319217681884765625f);
  double gamma = n.getFloat("gamma", 1.05070102214813232421875f);
  if (failed(negativePart(
          n, [&](Value x) { return expm1Times(n, x, alpha); }, true)))
    return failure();
  Value y = n.outputs.front();
  n.outputs.front() = n.mul(y, n.scalar(n.elementOf(y), gamma));
  return success();
}

LogicalResult celu(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  double alpha = n.getFloat("alpha", 1.0f);
  Value x = n.input(0);
  Type t = n.elementOf(x);
  Value zero = n.scalar(t, 0);
  Value neg = expm1Times(n, n.div(x, n.scalar(t, alpha)), alpha);
  n.outputs.push_back(n.add(n.max(x, zero), n.min(zero, neg)));
  return success();
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoidOf(Node &n, Value x, double alpha, double beta) {
  Type t = n.elementOf(x);
  Value y = n.add(n.mul(x, n.scalar(t, alpha)), n.scalar(t, beta));
  return n.max(n.scalar(t, 0), n.min(n.scalar(t, 1), y));
}

LogicalResult hardSigmoid(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  n.outputs.push_back(hardSigmoidOf(n, n.input(0), n.getFloat("alpha", 0.2f),
                                    n.getFloat("beta", 0.5f)));
  return success();
}

LogicalResult hardSwish(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  n.outputs.push_back(n.mul(x, hardSigmoidOf(n, x, 1.0 / 6.0, 0.5)));
  return success();
}

/// log(1 + exp(x)), as max(x, 0) + log(1 + exp(-|x|)) (no overflow).
Value softplusOf(Node &n, Value x) {
  Type t = n.elementOf(x);
  Value e = n.make<ExpOp>(n.make<NegOp>(n.make<AbsOp>(x)));
  return n.add(n.max(x, n.scalar(t, 0)),
               n.make<LogOp>(n.add(n.scalar(t, 1), e)));
}

LogicalResult softplus(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  n.outputs.push_back(softplusOf(n, n.input(0)));
  return success();
}

LogicalResult softsign(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  n.outputs.push_back(
      n.div(x, n.add(n.scalar(n.elementOf(x), 1), n.make<AbsOp>(x))));
  return success();
}

LogicalResult mish(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  n.outputs.push_back(n.mul(x, n.make<TanhOp>(softplusOf(n, x))));
  return success();
}

LogicalResult thresholdedRelu(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  n.outputs.push_back(n.select(
      n.compare(CmpPredicate::gt, x, n.scalar(t, n.getFloat("alpha", 1.0f))), x,
      n.scalar(t, 0)));
  return success();
}

LogicalResult shrink(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  double bias = n.getFloat("bias", 0.0f), lambd = n.getFloat("lambd", 0.5f);
  Value below = n.compare(CmpPredicate::lt, x, n.scalar(t, -lambd));
  Value above = n.compare(CmpPredicate::gt, x, n.scalar(t, lambd));
  n.outputs.push_back(
      n.select(below, n.add(x, n.scalar(t, bias)),
               n.select(above, n.sub(x, n.scalar(t, bias)), n.scalar(t, 0))));
  return success();
}

/// Functions composed of fusec's: tan = sin / cos, the hyperbolic ones
/// from exp, their inverses from log and sqrt, asin and acos from atan (as the
/// textbook formulas; accurate to a few f32 ulps away from their
/// singularities).
template <int Which> LogicalResult composite(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  Value one = n.scalar(t, 1), half = n.scalar(t, 0.5);
  Value y;
  switch (Which) {
  case 0: // Tan
    y = n.div(n.make<SinOp>(x), n.make<CosOp>(x));
    break;
  case 1: // Sinh
    y = n.mul(half, n.sub(n.make<ExpOp>(x), n.make<ExpOp>(n.make<NegOp>(x))));
    break;
  case 2: // Cosh
    y = n.mul(half, n.add(n.make<ExpOp>(x), n.make<ExpOp>(n.make<NegOp>(x))));
    break;
  case 3: // Asinh
    y = n.make<LogOp>(n.add(x, n.make<SqrtOp>(n.add(n.mul(x, x), one))));
    break;
  case 4: // Acosh
    y = n.make<LogOp>(n.add(x, n.make<SqrtOp>(n.sub(n.mul(x, x), one))));
    break;
  case 6: // Asin = atan(x / sqrt(1 - x^2)) (+-pi/2 at +-1, NaN outside)
    y = n.make<AtanOp>(n.div(x, n.make<SqrtOp>(n.sub(one, n.mul(x, x)))));
    break;
  case 7: // Acos = pi/2 - asin(x)
    y = n.sub(
        n.scalar(t, M_PI_2),
        n.make<AtanOp>(n.div(x, n.make<SqrtOp>(n.sub(one, n.mul(x, x))))));
    break;
  default: // Atanh
    y = n.mul(half, n.make<LogOp>(n.div(n.add(one, x), n.sub(one, x))));
    break;
  }
  n.outputs.push_back(y);
  return success();
}

LogicalResult gelu(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  std::string approximate = n.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.fail("approximate '" + approximate + "' is not none or tanh");
  n.outputs.push_back(n.make<GeluOp>(
      n.input(0), approximate == "tanh" ? GeluApproximation::tanh
                                        : GeluApproximation::none));
  return success();
}

LogicalResult sign(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  Value zero = n.scalar(t, 0);
  // 0 stays 0 (and NaN stays NaN for floats: x * 0).
  Value rest = isa<FloatType>(t) ? n.mul(x, zero) : zero;
  n.outputs.push_back(n.select(
      n.compare(CmpPredicate::gt, x, zero), n.scalar(t, 1),
      n.select(n.compare(CmpPredicate::lt, x, zero), n.scalar(t, -1), rest)));
  return success();
}

LogicalResult isNaN(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  n.outputs.push_back(n.compare(CmpPredicate::ne, x, x));
  return success();
}

LogicalResult isInf(Node &n) {
  if (failed(needFloat(n)))
    return failure();
  Value x = n.input(0);
  Type t = n.elementOf(x);
  bool negative = n.getInt("detect_negative", 1) != 0;
  bool positive = n.getInt("detect_positive", 1) != 0;
  Value inf = n.scalar(t, INFINITY);
  Value isPos = n.compare(CmpPredicate::eq, x, inf);
  Value isNeg = n.compare(CmpPredicate::eq, x, n.make<NegOp>(inf));
  Value none = n.compare(CmpPredicate::ne, inf, inf);
  Value r =
      positive && negative ? n.binary<OrOp>(isPos, isNeg)
      : positive           ? isPos
      : negative
          ? isNeg
          : n.make<BroadcastToOp>(n.typeOf(x).clone(n.b.getI1Type()), none);
  n.outputs.push_back(r);
  return success();
}

/// Cast: floats to integers truncate toward zero in ONNX (fusec's cast
/// rounds to nearest): a trunc first, whose integral result the cast then
/// converts exactly (saturating, NaN to 0).
LogicalResult castTo(Node &n, Value x, Type to) {
  Type from = n.elementOf(x);
  if (isa<FloatType>(from) && isa<IntegerType>(to) && !to.isInteger(1))
    x = n.make<TruncOp>(x);
  n.outputs.push_back(n.castTo(x, to));
  return success();
}

LogicalResult cast(Node &n) {
  if (failed(n.need(1)))
    return failure();
  std::string name;
  Type to = elementTypeOf(n.b.getContext(), int(n.getInt("to", 0)), &name);
  if (!to)
    return n.fail("casts to " + name + ", which fusec does not support");
  return castTo(n, n.input(0), to);
}

LogicalResult castLike(Node &n) {
  if (failed(n.need(2)))
    return failure();
  return castTo(n, n.input(0), n.elementOf(n.input(1)));
}

} // namespace

void fusec::onnx_import::addElementwiseConverters(ConverterMap &map) {
  map["Add"] = binary<AddOp>;
  map["Sub"] = binary<SubOp>;
  map["Mul"] = binary<MulOp>;
  map["Div"] = binary<DivOp>;
  map["Pow"] = pow;
  map["Max"] = variadic<MaxOp>;
  map["Min"] = variadic<MinOp>;
  map["Sum"] = variadic<AddOp>;
  map["Mean"] = mean;
  map["And"] = binary<AndOp>;
  map["Or"] = binary<OrOp>;
  map["Xor"] = binary<XorOp>;
  map["Not"] = unary<NotOp>;
  map["Equal"] = comparison<CmpPredicate::eq>;
  map["Less"] = comparison<CmpPredicate::lt>;
  map["LessOrEqual"] = comparison<CmpPredicate::le>;
  map["Greater"] = comparison<CmpPredicate::gt>;
  map["GreaterOrEqual"] = comparison<CmpPredicate::ge>;
  map["Where"] = where;
  map["Neg"] = unary<NegOp>;
  map["Abs"] = unary<AbsOp>;
  map["Relu"] = unary<ReluOp>;
  map["Exp"] = floatUnary<ExpOp>;
  map["Log"] = floatUnary<LogOp>;
  map["Sqrt"] = floatUnary<SqrtOp>;
  map["Reciprocal"] = floatUnary<ReciprocalOp>;
  map["Tanh"] = floatUnary<TanhOp>;
  map["Sigmoid"] = floatUnary<SigmoidOp>;
  map["Erf"] = floatUnary<ErfOp>;
  map["Floor"] = floatUnary<FloorOp>;
  map["Ceil"] = floatUnary<CeilOp>;
  map["Round"] = floatUnary<RoundOp>;
  map["Sin"] = floatUnary<SinOp>;
  map["Cos"] = floatUnary<CosOp>;
  map["Tan"] = composite<0>;
  map["Sinh"] = composite<1>;
  map["Cosh"] = composite<2>;
  map["Asinh"] = composite<3>;
  map["Acosh"] = composite<4>;
  map["Atanh"] = composite<5>;
  map["Asin"] = composite<6>;
  map["Acos"] = composite<7>;
  map["Atan"] = floatUnary<AtanOp>;
  map["Gelu"] = gelu;
  map["Identity"] = identity;
  map["Clip"] = clip;
  map["LeakyRelu"] = leakyRelu;
  map["PRelu"] = prelu;
  map["Elu"] = elu;
  map["Selu"] = selu;
  map["Celu"] = celu;
  map["HardSigmoid"] = hardSigmoid;
  map["HardSwish"] = hardSwish;
  map["Softplus"] = softplus;
  map["Softsign"] = softsign;
  map["Mish"] = mish;
  map["ThresholdedRelu"] = thresholdedRelu;
  map["Shrink"] = shrink;
  map["Sign"] = sign;
  map["IsNaN"] = isNaN;
  map["IsInf"] = isInf;
  map["Cast"] = cast;
  map["CastLike"] = castLike;
}
