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
  Option<std::string> mixedPrecision{
      *this, "mixed-precision",
      llvm::cl::desc("Run f32 computations in f16 or bf16 where safe "
                     "(fusec-mixed-precision): off, f16 or bf16"),
      llvm::cl::init("off")};
  Option<bool> keepIOLowPrecision{
      *this, "keep-io-low-precision",
      llvm::cl::desc("With mixed-precision, change f32 function arguments "
                     "and results to the low type"),
      llvm::cl::init(false)};
  ListOption<std::string> mixedPrecisionAllow{
      *this, "mixed-precision-allow",
      llvm::cl::desc("Operations moved to the allow class")};
  ListOption<std::string> mixedPrecisionInfer{
      *this, "mixed-precision-infer",
      llvm::cl::desc("Operations moved to the infer class")};
  ListOption<std::string> mixedPrecisionDeny{
      *this, "mixed-precision-deny",
      llvm::cl::desc("Operations moved to the deny class")};
  ListOption<std::string> mixedPrecisionClear{
      *this, "mixed-precision-clear",
      llvm::cl::desc("Operations moved to the clear class")};
  Option<std::string> train{
      *this, "train",
      llvm::cl::desc("Build <FUNC>_train_step from the loss function FUNC "
                     "(fusec-train-step; mixed-precision then paints its "
                     "forward and backward only). With `inline`, FUNC must "
                     "be public: the inliner deletes unused private "
                     "functions"),
      llvm::cl::init("")};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("Training: sgd or adam"),
                                llvm::cl::init("sgd")};
  Option<double> learningRate{*this, "learning-rate",
                              llvm::cl::desc("Training: learning rate"),
                              llvm::cl::init(0.01)};
  Option<double> momentum{*this, "momentum",
                          llvm::cl::desc("Training: SGD momentum"),
                          llvm::cl::init(0.9)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Training: Adam beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Training: Adam beta2"),
                       llvm::cl::init(0.999)};
  Option<double> epsilon{*this, "epsilon",
                         llvm::cl::desc("Training: Adam epsilon"),
                         llvm::cl::init(1e-8)};
  Option<double> weightDecay{*this, "weight-decay",
                             llvm::cl::desc("Training: L2 weight decay"),
                             llvm::cl::init(0)};
  Option<std::string> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("Training: dynamic, static:VALUE, off or default "
                     "(dynamic for f16)"),
      llvm::cl::init("default")};
  Option<double> lossScaleInit{*this, "loss-scale-init",
                               llvm::cl::desc("Dynamic loss scale: initial"),
                               llvm::cl::init(65536)};
  Option<double> lossScaleGrowth{
      *this, "loss-scale-growth",
      llvm::cl::desc("Dynamic loss scale: growth factor"), llvm::cl::init(2)};
  Option<double> lossScaleBackoff{
      *this, "loss-scale-backoff",
      llvm::cl::desc("Dynamic loss scale: backoff factor"),
      llvm::cl::init(0.5)};
  Option<int64_t> lossScaleInterval{
      *this, "loss-scale-interval",
      llvm::cl::desc("Dynamic loss scale: good steps before growth"),
      llvm::cl::init(2000)};
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
