//===- RecomputeActivations.cpp - Recompute instead of keeping ------------===//
//
// `fusec-recompute-activations` (see its description in Passes.td):
// rematerialization of cheap forward chains in a training step's backward
// pass, so that the forward values they compute die in the forward pass.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECRECOMPUTEACTIVATIONS
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

constexpr size_t kMaxChainOps = 16;

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttrName); }

/// Operations worth recomputing: cheap scalar functions, views, and random
/// numbers (a dropout mask costs less to draw again than to keep).
bool isCheap(Operation *op) {
  auto properties = dyn_cast<FusecOpInterface>(op);
  if (!properties || properties.getCost() != Cost::Cheap ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  return isElementwise(op) ||
         isa<ReshapeOp, BroadcastToOp, RandomUniformOp>(op);
}

bool readByBackward(Value v) { return llvm::any_of(v.getUsers(), isBackward); }

/// What the backward pass may read at no cost in memory: arguments,
/// constants, and forward values it reads anyway.
bool keptAnyway(Value v, const llvm::DenseSet<Value> &chain) {
  if (isa<BlockArgument>(v) || v.getDefiningOp<ConstantOp>())
    return true;
  return !chain.contains(v) && readByBackward(v);
}

/// The forward operations computing `root` from values kept anyway, in
/// block order; empty when there is no such chain of at most kMaxChainOps.
SmallVector<Operation *> chainOf(Value root) {
  Operation *top = root.getDefiningOp();
  if (!top || isBackward(top) || !isCheap(top))
    return {};
  llvm::SetVector<Operation *> ops;
  llvm::DenseSet<Value> inChain{root};
  SmallVector<Operation *> work{top};
  ops.insert(top);
  // Grow the chain through operands that are neither kept nor free.
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value operand : op->getOperands()) {
      if (keptAnyway(operand, inChain) || inChain.contains(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      if (!def || isBackward(def) || !isCheap(def) ||
          ops.size() == kMaxChainOps)
        return {};
      inChain.insert(operand);
      ops.insert(def);
      work.push_back(def);
    }
  }
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct FusecRecomputeActivationsPass final
    : fusec::impl::FusecRecomputeActivationsBase<
          FusecRecomputeActivationsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    // Candidates first: cloning adds operations.
    SmallVector<Value> candidates;
    for (Operation &op : body.without_terminator())
      if (!isBackward(&op) && op.getNumResults() == 1 &&
          readByBackward(op.getResult(0)) && isCheap(&op))
        candidates.push_back(op.getResult(0));
    int64_t cloned = 0;
    for (Value v : candidates) {
      SmallVector<Operation *> chain = chainOf(v);
      if (chain.empty())
        continue;
      // The first backward reader, in block order.
      Operation *first = nullptr;
      for (Operation *user : v.getUsers())
        if (isBackward(user) && (!first || user->isBeforeInBlock(first)))
          first = user;
      OpBuilder b(first);
      IRMapping map;
      for (Operation *op : chain) {
        Operation *copy = b.clone(*op, map);
        copy->setAttr(kBackwardAttrName, b.getUnitAttr());
      }
      Value copy = map.lookup(v);
      v.replaceUsesWithIf(
          copy, [](OpOperand &use) { return isBackward(use.getOwner()); });
      cloned += int64_t(chain.size());
      ++numRecomputed;
    }
    if (cloned)
      func->setAttr(
          kRecomputedAttrName,
          IntegerAttr::get(IntegerType::get(&getContext(), 64), cloned));
  }
};

} // namespace
