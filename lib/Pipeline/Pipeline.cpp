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

void fusec::buildFusecPipeline(OpPassManager &pm,
                               const FusecPipelineOptions &options) {
  if (options.importTosa)
    pm.addPass(createFusecImportTosa());
  if (options.inlineCalls)
    pm.addPass(createInlinerPass());
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
