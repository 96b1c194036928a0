//===- FusionApplication.cpp - Applying a fusion plan ---------------------===//
//
// Wraps every planned group into a fusec.fusion (small constants copied in,
// duplicates merged again), then restores a topological order of the block.
//
//===----------------------------------------------------------------------===//

#include "FusionSupport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Support/Checked.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fusec-fusion"

using namespace mlir;
using namespace fusec;
using namespace fusec::fusion;

//===----------------------------------------------------------------------===//
// Application
//===----------------------------------------------------------------------===//

/// Reorders the operations of `block` (but its terminator) topologically,
/// keeping their current order wherever it is already valid. Kahn's
/// algorithm with the ready operations taken in their current order:
/// O(n log n), where mlir::sortTopologically's repeated sweeps can be
/// quadratic when many operations are out of place.
static void stableTopologicalSort(Block &block) {
  SmallVector<Operation *> order;
  llvm::DenseMap<Operation *, unsigned> index;
  for (Operation &op : block.without_terminator()) {
    index[&op] = order.size();
    order.push_back(&op);
  }
  std::vector<unsigned> waiting(order.size(), 0);
  for (auto [i, op] : llvm::enumerate(order))
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && index.count(def))
        ++waiting[i];
  // Min-heap of ready operations by current position.
  std::vector<unsigned> ready;
  auto later = [](unsigned a, unsigned b) { return a > b; };
  for (unsigned i = 0; i < order.size(); ++i)
    if (!waiting[i])
      ready.push_back(i);
  std::make_heap(ready.begin(), ready.end(), later);
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    Operation *op = order[ready.back()];
    ready.pop_back();
    if (terminator)
      op->moveBefore(terminator);
    else
      op->moveBefore(&block, block.end());
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (auto it = index.find(user); it != index.end())
          if (--waiting[it->second] == 0) {
            ready.push_back(it->second);
            std::push_heap(ready.begin(), ready.end(), later);
          }
  }
}

void fusec::applyFusionPlan(Block &block, const FusionPlan &plan,
                            const FusionOptions &options) {
  MLIRContext *context = block.getParentOp()->getContext();
  OpBuilder builder(context);
  for (const FusionGroup &planned : plan.groups) {
    // In block order, as planned (not isBeforeInBlock: every fusion
    // inserted invalidates the block's cached order, and recomputing it per
    // fusion would be quadratic).
    ArrayRef<Operation *> all = planned.allOps;
    llvm::SmallPtrSet<Operation *, 16> members(all.begin(), all.end());
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    SmallVector<Value> outputs;
    for (Operation *op : all) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && members.count(def))
          continue;
        // A matmul step reads every operand from memory.
        if (def && isSmallConstant(def, options) &&
            planned.kind != FusionKind::Matmul)
          constants.insert(def);
        else
          inputs.insert(operand);
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !members.count(user); }))
          outputs.push_back(result);
    }
    // The fusion goes where the last member was; a topological sort at the
    // end moves outside users that came earlier after it.
    Operation *last = all.back();
    builder.setInsertionPointAfter(last);
    SmallVector<Type> resultTypes;
    for (Value v : outputs)
      resultTypes.push_back(v.getType());
    auto fusion = FusionOp::create(builder, last->getLoc(), resultTypes,
                                   inputs.getArrayRef(), planned.kind);
    // Outside users read the fusion's results (visiting each output's uses
    // once keeps this linear even for values with many users).
    for (auto [v, r] : llvm::zip(outputs, fusion.getResults()))
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses()))
        if (!members.count(use.getOwner()))
          use.set(r);
    Block *body = new Block();
    fusion.getBody().push_back(body);
    llvm::DenseMap<Value, Value> inside;
    for (Value input : inputs)
      inside[input] = body->addArgument(input.getType(), input.getLoc());
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    for (Operation *constant : constants)
      inside[constant->getResult(0)] = inner.clone(*constant)->getResult(0);
    // Move the members in, in order, merging equivalent ones (copies made
    // by prepareForFusion that landed in the same kernel).
    llvm::DenseSet<Operation *, EquivalentOp> seen;
    for (Operation *op : all) {
      op->moveBefore(body, body->end());
      for (OpOperand &operand : op->getOpOperands())
        if (Value v = inside.lookup(operand.get()))
          operand.set(v);
      auto [it, inserted] = seen.insert(op);
      if (!inserted && op->getNumRegions() == 0) {
        for (auto [mine, kept] :
             llvm::zip(op->getResults(), (*it)->getResults()))
          inside[mine] = kept;
        op->replaceAllUsesWith(*it);
        op->erase();
      }
    }
    SmallVector<Value> yielded;
    for (Value v : outputs) // Defined inside the body now.
      yielded.push_back(inside.count(v) ? inside.lookup(v) : v);
    inner.setInsertionPointToEnd(body);
    YieldOp::create(inner, fusion.getLoc(), yielded);
  }
  // Constants whose every use moved into fusions are dead now.
  for (Operation &op : llvm::make_early_inc_range(block))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  stableTopologicalSort(block);
}
