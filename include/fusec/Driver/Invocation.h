//===- Invocation.h - What one `fusec` command does -------------*- C++ -*-===//
//
// The `fusec` tool's behaviour as a library call: load a model, run the
// pipeline, then print the module, report the decisions, generate code
// (CUDA C++, PTX, the .fsx artifact) and/or run or train on the
// interpreter. Every option is a field of an options struct bound once
// (bindOptions); the tool only binds them to its command line.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_INVOCATION_H
#define FUSEC_DRIVER_INVOCATION_H

#include "fusec/Codegen/Compile.h"
#include "fusec/Codegen/Options.h"
#include "fusec/Driver/Session.h"
#include "fusec/Driver/Training.h"
#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Runtime/Executor.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fusec {

enum class Emit { MLIR, Report, Dot, Cuda, Cpu, Ptx, Exec };
enum class Backend { Auto, Interp, GPU, Cpu, Host };

struct Invocation {
  /// The model ("-": stdin).
  std::string input = "-";
  /// -o: the output; empty: stdout (with --run, no output).
  std::string output;
  Emit emit = Emit::MLIR;
  std::string entry;
  bool run = false;
  std::vector<std::string> inputs;
  /// --output-dir; empty: the current directory (said in a note).
  std::string outputDir;
  Backend backend = Backend::Auto;
  bool verifyEach = false;
  bool compileStats = false;
  /// --max-batch: report the largest batch whose plan fits the memory
  /// limit instead of compiling once.
  bool maxBatch = false;
  ImportOptions import;
  PipelineOptions pipeline;
  CodegenOptions codegen;
  rt::ExecutionOptions execution;
  TrainLoopOptions trainLoop;

  void bindOptions(OptionBinder &binder);
};

/// Warns, in `session`, about each flag that was given but does nothing in
/// `invocation` (training flags without --train, training-run flags without
/// --run). `givenIn(group)` lists the flags of an option group that were
/// given ("--steps").
void warnIneffectiveOptions(
    const Invocation &invocation,
    const std::function<std::vector<std::string>(std::string_view)> &givenIn,
    Session &session);

/// What `fusec --version` prints: fusec's version and git revision, the
/// MLIR it was built with, and the NVRTC, CUDA driver and cuBLASLt it loads
/// (or why not), one per line.
std::string versionText();

/// Runs `invocation`. Diagnostics are collected by `session`; results and
/// per-step lines go to `out`. `configure` prepares the pass manager (the
/// command line's MLIR options: timing, IR printing, crash reproducers).
mlir::LogicalResult runInvocation(
    Invocation &invocation, Session &session,
    llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure,
    llvm::raw_ostream &out);

/// --max-batch: plans the model (an ONNX model with a dynamic first
/// dimension) at several batch sizes and prints the largest whose plan
/// fits --memory-limit (or the GPU's free memory), with the needs of each
/// batch tried.
mlir::LogicalResult findMaxBatch(Invocation &invocation, Session &session,
                                 llvm::raw_ostream &out);

/// Reads one .npy file per argument of `func`, each checked against the
/// argument's type (an error at the argument's location otherwise). With
/// `defaults` (per argument, a value or an empty Buffer: an imported
/// model's weights), the files may instead be one per argument without a
/// default, in order; the others get copies of their defaults.
mlir::FailureOr<std::vector<Buffer>>
readInputs(mlir::func::FuncOp func, llvm::ArrayRef<std::string> paths,
           BufferAllocator &allocator, llvm::ArrayRef<Buffer> defaults = {});

enum class CodegenStage { Plan, Ptx };
/// Plans `func` (the output of the fusion pass) for `codegen`'s target and,
/// at CodegenStage::Ptx, compiles its kernels through the kernel cache.
mlir::FailureOr<CompiledFunction>
compileFunction(mlir::func::FuncOp func, const CodegenOptions &codegen,
                CodegenStage stage,
                PtxGrouping grouping = PtxGrouping::ContentDefined);

} // namespace fusec

#endif // FUSEC_DRIVER_INVOCATION_H
