//===- TrainStep.cpp - Training-step builder ------------------------------===//
//
// `fusec-train-step`: a step function made of the loss's gradient function
// (fusec-autodiff, painted by fusec-mixed-precision when asked), inlined,
// followed by the f32 optimizer update and the loss-scaling state machine.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/ScopeExit.h"

#include <cmath>
#include <limits>

namespace fusec {
#define GEN_PASS_DEF_FUSECTRAINSTEP
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

enum class ScaleMode { Off, Static, Dynamic };

/// A loss scale the step can use: a normal finite f32 (its reciprocal is
/// finite too).
bool isValidScale(double v) {
  float f = float(v);
  return std::isfinite(f) && f >= std::numeric_limits<float>::min();
}

/// Builds the f32 arithmetic of the update with scalar constants.
struct Arith {
  ImplicitLocOpBuilder &b;

  RankedTensorType scalarType(Type element) const {
    return RankedTensorType::get({}, element);
  }
  Value f32(double v) {
    auto type = scalarType(b.getF32Type());
    return ConstantOp::create(
        b, type, DenseElementsAttr::get(type, b.getF32FloatAttr(float(v))));
  }
  Value i32(int64_t v) {
    auto type = scalarType(b.getI32Type());
    return ConstantOp::create(
        b, type, DenseElementsAttr::get(type, b.getI32IntegerAttr(int32_t(v))));
  }
  Value i1(bool v) {
    auto type = scalarType(b.getI1Type());
    return ConstantOp::create(b, type,
                              DenseElementsAttr::get(type, b.getBoolAttr(v)));
  }
  Value add(Value x, Value y) { return AddOp::create(b, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, x, y); }
  Value select(Value c, Value x, Value y) {
    return SelectOp::create(b, c, x, y);
  }
  Value castTo(Value x, Type element) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType() == element)
      return x;
    return CastOp::create(b, type.clone(element), x);
  }
};

LogicalResult parseScaleMode(Operation *anchor, const TrainingOptions &o,
                             LowPrecision precision, ScaleMode &mode,
                             double &staticScale) {
  StringRef spec = o.lossScale;
  if (spec == "default") {
    mode = precision == LowPrecision::F16 ? ScaleMode::Dynamic : ScaleMode::Off;
    return success();
  }
  if (spec == "off") {
    mode = ScaleMode::Off;
    return success();
  }
  if (spec == "dynamic") {
    mode = ScaleMode::Dynamic;
    return success();
  }
  if (spec.consume_front("static:")) {
    mode = ScaleMode::Static;
    if (!spec.getAsDouble(staticScale) && isValidScale(staticScale))
      return success();
  }
  return anchor->emitError()
         << "train step: loss scale '" << o.lossScale
         << "' is not dynamic, static:VALUE (a normal positive f32) or off";
}

/// Whether `v` is a finite f32 (the step computes in f32: an option that
/// rounds to an infinity would make every step non-finite).
bool finiteInF32(double v) { return std::isfinite(float(v)); }

LogicalResult checkOptions(Operation *anchor, const TrainingOptions &o) {
  auto fail = [&](const Twine &what) {
    return anchor->emitError() << "train step: " << what;
  };
  if (!finiteInF32(o.learningRate) || o.learningRate < 0)
    return fail("the learning rate must be a finite f32 and not negative");
  if (!finiteInF32(o.momentum) || o.momentum < 0)
    return fail("the momentum must be a finite f32 and not negative");
  if (!(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1))
    return fail("beta1 and beta2 must be in [0, 1)");
  if (!finiteInF32(o.epsilon) || o.epsilon < 0)
    return fail("epsilon must be a finite f32 and not negative");
  if (!finiteInF32(o.weightDecay))
    return fail("the weight decay must be a finite f32");
  if (!isValidScale(o.lossScaleInit))
    return fail("the initial loss scale must be an f32 between 2^-126 and "
                "its largest finite value");
  if (!finiteInF32(o.lossScaleGrowth) || o.lossScaleGrowth < 1)
    return fail("the growth factor must be a finite f32 of at least 1");
  if (!(float(o.lossScaleBackoff) > 0 && o.lossScaleBackoff <= 1))
    return fail("the backoff factor must be in (0, 1] (and not 0 in f32)");
  if (o.lossScaleInterval < 1 || o.lossScaleInterval > INT32_MAX)
    return fail("the growth interval must be between 1 and 2^31 - 1");
  return success();
}

} // namespace

FailureOr<func::FuncOp>
fusec::buildTrainStep(ModuleOp module, const TrainingOptions &o,
                      const MixedPrecisionOptions &mixed) {
  MLIRContext *ctx = module.getContext();
  auto func = module.lookupSymbol<func::FuncOp>(o.train);
  if (!func)
    return module.emitError()
           << "train step: no function named '" << o.train << "'";
  ScaleMode mode;
  double staticScale = 1;
  if (failed(checkOptions(func, o)) ||
      failed(parseScaleMode(func, o, mixed.precision, mode, staticScale)))
    return failure();
  if (mixed.keepIOLowPrecision)
    return func.emitError()
           << "train step: keep-io-low-precision does not apply to training "
              "steps (parameters are f32 master weights)";
  // A result that updates an argument (model state) must have its type.
  for (unsigned m = 1; m < func.getNumResults(); ++m)
    if (auto arg = func.getResultAttrOfType<IntegerAttr>(m, kUpdatesAttrName))
      if (arg.getInt() < 0 || arg.getInt() >= func.getNumArguments() ||
          func.getArgumentTypes()[arg.getInt()] != func.getResultTypes()[m] ||
          func.getArgAttr(unsigned(arg.getInt()), kParamAttrName))
        return func.emitError()
               << "train step: result " << m << " updates argument "
               << arg.getInt()
               << ", which is not a state argument of the result's type";
  std::string stepName = o.train + "_train_step";
  if (module.lookupSymbol(stepName))
    return func.emitError()
           << "train step: '" << stepName << "' already exists";

  // The gradient function, painted, is inlined into the step below.
  std::string gradName = o.train + "_train_step_gradient";
  for (int i = 0; module.lookupSymbol(gradName); ++i)
    gradName = o.train + "_train_step_gradient" + std::to_string(i);
  GradientOptions gradOptions;
  gradOptions.name = gradName;
  gradOptions.seedArgument = mode != ScaleMode::Off;
  gradOptions.otherResults = true;
  unsigned forwardOps = 0;
  gradOptions.forwardOps = &forwardOps;
  FailureOr<func::FuncOp> grad = buildGradientFunction(func, gradOptions);
  if (failed(grad))
    return failure();
  llvm::scope_exit eraseGrad([&] { grad->erase(); });
  if (failed(applyMixedPrecision(func, {*grad}, mixed)))
    return failure();

  // The signature (see the pass description).
  FunctionType lossType = func.getFunctionType();
  Type f32 = Float32Type::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  auto scalar = [](Type t) { return RankedTensorType::get({}, t); };
  SmallVector<unsigned> params;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kParamAttrName))
      params.push_back(i);
  bool adam = o.optimizer == Optimizer::Adam;
  bool velocity = !adam && o.momentum != 0;
  unsigned statesPerParam = adam ? 2 : velocity ? 1 : 0;

  SmallVector<Type> argTypes(lossType.getInputs());
  SmallVector<DictionaryAttr> argAttrs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    argAttrs.push_back(func.getArgAttrDict(i) ? func.getArgAttrDict(i)
                                              : DictionaryAttr::get(ctx, {}));
  Builder attrs(ctx);
  auto stateAttrs = [&](StringRef role, Attribute init) {
    return attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kStateAttrName, attrs.getStringAttr(role)),
         attrs.getNamedAttr(kInitAttrName, init)});
  };
  // State of parameter p, k-th kind, as an f32 tensor of p's shape.
  unsigned firstState = argTypes.size();
  for (unsigned p : params) {
    auto type = cast<RankedTensorType>(lossType.getInput(p)).clone(f32);
    for (unsigned k = 0; k < statesPerParam; ++k) {
      argTypes.push_back(type);
      StringRef role = adam ? (k == 0 ? "adam.m" : "adam.v") : "sgd.velocity";
      DictionaryAttr dict = stateAttrs(role, attrs.getF32FloatAttr(0));
      NamedAttrList list(dict);
      list.set(kStateOfAttrName, attrs.getI64IntegerAttr(int64_t(p)));
      argAttrs.push_back(list.getDictionary(ctx));
    }
  }
  int stepArg = -1, scaleArg = -1, goodArg = -1;
  if (adam) {
    stepArg = argTypes.size();
    argTypes.push_back(scalar(i32));
    argAttrs.push_back(stateAttrs("adam.step", attrs.getI32IntegerAttr(0)));
  }
  if (mode == ScaleMode::Dynamic) {
    scaleArg = argTypes.size();
    argTypes.push_back(scalar(f32));
    argAttrs.push_back(stateAttrs(
        "loss_scale.scale", attrs.getF32FloatAttr(float(o.lossScaleInit))));
    goodArg = argTypes.size();
    argTypes.push_back(scalar(i32));
    argAttrs.push_back(
        stateAttrs("loss_scale.good_steps", attrs.getI32IntegerAttr(0)));
  }

  OpBuilder top(ctx);
  top.setInsertionPointAfter(func);
  Location loc = func.getLoc();
  auto step = func::FuncOp::create(top, loc, stepName,
                                   top.getFunctionType(argTypes, {}));
  step.setAllArgAttrs(argAttrs);
  Block *body = step.addEntryBlock();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToStart(body);
  Arith a{b};

  // Forward and backward: the gradient function's body, inlined.
  IRMapping map;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    map.map(grad->getArgument(i), body->getArgument(i));
  Value scale; // f32 scalar, when scaling
  if (mode == ScaleMode::Dynamic)
    scale = body->getArgument(scaleArg);
  else if (mode == ScaleMode::Static)
    scale = a.f32(staticScale);
  if (scale) {
    auto seedType = cast<RankedTensorType>(lossType.getResult(0));
    Value seed = a.castTo(scale, seedType.getElementType());
    if (seedType.getRank() != 0)
      seed = ReshapeOp::create(b, seedType, seed);
    map.map(grad->getArgument(func.getNumArguments()), seed);
  }
  Block &gradBody = grad->getBody().front();
  Operation *lastForward = nullptr;
  for (auto [i, op] : llvm::enumerate(gradBody.without_terminator())) {
    Operation *copy = b.clone(op, map);
    if (i < forwardOps)
      lastForward = copy;
  }
  SmallVector<Value> gradResults;
  for (Value v : gradBody.getTerminator()->getOperands())
    gradResults.push_back(map.lookup(v));
  Value loss = gradResults[0];

  // Gradients in f32, unscaled, and whether all are finite (one fused check
  // over their concatenation, after unscaling as GradScaler does: a
  // gradient that the division makes overflow counts too).
  // A division by the scale rather than a product with 1/scale: the same
  // for the powers of two dynamic scaling keeps, correctly rounded for any
  // other, and no scalar reciprocal for the fusion pass to place (it would
  // be a kernel of its own per gradient: it is broadcast in its consumers).
  SmallVector<Value> grads;
  for (unsigned j = 0; j < params.size(); ++j) {
    Value g = a.castTo(gradResults[j + 1], f32);
    grads.push_back(scale ? a.div(g, scale) : g);
  }
  Value finite;
  if (scale) {
    SmallVector<Value> flat;
    for (Value g : grads) {
      auto type = cast<RankedTensorType>(g.getType());
      flat.push_back(ReshapeOp::create(
          b, RankedTensorType::get({type.getNumElements()}, f32), g));
    }
    // max |g| over [1, N], one row: one row-reduction kernel reading every
    // gradient through the concat (index arithmetic). The row keeps
    // fusec-fold-concat-split from splitting it into a reduction per
    // gradient (it splits reductions of a concat along the concat axis).
    Value all = flat.size() == 1 ? flat[0] : ConcatOp::create(b, flat, 0);
    int64_t total = cast<RankedTensorType>(all.getType()).getNumElements();
    Value row =
        ReshapeOp::create(b, RankedTensorType::get({1, total}, f32), all);
    Value largest = ReduceMaxOp::create(b, AbsOp::create(b, row),
                                        ArrayRef<int64_t>{0, 1}, false);
    finite = CompareOp::create(b, CmpPredicate::lt, largest,
                               a.f32(std::numeric_limits<double>::infinity()));
  }
  // Keeps the old value of a skipped step.
  auto keepIfSkipped = [&](Value updated, Value old) {
    return finite ? a.select(finite, updated, old) : updated;
  };

  SmallVector<Value> results{loss};
  SmallVector<DictionaryAttr> resultAttrs{attrs.getDictionaryAttr(
      {attrs.getNamedAttr(kLossAttrName, attrs.getUnitAttr())})};
  auto updates = [&](unsigned arg) {
    return attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kUpdatesAttrName, attrs.getI64IntegerAttr(arg))});
  };
  SmallVector<Value> newParams, newStates;
  SmallVector<unsigned> stateArgs;
  Value bias1, bias2, newStep;
  if (adam) {
    Value t = body->getArgument(stepArg);
    newStep = a.add(t, a.i32(1));
    Value tf = a.castTo(newStep, f32);
    bias1 = a.sub(a.f32(1), PowOp::create(b, a.f32(o.beta1), tf));
    bias2 = a.sub(a.f32(1), PowOp::create(b, a.f32(o.beta2), tf));
  }
  Value lr = a.f32(o.learningRate);
  for (auto [j, p] : llvm::enumerate(params)) {
    // A parameter's update is located at the parameter (reports point at
    // what it updates, as gradients point at their forward operation).
    b.setLoc(func.getArgument(p).getLoc());
    Value param = body->getArgument(p);
    Type paramElement =
        cast<RankedTensorType>(param.getType()).getElementType();
    Value p32 = a.castTo(param, f32);
    Value g = grads[j];
    if (o.weightDecay != 0)
      g = a.add(g, a.mul(a.f32(o.weightDecay), p32));
    unsigned state0 = firstState + j * statesPerParam;
    Value updated;
    if (adam) {
      Value m = body->getArgument(state0), v = body->getArgument(state0 + 1);
      Value m1 = a.add(a.mul(a.f32(o.beta1), m), a.mul(a.f32(1 - o.beta1), g));
      Value v1 = a.add(a.mul(a.f32(o.beta2), v),
                       a.mul(a.f32(1 - o.beta2), a.mul(g, g)));
      Value denom =
          a.add(SqrtOp::create(b, a.div(v1, bias2)), a.f32(o.epsilon));
      updated = a.sub(p32, a.mul(lr, a.div(a.div(m1, bias1), denom)));
      newStates.push_back(keepIfSkipped(m1, m));
      newStates.push_back(keepIfSkipped(v1, v));
      stateArgs.push_back(state0);
      stateArgs.push_back(state0 + 1);
    } else if (velocity) {
      Value v = body->getArgument(state0);
      Value v1 = a.add(a.mul(a.f32(o.momentum), v), g);
      updated = a.sub(p32, a.mul(lr, v1));
      newStates.push_back(keepIfSkipped(v1, v));
      stateArgs.push_back(state0);
    } else {
      updated = a.sub(p32, a.mul(lr, g));
    }
    newParams.push_back(keepIfSkipped(a.castTo(updated, paramElement), param));
  }
  b.setLoc(loc);
  for (auto [j, p] : llvm::enumerate(params)) {
    results.push_back(newParams[j]);
    resultAttrs.push_back(updates(p));
  }
  for (auto [v, arg] : llvm::zip(newStates, stateArgs)) {
    results.push_back(v);
    resultAttrs.push_back(updates(arg));
  }
  if (adam) {
    results.push_back(keepIfSkipped(newStep, body->getArgument(stepArg)));
    resultAttrs.push_back(updates(stepArg));
  }
  if (mode == ScaleMode::Dynamic) {
    // GradScaler: a non-finite step multiplies the scale by the backoff
    // and restarts the count; `growth-interval` good steps in a row
    // multiply it by the growth factor and restart the count.
    Value good = a.add(body->getArgument(goodArg), a.i32(1));
    Value grow = CompareOp::create(b, CmpPredicate::ge, good,
                                   a.i32(o.lossScaleInterval));
    // A grown scale that overflows f32 is not taken (the count still
    // restarts), as in GradScaler: an infinite scale would skip every step.
    Value larger = a.mul(scale, a.f32(o.lossScaleGrowth));
    Value fits =
        CompareOp::create(b, CmpPredicate::lt, larger,
                          a.f32(std::numeric_limits<double>::infinity()));
    Value grown = a.select(grow, a.select(fits, larger, scale), scale);
    Value newScale =
        a.select(finite, grown, a.mul(scale, a.f32(o.lossScaleBackoff)));
    Value newGood = a.select(finite, a.select(grow, a.i32(0), good), a.i32(0));
    results.push_back(newScale);
    resultAttrs.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kUpdatesAttrName,
                            attrs.getI64IntegerAttr(scaleArg)),
         attrs.getNamedAttr(kLossScaleAttrName, attrs.getUnitAttr())}));
    results.push_back(newGood);
    resultAttrs.push_back(updates(goodArg));
  }
  if (finite) {
    results.push_back(
        CompareOp::create(b, CmpPredicate::eq, finite, a.i1(false)));
    resultAttrs.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kSkippedAttrName, attrs.getUnitAttr())}));
  }
  // The loss function's other results, computed by the same forward as the
  // loss, before the update: the model's state updates (running
  // statistics, the dropout key; kept as they were by a skipped step) and
  // the metrics.
  for (unsigned m = 1; m < func.getNumResults(); ++m) {
    Value value = gradResults[params.size() + m];
    if (auto arg = func.getResultAttrOfType<IntegerAttr>(m, kUpdatesAttrName)) {
      results.push_back(
          keepIfSkipped(value, body->getArgument(unsigned(arg.getInt()))));
      resultAttrs.push_back(func.getResultAttrDict(m));
      continue;
    }
    results.push_back(value);
    resultAttrs.push_back(attrs.getDictionaryAttr({attrs.getNamedAttr(
        kMetricAttrName, attrs.getI64IntegerAttr(int64_t(m)))}));
  }
  func::ReturnOp::create(b, results);
  step.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  step.setAllResultAttrs(resultAttrs);
  // Everything after the forward pass is the backward pass and the update.
  bool backward = !lastForward;
  for (Operation &op : body->without_terminator()) {
    if (backward && !isa<ConstantOp>(op))
      op.setAttr(kBackwardAttrName, UnitAttr::get(ctx));
    backward |= &op == lastForward;
  }
  return step;
}

namespace {

/// What fusec-train-step binds: the training options and the painting.
struct TrainStepPassOptions {
  TrainingOptions training;
  MixedPrecisionOptions mixed;
  void bindOptions(OptionBinder &binder) {
    training.bindOptions(binder);
    mixed.bindOptions(binder);
  }
};

struct FusecTrainStepPass final
    : fusec::impl::FusecTrainStepBase<FusecTrainStepPass> {
  explicit FusecTrainStepPass(const TrainStepPassOptions &o = {})
      : options(*this, o) {}
  FusecTrainStepPass(const FusecTrainStepPass &other)
      : FusecTrainStepBase(other), options(*this, other.options.value) {}

  void runOnOperation() override {
    if (failed(options.load(getOperation())) ||
        failed(buildTrainStep(getOperation(), options.value.training,
                              options.value.mixed)))
      signalPassFailure();
  }

  BoundPassOptions<TrainStepPassOptions> options;
};

} // namespace

std::unique_ptr<Pass>
fusec::createFusecTrainStep(const TrainingOptions &training,
                            const MixedPrecisionOptions &mixed) {
  return std::make_unique<FusecTrainStepPass>(
      TrainStepPassOptions{training, mixed});
}

void TrainingOptions::bindOptions(OptionBinder &binder) {
  binder.group("training", "Training steps (`fusec-train-step`)");
  binder.text("train", train,
              "Build <FUNC>_train_step from the loss function FUNC (first "
              "result a scalar loss, trainable arguments marked fusec.param)",
              "FUNC");
  binder.choice("optimizer", optimizer,
                {{Optimizer::SGD, "sgd", "SGD with momentum"},
                 {Optimizer::Adam, "adam", "Adam"}},
                "Training: the optimizer");
  binder.number("learning-rate", learningRate, "Training: the learning rate");
  binder.number("momentum", momentum,
                "SGD momentum (0: plain SGD, no velocity state)");
  binder.number("beta1", beta1, "Adam: decay of the first moment");
  binder.number("beta2", beta2, "Adam: decay of the second moment");
  binder.number("epsilon", epsilon, "Adam: added to the denominator");
  binder.number("weight-decay", weightDecay,
                "L2 penalty added to the gradients (wd * p)");
  binder.text("loss-scale", lossScale,
              "Loss scaling: dynamic, static:VALUE, off, or default (dynamic "
              "with mixed-precision=f16, else off)",
              "mode");
  binder.number("loss-scale-init", lossScaleInit,
                "Dynamic loss scaling: the initial scale");
  binder.number("loss-scale-growth", lossScaleGrowth,
                "Dynamic loss scaling: scale multiplier after "
                "loss-scale-interval good steps");
  binder.number("loss-scale-backoff", lossScaleBackoff,
                "Dynamic loss scaling: scale multiplier after a non-finite "
                "gradient");
  binder.integer("loss-scale-interval", lossScaleInterval,
                 "Dynamic loss scaling: good steps before the scale grows", 1);
  binder.choice("recompute", recompute,
                {{Recompute::Auto, "auto",
                  "when the step's memory plan exceeds --memory-limit"},
                 {Recompute::On, "on", "always"},
                 {Recompute::Off, "off", "never"}},
                "Recompute cheap forward values in the backward pass instead "
                "of keeping them (fusec-recompute-activations)");
  loss.bindOptions(binder);
}
