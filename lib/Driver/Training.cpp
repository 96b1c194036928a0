//===- Training.cpp - Running training steps ------------------------------===//

#include "fusec/Driver/Training.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"

using namespace mlir;
using namespace fusec;

void TrainLoopOptions::bindOptions(OptionBinder &binder) {
  binder.group("training-runs", "Training runs (`--train=FUNC --run`)");
  binder.integer("steps", steps, "Training steps run by --train --run", 0);
}

FailureOr<TrainStepSignature> fusec::trainStepSignature(ModuleOp module,
                                                        StringRef loss) {
  auto lossFunc = module.lookupSymbol<func::FuncOp>(loss);
  auto step = module.lookupSymbol<func::FuncOp>((loss + "_train_step").str());
  if (!lossFunc || !step)
    return module.emitError() << "no training step for '" << loss << "'";
  TrainStepSignature sig;
  sig.userArguments = lossFunc.getNumArguments();
  for (unsigned i = 0; i < lossFunc.getNumArguments(); ++i)
    if (lossFunc.getArgAttr(i, kParamAttrName))
      sig.params.push_back(i);
  for (unsigned i = lossFunc.getNumArguments(); i < step.getNumArguments();
       ++i) {
    auto tensor = dyn_cast<RankedTensorType>(step.getArgument(i).getType());
    std::optional<DType> dtype =
        tensor ? toDType(tensor.getElementType()) : std::nullopt;
    Attribute init = step.getArgAttr(i, kInitAttrName);
    TrainStepSignature::State state;
    if (dtype && *dtype == DType::F32 && isa_and_nonnull<FloatAttr>(init))
      state.initial = cast<FloatAttr>(init).getValueAsDouble();
    else if (dtype && *dtype == DType::I32 &&
             isa_and_nonnull<IntegerAttr>(init))
      state.initial = double(cast<IntegerAttr>(init).getInt());
    else
      return emitError(step.getArgument(i).getLoc())
             << "unsupported initial value " << init
             << " for training state of type " << step.getArgument(i).getType();
    state.dtype = *dtype;
    state.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    sig.state.push_back(std::move(state));
  }
  sig.updates.assign(step.getNumResults(), -1);
  for (unsigned r = 0; r < step.getNumResults(); ++r) {
    if (auto arg = step.getResultAttrOfType<IntegerAttr>(r, kUpdatesAttrName))
      sig.updates[r] = arg.getInt();
    if (step.getResultAttr(r, kLossScaleAttrName))
      sig.scaleResult = r;
    if (step.getResultAttr(r, kSkippedAttrName))
      sig.skippedResult = r;
  }
  return sig;
}

std::optional<int64_t>
fusec::runTraining(const TrainStepSignature &sig, std::vector<Buffer> &args,
                   int64_t steps,
                   const std::function<std::optional<std::vector<Buffer>>(
                       const std::vector<Buffer> &, std::string &)> &step,
                   const std::function<void(const StepReport &)> &report,
                   BufferAllocator &allocator, std::string &error) {
  for (const TrainStepSignature::State &state : sig.state) {
    Buffer b = allocator.allocate(state.dtype, state.shape, error);
    if (!b) {
      error = "cannot allocate training state: " + error;
      return std::nullopt;
    }
    int64_t n = b.numElements();
    if (state.dtype == DType::F32)
      std::fill_n(b.as<float>(), n, float(state.initial));
    else
      std::fill_n(b.as<int32_t>(), n, int32_t(state.initial));
    args.push_back(std::move(b));
  }
  // The scale a step uses is its argument (the result is the next one's).
  int64_t scaleArg = sig.scaleResult >= 0 ? sig.updates[sig.scaleResult] : -1;
  int64_t skipped = 0;
  for (int64_t k = 1; k <= steps; ++k) {
    StepReport r;
    r.step = k;
    if (scaleArg >= 0)
      r.scale = args[size_t(scaleArg)].getAsDouble(0);
    std::optional<std::vector<Buffer>> results = step(args, error);
    if (!results)
      return std::nullopt;
    r.loss = (*results)[size_t(sig.lossResult)].getAsDouble(0);
    if (sig.skippedResult >= 0 &&
        (*results)[size_t(sig.skippedResult)].getAsDouble(0)) {
      r.skipped = true;
      ++skipped;
    }
    report(r);
    for (size_t i = 0; i < sig.updates.size(); ++i)
      if (sig.updates[i] >= 0)
        args[size_t(sig.updates[i])] = std::move((*results)[i]);
  }
  return skipped;
}
