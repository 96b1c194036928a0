//===- TrainingLoop.h - Training over a dataset -----------------*- C++ -*-===//
//
// What `fusec --train=FUNC --run --data=...` does, as a library (the Python
// API reuses it): bind the data, initialise the parameters, then run
// epochs of steps over batches, average the loss and the metrics (the loss
// function's other results) per epoch, evaluate on validation data,
// checkpoint and resume, print progress and log every step. It drives any
// TrainStepRunner (interpreter, host device, GPU) and knows nothing of
// MLIR: the step is described by its TrainStepSignature.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_TRAININGLOOP_H
#define FUSEC_DRIVER_TRAININGLOOP_H

#include "fusec/Driver/Dataset.h"
#include "fusec/Driver/Training.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace fusec {

/// The data arguments `specs` (NAME=FILE.npy) bind, checked against the
/// step's arguments: a known name, one binding per argument, the dtype and
/// the per-sample shape of the argument (a float64 file gets a hint), one
/// sample count for all, at least one batch of `batchSize` (the step's
/// batch dimension, which the arrays' leading dimension feeds; when 0, it
/// is set to the first bound argument's). `what` names the flag in
/// messages ("--data").
std::optional<Dataset> bindData(const TrainStepSignature &signature,
                                const std::vector<std::string> &specs,
                                int64_t &batchSize, const char *what,
                                std::string &error);

/// The loss function's arguments before the first step: data arguments a
/// zero batch (replaced per step), the others from --param files, or, for
/// parameters given none, the --init initialiser. An argument with no value
/// is an error naming it.
std::optional<std::vector<Buffer>>
initialArguments(const TrainStepSignature &signature,
                 const TrainLoopOptions &options, const Dataset &data,
                 BufferAllocator &allocator, std::string &error);

/// What the loop needs besides the options.
struct FitContext {
  const TrainStepSignature &signature;
  TrainStepRunner &runner;
  const Dataset &data;
  /// Empty without --validation-data.
  const Dataset &validation;
  /// Runs the loss function (the forward pass only) on its arguments; for
  /// validation.
  StepFunction evaluate;
  BufferAllocator &allocator;
  /// Progress and summary lines; `interactive`: rewrite one line per
  /// epoch as the steps go (a terminal).
  llvm::raw_ostream &out;
  bool interactive = false;
};

/// Trains as `options` says; returns the number of steps run, or nullopt
/// with `error`.
std::optional<int64_t> fit(const TrainLoopOptions &options, FitContext &context,
                           std::string &error);

} // namespace fusec

#endif // FUSEC_DRIVER_TRAININGLOOP_H
