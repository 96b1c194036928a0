//===- AddLoss.cpp - A loss for a model that has none ---------------------===//
//
// `fusec-add-loss`: the loss function `loss` (and `loss_eval`) over one
// output of a model function, which it calls; the inliner that training
// runs first turns the call into the model's operations.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/AddLoss.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECADDLOSS
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

/// Keras's epsilon: probabilities are clipped to [eps, 1 - eps].
constexpr double kEpsilon = 1e-7;

bool isClassification(LossKind k) {
  return k == LossKind::SoftmaxCrossEntropy ||
         k == LossKind::SparseSoftmaxCrossEntropy ||
         k == LossKind::CrossEntropy || k == LossKind::SparseCrossEntropy;
}

bool isSparse(LossKind k) {
  return k == LossKind::SparseSoftmaxCrossEntropy ||
         k == LossKind::SparseCrossEntropy;
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// The name of result `r` of `f` (fusec.name, else resultN).
std::string resultName(func::FuncOp f, unsigned r) {
  if (auto name = f.getResultAttrOfType<StringAttr>(r, kNameAttrName))
    return name.str();
  return "result" + std::to_string(r);
}

/// The f32 arithmetic of the losses.
struct LossBuilder {
  ImplicitLocOpBuilder &b;

  RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  Value scalar(double v, Type element) {
    auto type = RankedTensorType::get({}, element);
    Attribute attr = isa<FloatType>(element)
                         ? Attribute(FloatAttr::get(element, v))
                         : Attribute(IntegerAttr::get(element, int64_t(v)));
    return ConstantOp::create(b, DenseElementsAttr::get(type, attr));
  }
  Value castTo(Value v, Type element) {
    if (typeOf(v).getElementType() == element)
      return v;
    return CastOp::create(b, typeOf(v).clone(element), v);
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (typeOf(v).getShape() == shape)
      return v;
    return ReshapeOp::create(b, typeOf(v).clone(shape), v);
  }
  Value sumRows(Value v, bool keep) {
    return ReduceSumOp::create(b, v, ArrayRef<int64_t>{1}, keep);
  }
  Value mean(Value v) {
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(0, typeOf(v).getRank()));
    return ReduceMeanOp::create(b, v, axes, /*keep_dims=*/false);
  }
  Value clip(Value p) {
    Type t = typeOf(p).getElementType();
    return MinOp::create(b, MaxOp::create(b, p, scalar(kEpsilon, t)),
                         scalar(1 - kEpsilon, t));
  }
  /// log_softmax over the rows of y [R, C].
  Value logSoftmax(Value y) {
    Value m = ReduceMaxOp::create(b, y, ArrayRef<int64_t>{1}, true);
    Value z = SubOp::create(b, y, m);
    Value lse = LogOp::create(b, sumRows(ExpOp::create(b, z), true));
    return SubOp::create(b, z, lse);
  }
  /// The position of each row's largest element, the first on a tie (i64
  /// [R]).
  Value argmax(Value y) {
    int64_t c = typeOf(y).getDimSize(1);
    Value m = ReduceMaxOp::create(b, y, ArrayRef<int64_t>{1}, true);
    Value at = CompareOp::create(b, CmpPredicate::eq, y, m);
    SmallVector<int64_t> positions = llvm::to_vector(llvm::seq<int64_t>(0, c));
    auto iotaType = RankedTensorType::get({1, c}, b.getI64Type());
    Value iota = ConstantOp::create(
        b, DenseElementsAttr::get(iotaType, ArrayRef<int64_t>(positions)));
    Value where =
        SelectOp::create(b, at, iota, scalar(double(c), b.getI64Type()));
    return ReduceMinOp::create(b, where, ArrayRef<int64_t>{1}, false);
  }
  /// The fraction of true elements of an i1 tensor.
  Value fraction(Value hits) { return mean(castTo(hits, b.getF32Type())); }
};

} // namespace

void LossOptions::bindOptions(OptionBinder &binder) {
  binder.choice(
      "loss", kind,
      {{LossKind::None, "none", "the model computes its loss (--train=FUNC)"},
       {LossKind::SoftmaxCrossEntropy, "softmax-cross-entropy",
        "logits and one-hot labels"},
       {LossKind::SparseSoftmaxCrossEntropy, "sparse-softmax-cross-entropy",
        "logits and i64 class labels"},
       {LossKind::CrossEntropy, "cross-entropy",
        "probabilities (a softmax's output) and one-hot labels"},
       {LossKind::SparseCrossEntropy, "sparse-cross-entropy",
        "probabilities and i64 class labels"},
       {LossKind::MeanSquaredError, "mse", "mean squared error"},
       {LossKind::BinaryCrossEntropy, "binary-cross-entropy",
        "probabilities of a sigmoid and 0/1 labels"}},
      "Add the loss function `loss` over a model output (fusec-add-loss); "
      "training then trains it");
  binder.text("loss-output", output,
              "The output the loss reads (default: the model's only output)",
              "name");
  binder.text("labels", labels,
              "The name of the labels argument the loss function adds", "name");
  binder.text("loss-of", model,
              "The model function whose output the loss reads (default: the "
              "only public one that is not an evaluation twin)",
              "func");
}

FailureOr<func::FuncOp> fusec::buildLossFunction(ModuleOp module,
                                                 const LossOptions &o) {
  if (o.kind == LossKind::None)
    return module.emitError() << "add loss: no loss kind given";
  if (Operation *taken = module.lookupSymbol(kAddedLossName))
    return taken->emitError()
           << "add loss: a function named '" << kAddedLossName
           << "' exists already (the model computes its loss: train it with "
              "--train="
           << kAddedLossName << ")";
  // The model function.
  func::FuncOp model;
  if (!o.model.empty()) {
    model = module.lookupSymbol<func::FuncOp>(o.model);
    if (!model || model.isExternal())
      return module.emitError() << "add loss: --loss-of=" << o.model
                                << ": no function with a body is named so";
  } else {
    llvm::DenseSet<StringAttr> twins;
    for (auto f : module.getOps<func::FuncOp>())
      if (auto twin = f->getAttrOfType<FlatSymbolRefAttr>(kEvalAttrName))
        twins.insert(twin.getAttr());
    SmallVector<func::FuncOp> candidates;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal() &&
          !twins.contains(f.getSymNameAttr()))
        candidates.push_back(f);
    if (candidates.size() != 1) {
      InFlightDiagnostic d = module.emitError()
                             << "add loss: " << candidates.size()
                             << " public functions could be the model; name "
                                "it with --loss-of=FUNC";
      for (func::FuncOp f : candidates)
        d.attachNote(f.getLoc()) << "'" << f.getSymName() << "'";
      return failure();
    }
    model = candidates.front();
  }
  func::FuncOp twin;
  if (auto name = model->getAttrOfType<FlatSymbolRefAttr>(kEvalAttrName)) {
    twin = module.lookupSymbol<func::FuncOp>(name.getAttr());
    if (!twin || twin.getFunctionType().getInputs() !=
                     model.getFunctionType().getInputs())
      return model.emitError() << "add loss: the evaluation twin " << name
                               << " is missing or takes other arguments";
  }

  // The output.
  SmallVector<unsigned> outputs;
  for (unsigned r = 0; r < model.getNumResults(); ++r)
    if (!model.getResultAttr(r, kUpdatesAttrName))
      outputs.push_back(r);
  std::string names;
  for (unsigned r : outputs)
    names += (names.empty() ? "" : ", ") + resultName(model, r);
  std::optional<unsigned> chosen;
  for (unsigned r : outputs)
    if (o.output.empty() ? outputs.size() == 1
                         : resultName(model, r) == o.output)
      chosen = r;
  if (!chosen)
    return model.emitError()
           << "add loss: "
           << (o.output.empty()
                   ? "the model has " + std::to_string(outputs.size()) +
                         " outputs; name the one the loss reads with "
                         "--loss-output=NAME"
                   : "--loss-output=" + o.output + ": no output is named so")
           << " (its outputs: " << (names.empty() ? "none" : names) << ")";
  auto outType = cast<RankedTensorType>(model.getResultTypes()[*chosen]);
  if (!isa<FloatType>(outType.getElementType()) ||
      (isClassification(o.kind) && outType.getRank() < 1) ||
      outType.getNumElements() == 0)
    return model.emitError()
           << "add loss: output '" << resultName(model, *chosen) << "' is "
           << outType << "; the loss needs a non-empty float tensor"
           << (isClassification(o.kind) ? " with a class dimension (last)"
                                        : "");
  for (unsigned i = 0; i < model.getNumArguments(); ++i)
    if (auto n = model.getArgAttrOfType<StringAttr>(i, kNameAttrName))
      if (n.getValue() == o.labels)
        return model.emitError()
               << "add loss: --labels=" << o.labels
               << ": the model has an argument named so already";
  ArrayRef<int64_t> shape = outType.getShape();
  RankedTensorType labelsType =
      isSparse(o.kind)
          ? RankedTensorType::get(shape.drop_back(),
                                  IntegerType::get(module.getContext(), 64))
          : outType;

  auto build = [&](func::FuncOp callee, StringRef name) {
    OpBuilder top(module.getContext());
    top.setInsertionPointAfter(callee);
    SmallVector<Type> argTypes(callee.getFunctionType().getInputs());
    argTypes.push_back(labelsType);
    auto func = func::FuncOp::create(top, callee.getLoc(), name,
                                     top.getFunctionType(argTypes, {}));
    Block *body = func.addEntryBlock();
    ImplicitLocOpBuilder b(callee.getLoc(), body, body->begin());
    LossBuilder l{b};
    Type f32 = b.getF32Type();
    SmallVector<Value> args(body->getArguments().drop_back());
    Value labels = body->getArguments().back();
    auto call = func::CallOp::create(b, callee, args);
    Value y = l.castTo(call.getResult(*chosen), f32);
    int64_t classes = shape.empty() ? 1 : shape.back();
    int64_t rows = outType.getNumElements() / classes;
    Value loss, accuracy;
    switch (o.kind) {
    case LossKind::None:
      break;
    case LossKind::SoftmaxCrossEntropy:
    case LossKind::SparseSoftmaxCrossEntropy:
    case LossKind::CrossEntropy:
    case LossKind::SparseCrossEntropy: {
      Value y2 = l.reshape(y, {rows, classes});
      Value logp;
      if (o.kind == LossKind::SoftmaxCrossEntropy ||
          o.kind == LossKind::SparseSoftmaxCrossEntropy) {
        logp = l.logSoftmax(y2);
      } else {
        Value p = y2;
        if (o.kind == LossKind::CrossEntropy)
          p = DivOp::create(b, p, l.sumRows(p, true));
        logp = LogOp::create(b, l.clip(p));
      }
      Value predicted = l.argmax(y2);
      Value perRow;
      if (isSparse(o.kind)) {
        Value t = l.reshape(labels, {rows, 1});
        SmallVector<int64_t> positions =
            llvm::to_vector(llvm::seq<int64_t>(0, classes));
        auto iotaType = RankedTensorType::get({1, classes}, b.getI64Type());
        Value iota = ConstantOp::create(
            b, DenseElementsAttr::get(iotaType, ArrayRef<int64_t>(positions)));
        Value hot = CompareOp::create(b, CmpPredicate::eq, t, iota);
        perRow =
            l.sumRows(SelectOp::create(b, hot, logp, l.scalar(0, f32)), false);
        accuracy = l.fraction(CompareOp::create(b, CmpPredicate::eq, predicted,
                                                l.reshape(labels, {rows})));
      } else {
        Value t = l.reshape(l.castTo(labels, f32), {rows, classes});
        perRow = l.sumRows(MulOp::create(b, t, logp), false);
        accuracy = l.fraction(
            CompareOp::create(b, CmpPredicate::eq, predicted, l.argmax(t)));
      }
      loss = NegOp::create(b, l.mean(perRow));
      break;
    }
    case LossKind::MeanSquaredError: {
      Value d = SubOp::create(b, y, l.castTo(labels, f32));
      loss = l.mean(MulOp::create(b, d, d));
      break;
    }
    case LossKind::BinaryCrossEntropy: {
      Value p = l.clip(y), t = l.castTo(labels, f32);
      Value one = l.scalar(1, f32);
      Value terms = AddOp::create(
          b, MulOp::create(b, t, LogOp::create(b, p)),
          MulOp::create(b, SubOp::create(b, one, t),
                        LogOp::create(b, SubOp::create(b, one, p))));
      loss = NegOp::create(b, l.mean(terms));
      Value half = l.scalar(0.5, f32);
      Value side =
          XorOp::create(b, CompareOp::create(b, CmpPredicate::gt, y, half),
                        CompareOp::create(b, CmpPredicate::gt, t, half));
      accuracy = l.fraction(NotOp::create(b, side));
      break;
    }
    }
    Builder attrs(module.getContext());
    auto named = [&](StringRef n) {
      return attrs.getDictionaryAttr(
          {attrs.getNamedAttr(kNameAttrName, attrs.getStringAttr(n))});
    };
    SmallVector<Value> results{loss};
    SmallVector<DictionaryAttr> resultAttrs{named("loss")};
    if (accuracy) {
      results.push_back(accuracy);
      resultAttrs.push_back(named("accuracy"));
    }
    for (unsigned r = 0; r < callee.getNumResults(); ++r)
      if (callee.getResultAttr(r, kUpdatesAttrName)) {
        results.push_back(call.getResult(r));
        resultAttrs.push_back(callee.getResultAttrDict(r));
      }
    func::ReturnOp::create(b, results);
    func.setFunctionType(
        b.getFunctionType(argTypes, ValueRange(results).getTypes()));
    for (unsigned i = 0; i < callee.getNumArguments(); ++i)
      if (DictionaryAttr d = callee.getArgAttrDict(i))
        func.setArgAttrs(i, d);
    func.setArgAttrs(callee.getNumArguments(), named(o.labels));
    func.setAllResultAttrs(resultAttrs);
    return func;
  };
  func::FuncOp loss = build(model, kAddedLossName);
  if (twin) {
    func::FuncOp evalLoss = build(twin, (kAddedLossName + "_eval").str());
    loss->setAttr(kEvalAttrName,
                  FlatSymbolRefAttr::get(evalLoss.getSymNameAttr()));
    twin.setPrivate();
  }
  model.setPrivate();
  return loss;
}

namespace {

struct FusecAddLossPass final
    : fusec::impl::FusecAddLossBase<FusecAddLossPass> {
  explicit FusecAddLossPass(const LossOptions &o = {}) : options(*this, o) {}
  FusecAddLossPass(const FusecAddLossPass &other)
      : FusecAddLossBase(other), options(*this, other.options.value) {}

  void runOnOperation() override {
    if (failed(options.load(getOperation())) ||
        failed(buildLossFunction(getOperation(), options.value)))
      signalPassFailure();
  }

  BoundPassOptions<LossOptions> options;
};

} // namespace

std::unique_ptr<Pass> fusec::createFusecAddLoss(const LossOptions &o) {
  return std::make_unique<FusecAddLossPass>(o);
}
