//===- Pipeline.cpp - The fusec pass pipeline -----------------------------===//

#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Conversion/Passes.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fusec::buildFusecPipeline(OpPassManager &pm,
                               const FusecPipelineOptions &options) {
  if (options.importTosa)
    pm.addPass(createFusecImportTosa());
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
    FusecFuseElementwiseOptions fuse;
    fuse.launchCostBytes = options.fusionLaunchCostBytes;
    fuse.maxOps = options.fusionMaxOps;
    fuse.multiOutput = options.fusionMultiOutput;
    fuse.duplicate = options.fusionDuplicate;
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
