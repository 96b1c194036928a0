//===- Pipeline.cpp - The fusec pass pipeline -----------------------------===//

#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fusec::buildFusecPipeline(OpPassManager &pm,
                               const FusecPipelineOptions &options) {
  if (options.importTosa)
    pm.addPass(createFusecImportTosa());
  if (options.canonicalize)
    pm.addPass(createCanonicalizerPass());
  if (options.cse)
    pm.addPass(createCSEPass());
}

void fusec::registerFusecPipeline() {
  PassPipelineRegistration<FusecPipelineOptions>(
      "fusec-pipeline",
      "fusec's compilation pipeline: TOSA import, canonicalization, CSE",
      buildFusecPipeline);
}
