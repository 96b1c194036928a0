//===- Training.cpp - Running training steps ------------------------------===//

#include "fusec/Driver/Training.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"

#include <map>

using namespace mlir;
using namespace fusec;

void TrainLoopOptions::bindOptions(OptionBinder &binder) {
  binder.group("training-runs", "Training runs (`--train=FUNC --run`)");
  binder.integer("steps", steps,
                 "Training steps in all (a resumed run continues up to it); "
                 "default: one epoch with --data, else one step",
                 0);
  binder.integer("epochs", epochs,
                 "Epochs in all over --data (a resumed run continues up to "
                 "it)",
                 1);
  binder.list("data", data,
              "A data argument NAME=FILE.npy (a leading sample dimension, "
              "memory-mapped), one per data argument",
              "name=file", /*commaSeparated=*/false);
  binder.list("validation-data", validationData,
              "NAME=FILE.npy for each data argument: evaluated without "
              "updates at the end of each epoch",
              "name=file", /*commaSeparated=*/false);
  binder.list("param", params,
              "The initial value of a non-data argument, NAME=FILE.npy",
              "name=file", /*commaSeparated=*/false);
  binder.text("init", init,
              "Initialiser of fusec.param arguments given no --param file: "
              "glorot-uniform (rank >= 2; others zeros) or zeros",
              "init");
  binder.integer("batch-size", batchSize,
                 "Samples per step (must equal the step's batch dimension; "
                 "binds an ONNX model's dynamic one)",
                 1);
  binder.flag("shuffle", shuffle,
              "A new permutation of the samples each epoch (per --seed)");
  binder.integer("seed", seed, "Seed of --shuffle and --init", 0);
  binder.text("checkpoint-dir", checkpointDir,
              "Write checkpoints here (every --checkpoint-every steps and at "
              "the end)",
              "dir");
  binder.integer("checkpoint-every", checkpointEvery,
                 "Steps between checkpoints (0: only at the end)", 0);
  binder.text("resume", resume,
              "Continue from the latest checkpoint in DIR, bit for bit", "dir");
  binder.flag("quiet", quiet, "No progress lines");
  binder.text("log", log,
              "Write every step's figures to FILE.csv or FILE.jsonl", "file");
  binder.flag("staging", staging,
              "Prepare the next batch on a second thread during a step");
  binder.text("save-onnx", saveOnnx,
              "Write the ONNX model again with its trained initializers "
              "(parameters and running statistics) to FILE.onnx",
              "file");
}

FailureOr<std::vector<Buffer>> fusec::initialValuesOf(func::FuncOp func) {
  std::vector<Buffer> values;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Buffer initial;
    if (auto init = func.getArgAttrOfType<ElementsAttr>(i, kInitAttrName)) {
      EvalContext ctx;
      initial = elementsToBuffer(init, ctx);
      if (!initial || init.getType() != func.getArgumentTypes()[i])
        return emitError(func.getArgument(i).getLoc())
               << "the initial value (" << kInitAttrName << ") of argument #"
               << i << " cannot be read or is not of the argument's type";
    }
    values.push_back(std::move(initial));
  }
  return values;
}

FailureOr<TrainStepSignature> fusec::trainStepSignature(ModuleOp module,
                                                        StringRef loss) {
  auto lossFunc = module.lookupSymbol<func::FuncOp>(loss);
  auto step = module.lookupSymbol<func::FuncOp>((loss + "_train_step").str());
  if (!lossFunc || !step)
    return module.emitError() << "no training step for '" << loss << "'";
  TrainStepSignature sig;
  sig.userArguments = lossFunc.getNumArguments();
  for (unsigned i = 0; i < lossFunc.getNumArguments(); ++i) {
    if (lossFunc.getArgAttr(i, kParamAttrName))
      sig.params.push_back(i);
    auto role = lossFunc.getArgAttrOfType<StringAttr>(i, kStateAttrName);
    if (role)
      sig.modelState.push_back(i);
    sig.argRoles.push_back(role ? role.str() : "");
  }
  FailureOr<std::vector<Buffer>> initial = initialValuesOf(lossFunc);
  if (failed(initial))
    return failure();
  sig.initialValues = std::move(*initial);
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
    if (auto role = step.getArgAttrOfType<StringAttr>(i, kStateAttrName))
      state.role = role.str();
    if (auto of = step.getArgAttrOfType<IntegerAttr>(i, kStateOfAttrName))
      state.of = of.getInt();
    sig.state.push_back(std::move(state));
  }
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    auto tensor = dyn_cast<RankedTensorType>(step.getArgument(i).getType());
    std::optional<DType> dtype = tensor && tensor.hasStaticShape()
                                     ? toDType(tensor.getElementType())
                                     : std::nullopt;
    if (!dtype)
      return emitError(step.getArgument(i).getLoc())
             << "unsupported training argument type "
             << step.getArgument(i).getType();
    sig.argDTypes.push_back(*dtype);
    sig.argShapes.emplace_back(tensor.getShape().begin(),
                               tensor.getShape().end());
    std::string name = "arg" + std::to_string(i);
    if (auto given = step.getArgAttrOfType<StringAttr>(i, kNameAttrName))
      name = given.str();
    if (i >= unsigned(sig.userArguments)) {
      const TrainStepSignature::State &state =
          sig.state[i - size_t(sig.userArguments)];
      name = state.of >= 0 ? sig.argNames[size_t(state.of)] + "." + state.role
                           : state.role;
    }
    sig.argNames.push_back(name);
  }
  for (unsigned r = 0; r < lossFunc.getNumResults(); ++r) {
    auto given = lossFunc.getResultAttrOfType<StringAttr>(r, kNameAttrName);
    sig.lossResultNames.push_back(given ? given.str()
                                        : "result" + std::to_string(r));
  }
  sig.updates.assign(step.getNumResults(), -1);
  sig.metricOf.assign(step.getNumResults(), -1);
  for (unsigned r = 0; r < step.getNumResults(); ++r) {
    if (auto m = step.getResultAttrOfType<IntegerAttr>(r, kMetricAttrName))
      sig.metricOf[r] = m.getInt();
    auto type = dyn_cast<RankedTensorType>(step.getResultTypes()[r]);
    sig.resultElements.push_back(
        type && type.hasStaticShape() ? type.getNumElements() : -1);
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

std::vector<int64_t> fusec::trainedArguments(const TrainStepSignature &sig) {
  std::vector<int64_t> args(sig.params.begin(), sig.params.end());
  for (int64_t k : sig.modelState)
    if (sig.argRoles[size_t(k)] != kDropoutKeyRole)
      args.push_back(k);
  return args;
}

bool fusec::isDataArgument(const TrainStepSignature &sig, int64_t k) {
  return k < sig.userArguments && !llvm::is_contained(sig.params, k) &&
         !llvm::is_contained(sig.modelState, k);
}

void fusec::seedModelState(const TrainStepSignature &sig,
                           std::vector<Buffer> &args, int64_t seed) {
  for (int64_t k : sig.modelState)
    if (sig.argRoles[size_t(k)] == kDropoutKeyRole && size_t(k) < args.size() &&
        args[size_t(k)].dtype() == DType::I32 &&
        args[size_t(k)].numElements() == 2) {
      // A copy: the initial value may be shared with the model.
      Buffer key = Buffer::allocate(DType::I32, args[size_t(k)].shape());
      key.as<int32_t>()[0] = int32_t(uint32_t(uint64_t(seed)));
      key.as<int32_t>()[1] = 0;
      args[size_t(k)] = std::move(key);
    }
}

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

  void setArgument(int64_t k, Buffer value) override {
    args[size_t(k)] = std::move(value);
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
    // Arguments given a new value since (data batches) are uploaded too.
    std::vector<const Buffer *> inputs(numArgs, nullptr);
    if (!started)
      for (size_t i = 0; i < initial.size(); ++i)
        inputs[i] = &initial[i];
    for (auto &[k, value] : next)
      inputs[size_t(k)] = &value;
    std::optional<std::vector<Buffer>> results =
        loaded.run(inputs, wanted, error);
    if (results) {
      started = true;
      initial.clear();
      next.clear();
    }
    return results;
  }

  std::optional<Buffer> argument(int64_t k, std::string &error) override {
    if (auto it = next.find(k); it != next.end())
      return it->second;
    if (!started)
      return initial[size_t(k)];
    return loaded.readInput(k, error);
  }

  void setArgument(int64_t k, Buffer value) override {
    next[k] = std::move(value);
  }

private:
  std::vector<Buffer> initial;
  std::map<int64_t, Buffer> next;
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
