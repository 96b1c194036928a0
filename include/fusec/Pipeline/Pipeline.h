//===- Pipeline.h - The fusec pass pipeline ---------------------*- C++ -*-===//
//
// The one definition of fusec's compilation pipeline, used by the `fusec`
// tool, registered as `fusec-pipeline` in `fusec-opt`, and callable by
// embedders on their own pass managers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_PIPELINE_PIPELINE_H
#define FUSEC_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace fusec {

struct FusecPipelineOptions
    : public mlir::PassPipelineOptions<FusecPipelineOptions> {
  Option<bool> importTosa{*this, "import-tosa",
                          llvm::cl::desc("Import upstream TOSA operations "
                                         "into fusec first"),
                          llvm::cl::init(true)};
  Option<bool> canonicalize{*this, "canonicalize",
                            llvm::cl::desc("Run canonicalization (folding "
                                           "and simplification)"),
                            llvm::cl::init(true)};
  Option<bool> cse{*this, "cse",
                   llvm::cl::desc("Eliminate common subexpressions"),
                   llvm::cl::init(true)};
};

/// Appends the fusec pipeline to `pm`, which must run on builtin.module.
void buildFusecPipeline(mlir::OpPassManager &pm,
                        const FusecPipelineOptions &options);

/// Registers `fusec-pipeline` for textual pipelines (fusec-opt).
void registerFusecPipeline();

} // namespace fusec

#endif // FUSEC_PIPELINE_PIPELINE_H
