//===- Pipeline.h - The fusec pass pipeline ---------------------*- C++ -*-===//
//
// The one definition of fusec's compilation pipeline, used by the driver
// (the `fusec` tool), registered as `fusec-pipeline` in `fusec-opt`, and
// callable by embedders on their own pass managers. Its options are the
// options structs of the passes it runs plus its own switches, bound to the
// command line, the textual pipeline and the reference from one
// declaration (fusec/Support/Options.h).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_PIPELINE_PIPELINE_H
#define FUSEC_PIPELINE_PIPELINE_H

#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/Transforms/MixedPrecision.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"

#include "mlir/Pass/PassManager.h"

namespace fusec {

struct PipelineOptions {
  /// Import upstream TOSA operations into fusec first.
  bool importTosa = true;
  /// Inline calls to functions with a body first (code generation compiles
  /// one function; training differentiates through calls).
  bool inlineCalls = false;
  /// fusec-demote-f64: compute f64 operations in f32.
  bool demoteF64 = false;
  bool lowerWindows = true;
  /// fusec-fold-concat-split (which subsumes canonicalize), else
  /// canonicalize when `canonicalize`.
  bool fold = true;
  bool canonicalize = true;
  bool cse = true;
  /// fusec-fuse-elementwise.
  bool fuse = true;

  FoldOptions folding;
  FusionOptions fusion;
  MixedPrecisionOptions mixedPrecision;
  /// With `training.train` set, fusec-train-step builds the step (and
  /// paints it with `mixedPrecision`) instead of fusec-mixed-precision.
  TrainingOptions training;

  void bindOptions(OptionBinder &binder);
};

/// Appends the fusec pipeline to `pm`, which must run on builtin.module.
/// `observer`, if given, sees each fusion plan before it is applied.
void buildFusecPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
                        FusionObserver *observer = nullptr);

/// Registers `fusec-pipeline` for textual pipelines (fusec-opt).
void registerFusecPipeline();

} // namespace fusec

#endif // FUSEC_PIPELINE_PIPELINE_H
