//===- Autodiff.cpp - Reverse-mode automatic differentiation --------------===//
//
// buildGradientFunction and the fusec-autodiff pass. A gradient function
// clones the forward operations the loss depends on, then walks them in
// reverse, turning the adjoint of each result into adjoints of its operands
// with the derivative rules the operations declare
// (DifferentiableOpInterface, in Dialect/Fusec/IR/FusecGradients.cpp, which
// also states the conventions at kinks and ties). This file decides what is
// differentiated: a float to i32/i64 cast whose input depends on a
// parameter and whose result reaches the loss is an error (a quantization
// whose gradient would silently vanish), as is any operation without a
// rule (calls, fusions, other dialects).
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/IR/Adjoints.h"
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

#include <optional>

namespace fusec {
#define GEN_PASS_DEF_FUSECAUTODIFF
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

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
class GradientBuilder : public Adjoints {
public:
  explicit GradientBuilder(func::FuncOp func)
      : Adjoints(func.getContext()), func(func) {
    loc = func.getLoc();
  }

  /// Computes the needed and varied sets; emits an error at the first
  /// operation on a path from a parameter to the loss without a rule.
  LogicalResult analyze();

  /// Adds the gradient function after `func`. Call after analyze().
  func::FuncOp build(const GradientOptions &options);

private:
  func::FuncOp func;
  /// Operations the loss depends on, in order.
  SmallVector<Operation *> needed;
  /// Operations any result depends on, in order (for otherResults).
  SmallVector<Operation *> neededByAny;
};

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

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

/// The operations of `body` that `values` depend on, in order.
SmallVector<Operation *> opsReaching(Block &body, ValueRange values) {
  llvm::DenseSet<Value> reaches(values.begin(), values.end());
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (llvm::none_of(op.getResults(),
                      [&](Value v) { return reaches.contains(v); }))
      continue;
    ops.push_back(&op);
    for (Value v : inputsOf(&op))
      reaches.insert(v);
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
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

  // Backward: what the loss depends on, and what any result does.
  Operation *terminator = body.getTerminator();
  needed = opsReaching(body, terminator->getOperands().take_front());
  neededByAny = opsReaching(body, terminator->getOperands());

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
    std::string hint = "(no derivative rule for this operation)";
    if (auto rule = dyn_cast<DifferentiableOpInterface>(op)) {
      std::string why = rule.notDifferentiable();
      if (why.empty())
        continue;
      hint = "(" + why + ")";
    }
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      auto callee = dyn_cast_or_null<func::FuncOp>(call.resolveCallable());
      hint = callee && callee.isExternal()
                 ? "(its callee is a declaration without a body)"
                 : "(inline calls first)";
    } else if (isa<FusionOp>(op)) {
      hint = "(differentiate before fusion)";
    } else if (isa<Conv2DOp, MaxPool2DOp, AvgPool2DOp>(op)) {
      hint = "(lower it first: fusec-lower-windows)";
    }
    return op->emitError() << "cannot differentiate through '" << op->getName()
                           << "': it depends on a '" << kParamAttrName
                           << "' argument and its result reaches the loss "
                           << hint;
  }
  return success();
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
  if (options.otherResults)
    llvm::append_range(results, func.getResultTypes().drop_front());

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
  ArrayRef<Operation *> forward = options.otherResults ? neededByAny : needed;
  for (Operation *op : forward)
    b.clone(*op, mapping);
  if (options.forwardOps)
    *options.forwardOps = forward.size();

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
    loc = op->getLoc();
    cast<DifferentiableOpInterface>(op).backprop(*this);
  }

  loc = func.getLoc();
  SmallVector<Value> returned{fwd(loss)};
  for (unsigned i : params) {
    Value arg = body.getArgument(i);
    Value g = adjoints.lookup(arg);
    returned.push_back(g ? g : splat(cast<RankedTensorType>(arg.getType()), 0));
  }
  if (options.otherResults)
    for (Value v : body.getTerminator()->getOperands().drop_front())
      returned.push_back(fwd(v));
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
