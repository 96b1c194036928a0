//===- Pipeline.cpp - The fusec pass pipeline -----------------------------===//

#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Conversion/Passes.h"
#include "fusec/Pass/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace fusec;

void PipelineOptions::bindOptions(OptionBinder &binder) {
  binder.group("pipeline", "The pipeline (`fusec-pipeline`)");
  binder.flag("import-tosa", importTosa,
              "Import upstream TOSA operations into fusec first");
  binder.flag("inline", inlineCalls,
              "Inline calls to functions with a body first (code generation "
              "and training always do)");
  binder.flag("fold", fold,
              "Fold concatenate/split/slice pairs (fusec-fold-concat-split)");
  binder.flag("canonicalize", canonicalize, "Canonicalize when not folding");
  binder.flag("cse", cse, "Eliminate common subexpressions");
  binder.flag("fuse", fuse,
              "Fuse operations into kernels (fusec-fuse-elementwise)");
  binder.flag("demote-f64", demoteF64,
              "Compute f64 operations in f32, as PyTorch does on f32 inputs "
              "(fusec-demote-f64)");
  binder.flag("lower-windows", lowerWindows,
              "Lower convolutions and pooling to patches, matmuls and "
              "reductions (fusec-lower-windows; code generation needs it)");
  folding.bindOptions(binder);
  fusion.bindOptions(binder);
  mixedPrecision.bindOptions(binder);
  training.bindOptions(binder);
}

void fusec::buildFusecPipeline(OpPassManager &pm, const PipelineOptions &given,
                               FusionObserver *observer) {
  PipelineOptions options = given;
  options.training.resolve();
  if (options.importTosa)
    pm.addPass(createFusecImportTosa());
  // A loss function calling the model: before inlining, which training
  // needs.
  if (options.training.loss.kind != LossKind::None) {
    pm.addPass(createFusecAddLoss(options.training.loss));
    options.inlineCalls = true;
  }
  if (options.inlineCalls)
    pm.addPass(createInlinerPass());
  // Before mixed precision and training, which then see f32.
  if (options.demoteF64)
    pm.addNestedPass<func::FuncOp>(createFusecDemoteF64());
  // Before mixed precision and training, which then see matmuls,
  // reductions and index arithmetic only.
  if (options.lowerWindows)
    pm.addNestedPass<func::FuncOp>(createFusecLowerWindows());
  // Before folding (which folds the casts of constants and identity cast
  // pairs) and fusion (which fuses the casts into kernels).
  if (!options.training.train.empty())
    pm.addPass(createFusecTrainStep(options.training, options.mixedPrecision));
  else if (options.mixedPrecision.precision != LowPrecision::Off)
    pm.addPass(createFusecMixedPrecision(options.mixedPrecision));
  // Folding concat/split runs the folders of every op in the same greedy
  // rewrite, so it subsumes a canonicalization; without it, canonicalize.
  if (options.fold)
    pm.addPass(createFusecFoldConcatSplit(options.folding));
  else if (options.canonicalize)
    pm.addPass(createCanonicalizerPass());
  if (options.cse)
    pm.addPass(createCSEPass());
  // After folding and CSE, which would undo it; before fusion, which puts
  // the recomputed chains in the backward kernels.
  if (!options.training.train.empty() &&
      options.training.recompute == TrainingOptions::Recompute::On)
    pm.addNestedPass<func::FuncOp>(createFusecRecomputeActivations());
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(
        createFusecFuseElementwise(options.fusion, observer));
}

namespace {
/// `fusec-pipeline{...}`: the PipelineOptions bindings as textual options.
struct RegisteredPipelineOptions
    : public PassPipelineOptions<RegisteredPipelineOptions> {
  RegisteredPipelineOptions() { value.bindOptions(binder); }
  PipelineOptions value;
  PassOptionsBinder binder{*this};
};
} // namespace

void fusec::registerFusecPipeline() {
  registerPassPipeline(
      "fusec-pipeline",
      "fusec's compilation pipeline: TOSA import, mixed precision or the "
      "training step, concat/split folding, CSE, fusion (options: "
      "docs/reference/FusecOptions.md)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        RegisteredPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string error;
        if (!options.binder.load(error))
          return errorHandler(error);
        buildFusecPipeline(pm, options.value);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(RegisteredPipelineOptions());
      });
}
