//===- Runner.h - Compiling and running a loaded model ----------*- C++ -*-===//
//
// The steps every way of running a model shares (the fusec tool's --run and
// --train, the compiled models of the C++ and Python APIs): opening the
// device, running the pipeline as the invocation says, and a runner for a
// function on the interpreter or the device. Private to the driver library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_DRIVER_RUNNER_H
#define FUSEC_LIB_DRIVER_RUNNER_H

#include "fusec/Driver/Invocation.h"
#include "fusec/Driver/Report.h"
#include "fusec/Driver/Training.h"
#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Runtime/Executor.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::driver {

bool isCodegen(Emit emit);

/// --compile-stats: what compiling `func` for a device did.
void printStats(const Invocation &inv, const CompileStats &stats);

/// Where --run executes a function: the interpreter, or the function
/// compiled and loaded on a device. One call runs it once.
struct Runner {
  std::function<std::optional<std::vector<Buffer>>(const std::vector<Buffer> &,
                                                   std::string &)>
      run;
  /// On a device: the loaded executable (for --device-report).
  std::unique_ptr<rt::LoadedExecutable> loaded;

  std::string report() const {
    return loaded ? loaded->report()
                  : "device: the reference interpreter (CPU)\n";
  }

  /// What --device-report and --profile print after the run(s).
  std::optional<std::string> after(const Invocation &inv,
                                   std::string &error) const {
    std::string out = inv.execution.deviceReport ? report() : "";
    if (inv.execution.profile) {
      if (!loaded)
        return out + "profile: only a device's steps are timed (the "
                     "interpreter ran)\n";
      std::optional<std::string> profile = loaded->profile(error);
      if (!profile)
        return std::nullopt;
      out += *profile;
    }
    return out;
  }
};

/// A runner for `func`: on `device` when there is one (the function is
/// compiled for it, its plan loaded once), else on `interp`.
mlir::FailureOr<Runner> makeRunner(Invocation &inv, mlir::func::FuncOp func,
                                   Interpreter &interp, rt::Device *device);

/// The device --run uses: none with --backend=interp; with auto, none when
/// there is no usable GPU (a note says why); with gpu, an error then.
mlir::FailureOr<std::unique_ptr<rt::Device>>
openRunDevice(const Invocation &inv, Session &session);

/// Runs the pipeline `inv` asks for on `model` (compiled for `device` when
/// given: every operation in a fusion; with --train, the training step is
/// built and becomes the default entry), telling `collector` the fusion
/// decisions when given.
mlir::LogicalResult runPipeline(
    Invocation &inv, Session &session, Model &model, rt::Device *device,
    FusionReportCollector *collector,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure);

/// The steps of a training run on `runner`'s device (the updates fed back
/// there) or on the interpreter, starting from `args`.
std::unique_ptr<TrainStepRunner> stepRunner(const TrainStepSignature &sig,
                                            std::vector<Buffer> args,
                                            Runner &runner, std::string &error);

/// --train=FUNC --run --data=...: the training loop over a dataset
/// (TrainingLoop.h) of the step `step` of `lossFunc` (after the pipeline),
/// on `device` or `interp`; writes the final parameters by name into
/// `inv.outputDir`.
/// --save-onnx: fails unless the model is an ONNX file (before training).
mlir::LogicalResult checkSaveOnnx(const Invocation &inv, mlir::ModuleOp module);
/// --save-onnx: writes the ONNX model with `trained` as its initializers.
mlir::LogicalResult
saveTrainedOnnx(const Invocation &inv,
                const std::vector<std::pair<std::string, Buffer>> &trained,
                mlir::ModuleOp module, llvm::raw_ostream &out);

mlir::LogicalResult fitModule(Invocation &inv, mlir::ModuleOp module,
                              const TrainStepSignature *sig,
                              mlir::func::FuncOp lossFunc,
                              mlir::func::FuncOp step, Interpreter &interp,
                              rt::Device *device, llvm::raw_ostream &out);

} // namespace fusec::driver

#endif // FUSEC_LIB_DRIVER_RUNNER_H
