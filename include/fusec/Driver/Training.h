//===- Training.h - Running training steps ----------------------*- C++ -*-===//
//
// The calling convention of a `<loss>_train_step` function (built by
// fusec-train-step, see its description) in one place: which arguments are
// the user's (the loss function's), which are optimizer and loss-scaling
// state with their initial values, which result replaces which argument,
// and where the loss, the scale and the skip flag are. The signature is
// read from the step function's attributes once (trainStepSignature) into
// a plain struct; the loop (runTraining) is plain C++ over any function
// that runs one step, so the interpreter, the host device and a GPU run
// training the same way.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_TRAINING_H
#define FUSEC_DRIVER_TRAINING_H

#include "fusec/Runtime/Executor.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec {

struct TrainStepSignature {
  /// The loss function's arguments come first: the caller gives these.
  int64_t userArguments = 0;
  /// The state arguments after them, each a splat of `initial`.
  struct State {
    DType dtype = DType::F32;
    Shape shape;
    double initial = 0;
    /// Its role (fusec.state: "adam.m", "loss_scale.scale", ...).
    std::string role;
    /// The parameter (argument index) it belongs to, or -1.
    int64_t of = -1;
  };
  std::vector<State> state;
  /// Per result: the argument it replaces in the next step, or -1.
  std::vector<int64_t> updates;
  int64_t lossResult = 0, scaleResult = -1, skippedResult = -1;
  /// The arguments marked fusec.param (the trained parameters), in order.
  std::vector<int64_t> params;
  /// The loss function's arguments that are model state (fusec.state:
  /// batch-normalization statistics, the dropout key), in order: updated by
  /// every step, not trained, not data.
  std::vector<int64_t> modelState;
  /// Per user argument: the initial value the model gives it (fusec.init:
  /// an imported model's weights and statistics), or an empty Buffer.
  std::vector<Buffer> initialValues;
  /// Per user argument: its fusec.state role, or empty.
  std::vector<std::string> argRoles;
  /// Per result: the loss function's result it is (fusec.metric), or -1.
  std::vector<int64_t> metricOf;
  /// Per result: its number of elements.
  std::vector<int64_t> resultElements;
  /// Names: of every argument (user arguments: fusec.name, else argN;
  /// state: "<parameter>.<role>" or the role), and of the loss function's
  /// results (fusec.name, else resultN).
  std::vector<std::string> argNames, lossResultNames;
  /// The type of every argument (statically shaped tensors).
  std::vector<DType> argDTypes;
  std::vector<Shape> argShapes;
};

/// Per argument of `func`: the value its fusec.init elements attribute
/// gives (an imported model's weights), or an empty Buffer; an error at
/// the argument when the attribute does not fit it.
mlir::FailureOr<std::vector<Buffer>> initialValuesOf(mlir::func::FuncOp func);

/// The signature of `<loss>_train_step` in `module`, or an error at the
/// function (a missing step, state of a type without an initial value).
mlir::FailureOr<TrainStepSignature> trainStepSignature(mlir::ModuleOp module,
                                                       llvm::StringRef loss);

/// How `--train=FUNC --run` trains (docs/training.md, "Training runs").
struct TrainLoopOptions {
  /// Total steps; -1: one epoch with --data, one step without.
  int64_t steps = -1;
  /// Total epochs (with --data); 0: given by `steps`.
  int64_t epochs = 0;
  /// NAME=FILE.npy per data argument (a leading sample dimension).
  std::vector<std::string> data;
  std::vector<std::string> validationData;
  /// NAME=FILE.npy for the other arguments (parameters above all).
  std::vector<std::string> params;
  /// Initialiser of parameters given no file: "" (none), glorot-uniform,
  /// zeros.
  std::string init;
  int64_t batchSize = 0;
  bool shuffle = false;
  int64_t seed = 0;
  std::string checkpointDir;
  int64_t checkpointEvery = 0;
  std::string resume;
  bool quiet = false;
  /// Every step's figures: FILE.csv or FILE.jsonl.
  std::string log;
  /// Prepares the next batch on a second thread while a step runs.
  bool staging = true;
  /// --save-onnx: the ONNX model written again with its trained
  /// initializers.
  std::string saveOnnx;
  void bindOptions(OptionBinder &binder);
};

/// What one step reports.
struct StepReport {
  int64_t step = 0; // 1-based.
  double loss = 0;
  /// The scale the step used; nullopt without loss scaling.
  std::optional<double> scale;
  bool skipped = false;
};

/// Where the steps of a training run execute. Each step's updated
/// parameters and state become the next step's arguments without passing
/// through the caller: on a device they stay there, and only the results a
/// step is asked for come back.
class TrainStepRunner {
public:
  virtual ~TrainStepRunner();
  /// Runs one step; returns the results `wanted` says (the others are
  /// empty Buffers), or nullopt with `error` (empty when the failure was
  /// diagnosed at a location).
  virtual std::optional<std::vector<Buffer>>
  step(const std::vector<bool> &wanted, std::string &error) = 0;
  /// The current value of argument `k` (before the first step: the one
  /// given).
  virtual std::optional<Buffer> argument(int64_t k, std::string &error) = 0;
  /// Gives argument `k` a new value from the next step on (a batch of
  /// data; a restored checkpoint).
  virtual void setArgument(int64_t k, Buffer value) = 0;
};

using StepFunction = std::function<std::optional<std::vector<Buffer>>(
    const std::vector<Buffer> &, std::string &)>;

/// Steps that call `step` on host buffers (the interpreter), starting from
/// `args`: each result that updates an argument replaces it.
std::unique_ptr<TrainStepRunner>
hostStepRunner(const TrainStepSignature &signature, std::vector<Buffer> args,
               StepFunction step);

/// Steps of `loaded` (the compiled step function) on its device, starting
/// from `args`: the updates are fed back on the device (feedBack), the
/// arguments are uploaded once, and each step reads back only what it is
/// asked for. nullptr with `error` if the feedback cannot be set up.
std::unique_ptr<TrainStepRunner>
deviceStepRunner(const TrainStepSignature &signature, std::vector<Buffer> args,
                 rt::LoadedExecutable &loaded, std::string &error);

/// The arguments a trained model is made of, in order: the parameters,
/// then the model state that is the model's (running statistics; not the
/// dropout key). --output-dir and --save-onnx write these.
std::vector<int64_t> trainedArguments(const TrainStepSignature &signature);

/// Whether user argument `k` is data (neither a parameter nor model state).
bool isDataArgument(const TrainStepSignature &signature, int64_t k);

/// The role of the dropout generator's key: (seed, step), whose seed a
/// training run sets (seedModelState).
inline constexpr const char *kDropoutKeyRole = "dropout.key";

/// Gives model state that a run seeds its seed: the dropout key of
/// `args` (the user arguments) starts at (seed, 0).
void seedModelState(const TrainStepSignature &signature,
                    std::vector<Buffer> &args, int64_t seed);

/// Appends the initial training state to the user's arguments `args`.
bool addTrainingState(const TrainStepSignature &signature,
                      std::vector<Buffer> &args, BufferAllocator &allocator,
                      std::string &error);

/// Runs `steps` steps of `runner`; `report` is told about every step (its
/// loss, the scale it used, whether it was skipped: the only values read
/// back per step). Returns the number of skipped steps.
std::optional<int64_t> runTraining(
    const TrainStepSignature &signature, TrainStepRunner &runner, int64_t steps,
    const std::function<void(const StepReport &)> &report, std::string &error);

} // namespace fusec

#endif // FUSEC_DRIVER_TRAINING_H
