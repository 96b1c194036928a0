//===- MixedPrecision.cpp - float16/bfloat16 painting ---------------------===//
//
// `fusec-mixed-precision`: decides, operation by operation in program order,
// which f32 computations run in f16/bf16, and rewrites them in place with
// casts where painted and unpainted operations meet. See the pass
// description in Passes.td for the classes and their rules.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/MixedPrecision.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECMIXEDPRECISION
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

/// How a value of (originally) f32 element type is computed.
enum class Paint {
  F32,     // in f32, harmless to read in low precision
  Low,     // in the low type (or, for an accumulating op, f32 to round)
  Tainted, // in f32, downstream of a deny operation
};

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

Type withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Whether every element of the constant `v` (if it is one) is exactly a
/// value of `low`: only then may a clear operation read it in low
/// precision without rounding it (a clamp to 1e-12 must not become a clamp
/// to 0).
bool isExactConstant(Value v, Type low) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense)
    return false; // dense_resource: not looked into
  const llvm::fltSemantics &semantics =
      cast<FloatType>(low).getFloatSemantics();
  auto exact = [&](APFloat value) {
    bool losesInfo = false;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return !losesInfo;
  };
  if (dense.isSplat())
    return exact(dense.getSplatValue<APFloat>());
  return llvm::all_of(dense.getValues<APFloat>(), exact);
}

/// Paints and rewrites one function.
class Painter {
public:
  Painter(const llvm::StringMap<PrecisionClass> &classes, Type low, bool keepIO)
      : classes(classes), low(low), keepIO(keepIO) {}

  void run(func::FuncOp func);

  int64_t lowOps = 0;
  int64_t casts = 0;

private:
  PrecisionClass classify(Operation *op) const;
  /// Whether `v` was an f32 tensor before the pass.
  bool wasF32(Value v) const {
    return lowered.contains(v) ||
           (isa<RankedTensorType>(v.getType()) && elementTypeOf(v).isF32());
  }
  Paint paintOf(Value v) const {
    if (!wasF32(v))
      return isFloatTensor(v) ? Paint::Low : Paint::F32;
    return paint.lookup(v);
  }
  Value asLow(Value v);
  Value asF32(Value v);
  Value castAfterDefinition(Value v, Type element);
  void paintOp(Operation *op);
  void keepTypes(Operation *op);

  const llvm::StringMap<PrecisionClass> &classes;
  Type low;
  bool keepIO;
  DenseMap<Value, Paint> paint;
  /// Values whose type this pass changed from f32 to the low type.
  DenseSet<Value> lowered;
  DenseMap<Value, Value> lowOf, f32Of;
  SmallVector<Operation *> createdCasts;
};

PrecisionClass Painter::classify(Operation *op) const {
  if (!isa<FusecDialect>(op->getDialect()) ||
      isa<ConstantOp, CastOp, FusionOp, YieldOp>(op))
    return PrecisionClass::Fixed;
  StringRef name = op->getName().stripDialect();
  auto it = classes.find(name);
  return it == classes.end() ? PrecisionClass::Fixed : it->second;
}

Value Painter::castAfterDefinition(Value v, Type element) {
  OpBuilder builder(v.getContext());
  if (Operation *def = v.getDefiningOp())
    builder.setInsertionPointAfter(def);
  else
    builder.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  auto op = CastOp::create(builder, v.getLoc(),
                           withElementType(v.getType(), element), v);
  createdCasts.push_back(op);
  ++casts;
  return op.getResult();
}

Value Painter::asLow(Value v) {
  if (elementTypeOf(v) == low)
    return v;
  if (Value cached = lowOf.lookup(v))
    return cached;
  // A value widened from the low type reads as the original.
  Value result;
  if (auto widen = v.getDefiningOp<CastOp>();
      widen && elementTypeOf(widen.getInput()) == low)
    result = widen.getInput();
  else
    result = castAfterDefinition(v, low);
  lowOf[v] = result;
  return result;
}

Value Painter::asF32(Value v) {
  if (elementTypeOf(v).isF32())
    return v;
  if (Value cached = f32Of.lookup(v))
    return cached;
  Value result = castAfterDefinition(v, Float32Type::get(v.getContext()));
  f32Of[v] = result;
  return result;
}

/// Operands the pass lowered go back to f32: the operation keeps its types.
void Painter::keepTypes(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (lowered.contains(operand.get()))
      operand.set(asF32(operand.get()));
}

void Painter::paintOp(Operation *op) {
  bool anyF32 =
      llvm::any_of(op->getOperands(), [&](Value v) { return wasF32(v); }) ||
      llvm::any_of(op->getResults(), [&](Value v) { return wasF32(v); });
  if (!anyF32)
    return;

  PrecisionClass cls = classify(op);
  bool tainted = false, lowPaint = false;
  switch (cls) {
  case PrecisionClass::Fixed:
    keepTypes(op);
    return;
  case PrecisionClass::Allow:
    lowPaint = true;
    break;
  case PrecisionClass::Deny:
    tainted = true;
    break;
  case PrecisionClass::Infer:
  case PrecisionClass::Clear: {
    bool anyLow = false, allLow = true;
    for (Value v : op->getOperands()) {
      if (!isFloatTensor(v))
        continue;
      Paint p = paintOf(v);
      tainted |= p == Paint::Tainted;
      anyLow |= p == Paint::Low;
      allLow &= p == Paint::Low || isExactConstant(v, low);
    }
    lowPaint = !tainted && anyLow && (cls == PrecisionClass::Infer || allLow);
    break;
  }
  }

  if (!lowPaint) {
    keepTypes(op);
    for (Value r : op->getResults())
      if (wasF32(r))
        paint[r] = tainted ? Paint::Tainted : Paint::F32;
    return;
  }

  ++lowOps;
  // Sums read the low-precision input, accumulate in f32 and return the f32
  // accumulation: rounding it to the low type is its consumers' cast.
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  bool sums = reduction && (reduction.getCombiner() == ReductionCombiner::Sum ||
                            reduction.getCombiner() == ReductionCombiner::Mean);
  bool accumulates = isa<MatmulOp>(op) || sums;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!wasF32(v))
      continue;
    Value lowered = asLow(v);
    if (sums)
      lowered = asF32(lowered);
    operand.set(lowered);
  }
  for (Value r : op->getResults()) {
    if (!wasF32(r))
      continue;
    paint[r] = Paint::Low;
    if (!accumulates) {
      r.setType(withElementType(r.getType(), low));
      lowered.insert(r);
    }
  }
}

void Painter::run(func::FuncOp func) {
  Block &entry = func.getBody().front();
  if (keepIO) {
    for (BlockArgument arg : entry.getArguments()) {
      if (!isFloatTensor(arg) || !elementTypeOf(arg).isF32())
        continue;
      arg.setType(withElementType(arg.getType(), low));
      lowered.insert(arg);
      paint[arg] = Paint::Low;
    }
  }
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        if (!wasF32(v))
          continue;
        operand.set(keepIO ? asLow(v) : asF32(v));
      }
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      // The callee's signature may have changed (keep-io-low-precision):
      // pass and receive what it now takes and returns.
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee)
        continue;
      FunctionType type = callee.getFunctionType();
      for (OpOperand &operand : call->getOpOperands()) {
        Type want = type.getInput(operand.getOperandNumber());
        Value v = operand.get();
        if (!isFloatTensor(v) || v.getType() == want)
          continue;
        operand.set(cast<ShapedType>(want).getElementType() == low ? asLow(v)
                                                                   : asF32(v));
      }
      for (auto [r, want] : llvm::zip(call->getResults(), type.getResults())) {
        if (r.getType() == want || !wasF32(r))
          continue;
        r.setType(want);
        lowered.insert(r);
        paint[r] = Paint::Low;
      }
      continue;
    }
    paintOp(&op);
  }
  // f16 -> f32 -> f16 pairs and casts of constants fold; unused casts go.
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  SmallVector<Operation *> users;
  for (Operation *c : createdCasts)
    for (Operation *user : c->getUsers())
      if (isa<CastOp>(user))
        users.push_back(user);
  createdCasts.append(users);
  llvm::SetVector<Operation *> constants;
  for (Operation *c : createdCasts)
    if (Operation *def = c->getOperand(0).getDefiningOp();
        def && isa<ConstantOp>(def))
      constants.insert(def);
  (void)applyOpPatternsGreedily(
      createdCasts,
      FrozenRewritePatternSet(RewritePatternSet(func.getContext())), config);
  // Constants whose only user was a cast that folded into a new constant.
  for (Operation *c : constants)
    if (c->use_empty())
      c->erase();
  func.setFunctionType(
      FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                        entry.getTerminator()->getOperandTypes()));
}

} // namespace

FailureOr<MixedPrecisionStats>
fusec::applyMixedPrecision(Operation *anchor, ArrayRef<func::FuncOp> funcs,
                           const MixedPrecisionOptions &options) {
  MLIRContext *ctx = anchor->getContext();
  if (options.precision == LowPrecision::Off)
    return MixedPrecisionStats();
  Type low = options.precision == LowPrecision::F16
                 ? Type(Float16Type::get(ctx))
                 : Type(BFloat16Type::get(ctx));
  // The classes the operations declare (Fusec_Properties in FusecOps.td),
  // by name: the lists below name operations.
  llvm::StringMap<PrecisionClass> classes;
  // (getRegisteredOperationsByDialect misses operations in MLIR 22: the
  // whole list is filtered instead.)
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (auto *properties = name.getInterface<FusecOpInterface>())
      if (properties->getPrecisionClass() != PrecisionClass::Fixed)
        classes[name.stripDialect()] = properties->getPrecisionClass();
  // An operation named in a list moves there; in two lists, it is an error
  // (which would win is not obvious).
  llvm::StringMap<StringRef> movedTo;
  auto move = [&](ArrayRef<std::string> names, PrecisionClass cls,
                  StringRef list) -> LogicalResult {
    for (const std::string &name : names) {
      StringRef op = StringRef(name).trim();
      op.consume_front("fusec.");
      if (!classes.count(op))
        return anchor->emitError()
               << "mixed precision: '" << op << "' in the " << list
               << " list is not a fusec operation that computes (see "
                  "fusec-mixed-precision)";
      auto [it, inserted] = movedTo.try_emplace(op, list);
      if (!inserted && it->second != list)
        return anchor->emitError()
               << "mixed precision: '" << op << "' is in both the "
               << it->second << " and " << list << " lists";
      classes[op] = cls;
    }
    return success();
  };
  if (failed(move(options.allow, PrecisionClass::Allow, "allow")) ||
      failed(move(options.infer, PrecisionClass::Infer, "infer")) ||
      failed(move(options.deny, PrecisionClass::Deny, "deny")) ||
      failed(move(options.clear, PrecisionClass::Clear, "clear")))
    return failure();
  for (func::FuncOp func : funcs)
    if (!func.isExternal() && !func.getBody().hasOneBlock())
      return func.emitError()
             << "mixed precision: '" << func.getSymName()
             << "' has several blocks; only single-block functions are "
                "rewritten";

  // Signatures change first (keep-io-low-precision), so that calls see
  // their callee's new types wherever the callee is in the module.
  if (options.keepIOLowPrecision) {
    for (func::FuncOp func : funcs) {
      auto convert = [&](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && tensor.getElementType().isF32()
                   ? withElementType(t, low)
                   : t;
      };
      FunctionType type = func.getFunctionType();
      func.setFunctionType(
          FunctionType::get(ctx, llvm::map_to_vector(type.getInputs(), convert),
                            llvm::map_to_vector(type.getResults(), convert)));
    }
  }
  MixedPrecisionStats stats;
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    Painter painter(classes, low, options.keepIOLowPrecision);
    painter.run(func);
    stats.lowOps += painter.lowOps;
    stats.casts += painter.casts;
  }
  return stats;
}

namespace {

struct FusecMixedPrecisionPass final
    : fusec::impl::FusecMixedPrecisionBase<FusecMixedPrecisionPass> {
  explicit FusecMixedPrecisionPass(const MixedPrecisionOptions &o = {})
      : options(*this, o) {}
  FusecMixedPrecisionPass(const FusecMixedPrecisionPass &other)
      : FusecMixedPrecisionBase(other), options(*this, other.options.value) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(options.load(module)))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    FailureOr<MixedPrecisionStats> stats =
        applyMixedPrecision(module, funcs, options.value);
    if (failed(stats))
      return signalPassFailure();
    numLowOps += stats->lowOps;
    numCasts += stats->casts;
  }

  BoundPassOptions<MixedPrecisionOptions> options;
};

} // namespace

std::unique_ptr<Pass>
fusec::createFusecMixedPrecision(const MixedPrecisionOptions &options) {
  return std::make_unique<FusecMixedPrecisionPass>(options);
}

void MixedPrecisionOptions::bindOptions(OptionBinder &binder) {
  binder.group("mixed-precision",
               "Mixed precision (`fusec-mixed-precision`, and the painting "
               "of `fusec-train-step`)");
  binder.choice("mixed-precision", precision,
                {{LowPrecision::Off, "off", "everything stays f32"},
                 {LowPrecision::F16, "f16", "float16, with loss scaling"},
                 {LowPrecision::BF16, "bf16", "bfloat16"}},
                "Run f32 computations in a low-precision type where it is "
                "safe, accumulating in f32");
  binder.flag("keep-io-low-precision", keepIOLowPrecision,
              "Change the f32 arguments and results of the functions to the "
              "low type (not for training steps)");
  binder.list("mixed-precision-allow", allow,
              "Operations moved to the allow class (always low precision)",
              "op");
  binder.list("mixed-precision-infer", infer,
              "Operations moved to the infer class (follow their operands)",
              "op");
  binder.list("mixed-precision-deny", deny,
              "Operations moved to the deny class (always f32)", "op");
  binder.list("mixed-precision-clear", clear,
              "Operations moved to the clear class (no numeric effect)", "op");
}
