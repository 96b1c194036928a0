//===- Pipeline.cpp - The fusec pass pipeline -----------------------------===//

#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Conversion/Passes.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

fusec::FusionOptions
fusec::getFusionOptions(const FusecPipelineOptions &options) {
  FusionOptions f;
  f.launchCostBytes = options.fusionLaunchCostBytes;
  f.maxOpsPerFusion = std::max<int64_t>(1, options.fusionMaxOps);
  f.multiOutput = options.fusionMultiOutput;
  f.duplicateCheapProducers = options.fusionDuplicate;
  f.reachabilityBudget = options.fusionReachabilityBudget;
  return f;
}

/// The mixed-precision class lists, into the options of a pass that has
/// them (fusec-mixed-precision, fusec-train-step).
template <typename PassOptions>
static void copyClassLists(const fusec::FusecPipelineOptions &options,
                           PassOptions &pass) {
  auto copy = [](const auto &from, auto &to) {
    to.assign(from.begin(), from.end());
  };
  copy(options.mixedPrecisionAllow, pass.allowOps);
  copy(options.mixedPrecisionInfer, pass.inferOps);
  copy(options.mixedPrecisionDeny, pass.denyOps);
  copy(options.mixedPrecisionClear, pass.clearOps);
}

void fusec::buildFusecPipeline(OpPassManager &pm,
                               const FusecPipelineOptions &options) {
  if (options.importTosa)
    pm.addPass(createFusecImportTosa());
  if (options.inlineCalls)
    pm.addPass(createInlinerPass());
  // Before folding (which folds the casts of constants and identity cast
  // pairs) and fusion (which fuses the casts into kernels).
  if (!options.train.empty()) {
    FusecTrainStepOptions t;
    t.func = options.train;
    t.optimizer = options.optimizer;
    t.learningRate = options.learningRate;
    t.momentum = options.momentum;
    t.beta1 = options.beta1;
    t.beta2 = options.beta2;
    t.epsilon = options.epsilon;
    t.weightDecay = options.weightDecay;
    t.mixedPrecision = options.mixedPrecision;
    copyClassLists(options, t);
    t.lossScale = options.lossScale;
    t.initScale = options.lossScaleInit;
    t.growthFactor = options.lossScaleGrowth;
    t.backoffFactor = options.lossScaleBackoff;
    t.growthInterval = options.lossScaleInterval;
    pm.addPass(createFusecTrainStep(t));
  } else if (options.mixedPrecision != "off") {
    FusecMixedPrecisionOptions mp;
    mp.precision = options.mixedPrecision;
    mp.keepIOLowPrecision = options.keepIOLowPrecision;
    copyClassLists(options, mp);
    pm.addPass(createFusecMixedPrecision(mp));
  }
  // Folding concat/split runs the folders of every op in the same greedy
  // rewrite, so it subsumes a canonicalization; without it, canonicalize.
  if (options.fold) {
    FusecFoldConcatSplitOptions fold;
    fold.reassociate = options.reassociate;
    pm.addPass(createFusecFoldConcatSplit(fold));
  } else if (options.canonicalize) {
    pm.addPass(createCanonicalizerPass());
  }
  if (options.cse)
    pm.addPass(createCSEPass());
  if (options.fuse) {
    FusionOptions f = getFusionOptions(options);
    FusecFuseElementwiseOptions fuse;
    fuse.launchCostBytes = f.launchCostBytes;
    fuse.maxOps = f.maxOpsPerFusion;
    fuse.multiOutput = f.multiOutput;
    fuse.duplicate = f.duplicateCheapProducers;
    fuse.reachabilityBudget = f.reachabilityBudget;
    pm.addNestedPass<func::FuncOp>(createFusecFuseElementwise(fuse));
  }
}

void fusec::registerFusecPipeline() {
  PassPipelineRegistration<FusecPipelineOptions>(
      "fusec-pipeline",
      "fusec's compilation pipeline: TOSA import, canonicalization, "
      "concat/split folding, CSE, fusion",
      buildFusecPipeline);
}
