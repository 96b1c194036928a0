//===- Pipeline.h - The fusec pass pipeline ---------------------*- C++ -*-===//
//
// The one definition of fusec's compilation pipeline, used by the `fusec`
// tool, registered as `fusec-pipeline` in `fusec-opt`, and callable by
// embedders on their own pass managers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_PIPELINE_PIPELINE_H
#define FUSEC_PIPELINE_PIPELINE_H

#include "fusec/Dialect/Fusec/Transforms/Fusion.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace fusec {

struct FusecPipelineOptions
    : public mlir::PassPipelineOptions<FusecPipelineOptions> {
  Option<bool> importTosa{*this, "import-tosa",
                          llvm::cl::desc("Import upstream TOSA operations "
                                         "into fusec first"),
                          llvm::cl::init(true)};
  Option<bool> inlineCalls{*this, "inline",
                           llvm::cl::desc("Inline calls to functions with a "
                                          "body first (code generation "
                                          "compiles one function)"),
                           llvm::cl::init(false)};
  Option<bool> fold{*this, "fold",
                    llvm::cl::desc("Fold concatenate/split/slice pairs "
                                   "(fusec-fold-concat-split)"),
                    llvm::cl::init(true)};
  Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("Let folding reassociate f32 sums (reduce_sum of a "
                     "concat)"),
      llvm::cl::init(true)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse operations into kernels "
                                   "(fusec-fuse-elementwise)"),
                    llvm::cl::init(true)};
  Option<int64_t> fusionLaunchCostBytes{
      *this, "fusion-launch-cost-bytes",
      llvm::cl::desc("Fusion cost model: a kernel launch in bytes"),
      llvm::cl::init(16384)};
  Option<int64_t> fusionMaxOps{*this, "fusion-max-ops",
                               llvm::cl::desc("Most operations in one fusion"),
                               llvm::cl::init(256)};
  Option<bool> fusionMultiOutput{*this, "fusion-multi-output",
                                 llvm::cl::desc("Form multi-output fusions"),
                                 llvm::cl::init(true)};
  Option<int64_t> fusionReachabilityBudget{
      *this, "fusion-reachability-budget",
      llvm::cl::desc("Visits allowed per cycle check of a multi-output "
                     "fusion"),
      llvm::cl::init(4096)};
  Option<bool> fusionDuplicate{
      *this, "fusion-duplicate",
      llvm::cl::desc("Duplicate cheap producers when it saves traffic"),
      llvm::cl::init(true)};
  Option<bool> canonicalize{*this, "canonicalize",
                            llvm::cl::desc("Run canonicalization (folding "
                                           "and simplification)"),
                            llvm::cl::init(true)};
  Option<bool> cse{*this, "cse",
                   llvm::cl::desc("Eliminate common subexpressions"),
                   llvm::cl::init(true)};
};

/// The fusion pass options chosen by `options`.
FusionOptions getFusionOptions(const FusecPipelineOptions &options);

/// Appends the fusec pipeline to `pm`, which must run on builtin.module.
void buildFusecPipeline(mlir::OpPassManager &pm,
                        const FusecPipelineOptions &options);

/// Registers `fusec-pipeline` for textual pipelines (fusec-opt).
void registerFusecPipeline();

} // namespace fusec

#endif // FUSEC_PIPELINE_PIPELINE_H
