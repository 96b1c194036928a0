//===- CompiledModel.h - A model compiled once, run many times --*- C++ -*-===//
//
// The library form of `fusec MODEL --run`, for embedders and the Python
// package: a loaded model goes through the pipeline once (as an Invocation
// says: mixed precision, fusion, the backend), its entry function is
// compiled for the device (or kept for the interpreter), and run() then
// runs it on argument buffers as often as wanted. Options are the tool's
// own (Invocation::bindOptions), parsed from "--name=value" strings by
// parseInvocationOptions, so every flag of the tool is available by the
// same name.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_COMPILEDMODEL_H
#define FUSEC_DRIVER_COMPILEDMODEL_H

#include "fusec/Driver/Invocation.h"
#include "fusec/Driver/Session.h"
#include "fusec/Driver/Training.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec {

namespace driver {
struct Runner;
} // namespace driver

class Interpreter;

/// Parses tool options ("--mixed-precision=f16", "--backend=interp", ...)
/// into `invocation`; false with `error` ("unknown option '--x'").
bool parseInvocationOptions(const std::vector<std::string> &options,
                            Invocation &invocation, std::string &error);

/// An argument or result of the entry function.
struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
};

class CompiledModel {
public:
  /// Runs the pipeline on `model` (loaded by `session`, which must outlive
  /// the result) as `invocation` says and prepares its entry function to
  /// run on `invocation.backend`. Diagnostics go to `session`.
  static mlir::FailureOr<std::unique_ptr<CompiledModel>>
  compile(Session &session, Model model, Invocation invocation);
  ~CompiledModel();

  const std::vector<TensorInfo> &arguments() const { return args; }
  const std::vector<TensorInfo> &results() const { return outs; }
  /// Where it runs ("the reference interpreter (CPU)", a GPU's name).
  std::string device() const;
  /// With --train=FUNC, the compiled function is FUNC's training step and
  /// this is its calling convention; null otherwise.
  const TrainStepSignature *trainStep() const {
    return signature ? &*signature : nullptr;
  }

  /// Runs the entry function once. Arguments are checked against its
  /// signature first; nullopt with `error` (empty when the failure was
  /// diagnosed at a location, in the session).
  std::optional<std::vector<Buffer>> run(const std::vector<Buffer> &arguments,
                                         std::string &error);

  /// The entry function compiled for a GPU: the .fsx artifact's bytes
  /// (`--emit=exec`), or the CUDA C++ of its kernels (`--emit=cuda`, what
  /// the host device runs once compiled for the CPU). Diagnostics go to the
  /// session.
  mlir::FailureOr<std::string> artifact();
  mlir::FailureOr<std::string> cudaSource();

  /// A training step only: the training loop over a dataset, as `fusec
  /// --train=FUNC --run --data=...` runs it, with the loop's options
  /// (`--data=NAME=FILE.npy`, `--epochs`, `--checkpoint-dir`,
  /// `--output-dir`, ...) in `options`; progress lines go to `out`, the
  /// trained parameters into the output directory. Diagnostics go to the
  /// session.
  mlir::LogicalResult fit(const std::vector<std::string> &options,
                          llvm::raw_ostream &out);

private:
  CompiledModel(Model model, Invocation invocation);
  std::optional<Model> model;
  Invocation invocation;
  std::unique_ptr<rt::Device> dev;
  std::unique_ptr<Interpreter> interpreter;
  std::unique_ptr<driver::Runner> runner;
  std::vector<TensorInfo> args, outs;
  std::optional<TrainStepSignature> signature;
};

/// The fusion report (`--emit=report`) of `model` compiled as `invocation`
/// says, without changing `model`.
mlir::FailureOr<std::string> reportModel(Session &session, Model &model,
                                         Invocation invocation);

} // namespace fusec

#endif // FUSEC_DRIVER_COMPILEDMODEL_H
