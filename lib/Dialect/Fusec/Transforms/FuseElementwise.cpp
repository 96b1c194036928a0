//===- FuseElementwise.cpp - The fusion pass ------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECFUSEELEMENTWISE
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

struct FusecFuseElementwisePass final
    : fusec::impl::FusecFuseElementwiseBase<FusecFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FusionOptions options;
    options.launchCostBytes = launchCostBytes;
    options.maxOpsPerFusion = std::max<int64_t>(1, maxOps);
    options.maxInlineConstantElements = inlineConstantElements;
    options.duplicateCheapProducers = duplicate;
    options.multiOutput = multiOutput;
    options.reachabilityBudget = reachabilityBudget;
    options.explain = false; // Nobody reads the reasons here.
    for (Block &block : func.getBody()) {
      prepareForFusion(block, options);
      FusionPlan plan = planFusion(block, options);
      applyFusionPlan(block, plan, options);
    }
  }
};

} // namespace
