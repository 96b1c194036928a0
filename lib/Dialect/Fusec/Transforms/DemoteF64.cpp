//===- DemoteF64.cpp - Compute f64 operations in f32 ----------------------===//
//
// `fusec-demote-f64` (see its description in Passes.td). The function's
// top-level operations are visited in order: fusec operations that compute
// have their f64 results retyped to f32 in place (an f64 constant's values
// rounded once, by the reference cast kernel), so that their users read f32
// operands; casts that become f32 -> f32 are removed. f64 block arguments
// and f64 results of other operations are read through a cast to f32, and
// other operations (return, call, fusion) get their f64 operands back
// through a cast to f64, so that nothing outside the function changes.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Interpreter/Kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECDEMOTEF64
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

bool isF64Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF64();
}

RankedTensorType withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// The f32 constant of the f64 constant `value`, each element rounded once
/// to nearest even; null when its data cannot be read.
DenseElementsAttr demoteConstant(ElementsAttr value) {
  EvalContext ctx;
  Buffer in = elementsToBuffer(value, ctx);
  if (!in)
    return {};
  std::string error;
  Buffer out = Buffer::allocate(DType::F32, in.shape(), &error);
  if (!out)
    return {};
  kernels::cast(in, out);
  return bufferToDense(
      out, withElement(value.getType(), Float32Type::get(value.getContext())));
}

struct FusecDemoteF64Pass final
    : fusec::impl::FusecDemoteF64Base<FusecDemoteF64Pass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Type f32 = Float32Type::get(&getContext());
    Type f64 = Float64Type::get(&getContext());
    OpBuilder b(&getContext());
    // Values that were f64 and are now f32 (their users compute in f32).
    llvm::DenseSet<Value> demoted;
    auto readAsF32 = [&](Value v, Location loc) {
      auto cast = CastOp::create(b, loc, withElement(v.getType(), f32), v);
      v.replaceAllUsesExcept(cast, cast);
      demoted.insert(cast);
    };
    // The operands of other operations that are f64 now and must stay.
    llvm::DenseSet<OpOperand *> keepF64;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (!isa<FusecOpInterface>(op) || isa<FusionOp>(op))
          for (OpOperand &operand : op.getOpOperands())
            if (isF64Tensor(operand.get().getType()))
              keepF64.insert(&operand);
    int64_t count = 0;
    for (Block &block : func.getBody()) {
      // One cast back to f64 per value and block.
      llvm::DenseMap<Value, Value> backToF64;
      b.setInsertionPointToStart(&block);
      for (BlockArgument arg : block.getArguments())
        if (isF64Tensor(arg.getType()))
          readAsF32(arg, arg.getLoc());
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (!isa<FusecOpInterface>(op) || isa<FusionOp>(op)) {
          // Its types stay: f64 operands back to f64, f64 results read
          // through a cast to f32.
          b.setInsertionPoint(&op);
          for (OpOperand &operand : op.getOpOperands()) {
            Value v = operand.get();
            if (!keepF64.contains(&operand) || isF64Tensor(v.getType()))
              continue;
            Value &back = backToF64[v];
            if (!back)
              back = CastOp::create(b, op.getLoc(),
                                    withElement(v.getType(), f64), v);
            operand.set(back);
          }
          b.setInsertionPointAfter(&op);
          for (OpResult result : op.getResults())
            if (isF64Tensor(result.getType()) && !result.use_empty())
              readAsF32(result, op.getLoc());
          continue;
        }
        bool computesInF64 = llvm::any_of(
            op.getOperands(), [&](Value v) { return demoted.contains(v); });
        for (OpResult result : op.getResults()) {
          if (!isF64Tensor(result.getType()))
            continue;
          result.setType(withElement(result.getType(), f32));
          demoted.insert(result);
          computesInF64 = true;
        }
        if (auto constant = dyn_cast<ConstantOp>(op);
            constant && computesInF64) {
          DenseElementsAttr value = demoteConstant(constant.getValue());
          if (!value) {
            constant.emitError("demote-f64: cannot read this f64 constant");
            return signalPassFailure();
          }
          constant.setValueAttr(value);
        }
        if (auto cast = dyn_cast<CastOp>(op);
            cast && cast.getInput().getType() == cast.getType()) {
          // f32 -> f64 -> f32 is nothing now.
          demoted.erase(cast.getResult());
          cast.getResult().replaceAllUsesWith(cast.getInput());
          cast.erase();
          continue;
        }
        count += computesInF64;
      }
    }
    if (count)
      func.emitRemark() << "demote-f64: " << count << " operation"
                        << (count == 1 ? "" : "s") << " of '"
                        << func.getSymName()
                        << "' computed in f32 instead of f64";
    numDemoted += count;
  }
};

} // namespace
