//===- FuseElementwise.cpp - The fusion pass ------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pass/PassOptions.h"

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
  explicit FusecFuseElementwisePass(const FusionOptions &o = {},
                                    FusionObserver *observer = nullptr)
      : options(*this, o), observer(observer) {}
  FusecFuseElementwisePass(const FusecFuseElementwisePass &other)
      : FusecFuseElementwiseBase(other), options(*this, other.options.value),
        observer(other.observer) {}

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(options.load(func)))
      return signalPassFailure();
    if (func.isExternal())
      return;
    FusionOptions fusion = options.value;
    // The reasons cost time; only an observer reads them.
    fusion.explain = observer != nullptr;
    for (Block &block : func.getBody()) {
      // Kernels before fusion: before preparation adds slices and copies.
      int64_t before = countKernels(block);
      prepareForFusion(block, fusion);
      FusionPlan plan = planFusion(block, fusion);
      plan.kernelsBefore = before;
      if (observer)
        observer->planned(func, plan);
      applyFusionPlan(block, plan, fusion);
    }
  }

  BoundPassOptions<FusionOptions> options;
  FusionObserver *observer;
};

} // namespace

std::unique_ptr<Pass>
fusec::createFusecFuseElementwise(const FusionOptions &options,
                                  FusionObserver *observer) {
  return std::make_unique<FusecFuseElementwisePass>(options, observer);
}
