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

TrainStepRunner::~TrainStepRunner() = default;

bool fusec::addTrainingState(const TrainStepSignature &sig,
                             std::vector<Buffer> &args,
                             BufferAllocator &allocator, std::string &error) {
  for (const TrainStepSignature::State &state : sig.state) {
    Buffer b = allocator.allocate(state.dtype, state.shape, error);
    if (!b) {
      error = "cannot allocate training state: " + error;
      return false;
    }
    int64_t n = b.numElements();
    if (state.dtype == DType::F32)
      std::fill_n(b.as<float>(), n, float(state.initial));
    else
      std::fill_n(b.as<int32_t>(), n, int32_t(state.initial));
    args.push_back(std::move(b));
  }
  return true;
}

namespace {

class HostStepRunner final : public TrainStepRunner {
public:
  HostStepRunner(const TrainStepSignature &sig, std::vector<Buffer> args,
                 StepFunction function)
      : sig(sig), args(std::move(args)), function(std::move(function)) {}

  std::optional<std::vector<Buffer>> step(const std::vector<bool> &,
                                          std::string &error) override {
    std::optional<std::vector<Buffer>> results = function(args, error);
    if (!results)
      return std::nullopt;
    for (size_t i = 0; i < sig.updates.size(); ++i)
      if (sig.updates[i] >= 0)
        args[size_t(sig.updates[i])] = (*results)[i];
    return results;
  }

  std::optional<Buffer> argument(int64_t k, std::string &) override {
    return args[size_t(k)];
  }

private:
  const TrainStepSignature &sig;
  std::vector<Buffer> args;
  StepFunction function;
};

class DeviceStepRunner final : public TrainStepRunner {
public:
  DeviceStepRunner(std::vector<Buffer> args, rt::LoadedExecutable &loaded)
      : initial(std::move(args)), loaded(loaded), numArgs(initial.size()) {}

  std::optional<std::vector<Buffer>> step(const std::vector<bool> &wanted,
                                          std::string &error) override {
    // The first step uploads every argument; the later ones none: the
    // updated ones were copied into their slots on the device, the others
    // are still there.
    std::vector<const Buffer *> inputs(numArgs, nullptr);
    if (!started)
      for (size_t i = 0; i < initial.size(); ++i)
        inputs[i] = &initial[i];
    std::optional<std::vector<Buffer>> results =
        loaded.run(inputs, wanted, error);
    if (results && !started) {
      started = true;
      initial.clear();
    }
    return results;
  }

  std::optional<Buffer> argument(int64_t k, std::string &error) override {
    if (!started)
      return initial[size_t(k)];
    return loaded.readInput(k, error);
  }

private:
  std::vector<Buffer> initial;
  rt::LoadedExecutable &loaded;
  size_t numArgs;
  bool started = false;
};

} // namespace

std::unique_ptr<TrainStepRunner>
fusec::hostStepRunner(const TrainStepSignature &sig, std::vector<Buffer> args,
                      StepFunction step) {
  return std::make_unique<HostStepRunner>(sig, std::move(args),
                                          std::move(step));
}

std::unique_ptr<TrainStepRunner>
fusec::deviceStepRunner(const TrainStepSignature &sig, std::vector<Buffer> args,
                        rt::LoadedExecutable &loaded, std::string &error) {
  std::vector<std::pair<int64_t, int64_t>> feedback;
  for (size_t r = 0; r < sig.updates.size(); ++r)
    if (sig.updates[r] >= 0)
      feedback.emplace_back(int64_t(r), sig.updates[r]);
  if (!loaded.feedBack(feedback, error))
    return nullptr;
  return std::make_unique<DeviceStepRunner>(std::move(args), loaded);
}

std::optional<int64_t> fusec::runTraining(
    const TrainStepSignature &sig, TrainStepRunner &runner, int64_t steps,
    const std::function<void(const StepReport &)> &report, std::string &error) {
  // The scale a step uses is its argument (the result is the next one's).
  int64_t scaleArg = sig.scaleResult >= 0 ? sig.updates[sig.scaleResult] : -1;
  std::vector<bool> wanted(sig.updates.size(), false);
  wanted[size_t(sig.lossResult)] = true;
  if (sig.skippedResult >= 0)
    wanted[size_t(sig.skippedResult)] = true;
  if (sig.scaleResult >= 0)
    wanted[size_t(sig.scaleResult)] = true;
  std::optional<double> scale;
  if (scaleArg >= 0) {
    std::optional<Buffer> initial = runner.argument(scaleArg, error);
    if (!initial)
      return std::nullopt;
    scale = initial->getAsDouble(0);
  }
  int64_t skipped = 0;
  for (int64_t k = 1; k <= steps; ++k) {
    StepReport r;
    r.step = k;
    r.scale = scale;
    std::optional<std::vector<Buffer>> results = runner.step(wanted, error);
    if (!results)
      return std::nullopt;
    r.loss = (*results)[size_t(sig.lossResult)].getAsDouble(0);
    if (sig.skippedResult >= 0 &&
        (*results)[size_t(sig.skippedResult)].getAsDouble(0)) {
      r.skipped = true;
      ++skipped;
    }
    if (sig.scaleResult >= 0)
      scale = (*results)[size_t(sig.scaleResult)].getAsDouble(0);
    report(r);
  }
  return skipped;
}
