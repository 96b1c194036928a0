//===- Invocation.cpp - What one `fusec` command does ---------------------===//

#include "fusec/Driver/Invocation.h"
#include "Runner.h"
#include "fusec/Codegen/Nvrtc.h"
#include "fusec/Driver/Checkpoint.h"
#include "fusec/Driver/ModelCache.h"
#include "fusec/Driver/Report.h"
#include "fusec/Driver/TrainingLoop.h"
#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Support/File.h"
#include "fusec/Support/KernelCache.h"
#include "fusec/Support/Npy.h"
#include "fusec/Support/Results.h"
#include "fusec/Support/Version.h"

#include "mlir/IR/Verifier.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>

using namespace mlir;
using namespace fusec;
using namespace fusec::driver;

void Invocation::bindOptions(OptionBinder &binder) {
  binder.group("fusec", "The `fusec` tool: what to read, produce and run");
  binder.text("o", output,
              "Write the output here (default: stdout; with --run, only "
              "when given)",
              "path");
  binder.choice(
      "emit", emit,
      {{Emit::MLIR, "mlir", "the optimized module (default)"},
       {Emit::Report, "report",
        "the decisions: kernels before/after fusion, each fusion, each "
        "matmul step, why each edge was not fused, the memory plan"},
       {Emit::Dot, "dot", "a Graphviz graph with one cluster per fusion"},
       {Emit::Cuda, "cuda", "the generated CUDA C++ of the entry's kernels"},
       {Emit::Cpu, "cpu",
        "the generated C++ of the entry's kernels' CPU forms (what the cpu "
        "device compiles)"},
       {Emit::Ptx, "ptx", "the PTX of the entry's kernels (one module)"},
       {Emit::Exec, "exec",
        "the executable artifact (.fsx) of the entry: kernels' PTX and "
        "host plan (needs -o)"}},
      "What to produce");
  binder.text("entry", entry,
              "Function to run or compile (default: the only public one)",
              "name");
  binder.flag("run", run, "Execute the entry function");
  binder.flag("max-batch", maxBatch,
              "Print the largest batch (the size bound by --batch) whose "
              "memory plan fits --memory-limit, or the GPU's free memory");
  binder.list("input", inputs,
              "An .npy file per argument of the entry function, in order",
              "path.npy", /*commaSeparated=*/false);
  binder.text("output-dir", outputDir,
              "Directory for result0.npy, result1.npy, ... (default: the "
              "current directory, which --run then says)",
              "dir");
  binder.choice("backend", backend,
                {{Backend::Auto, "auto",
                  "the GPU when available, else the cpu device (when a C++ "
                  "compiler runs), else the interpreter"},
                 {Backend::Interp, "interp", "the reference interpreter"},
                 {Backend::GPU, "gpu", "the CUDA runtime"},
                 {Backend::Cpu, "cpu",
                  "the cpu device: the compiled plan with each kernel's "
                  "CPU form, compiled for this machine, on --threads "
                  "threads"},
                 {Backend::Host, "host",
                  "the host device: the compiled plan with --host-kernels "
                  "(for testing code generation and the runtime without a "
                  "GPU)"}},
                "Where --run executes");
  binder.flag("verify-each", verifyEach,
              "Verify the IR after every pass, not only after the pipeline "
              "(for debugging fusec itself)");
  binder.flag("compile-stats", compileStats,
              "Print kernel and cache statistics of code generation to "
              "stderr");
  import.bindOptions(binder);
  pipeline.bindOptions(binder);
  codegen.bindOptions(binder);
  execution.bindOptions(binder);
  trainLoop.bindOptions(binder);
}

FailureOr<std::vector<Buffer>> fusec::readInputs(func::FuncOp func,
                                                 ArrayRef<std::string> paths,
                                                 BufferAllocator &allocator,
                                                 ArrayRef<Buffer> defaults) {
  FunctionType type = func.getFunctionType();
  // The arguments the files are for: all, or those without a default.
  SmallVector<unsigned> given;
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (i >= defaults.size() || !defaults[i])
      given.push_back(i);
  if (paths.size() != given.size())
    given = llvm::to_vector(llvm::seq(type.getNumInputs()));
  if (paths.size() != given.size()) {
    InFlightDiagnostic d = func.emitError()
                           << "'" << func.getSymName() << "' takes "
                           << type.getNumInputs() << " argument(s)";
    if (given.size() != type.getNumInputs())
      d << " (" << given.size() << " without a value from the model)";
    return d << " but " << paths.size() << " --input file(s) were given";
  }
  std::vector<Buffer> args(type.getNumInputs());
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    if (llvm::is_contained(given, i))
      continue;
    std::string error;
    Buffer copy =
        allocator.allocate(defaults[i].dtype(), defaults[i].shape(), error);
    if (!copy)
      return func.emitError() << error;
    std::memcpy(copy.data(), defaults[i].data(), defaults[i].sizeInBytes());
    args[i] = std::move(copy);
  }
  for (auto [i, path] : llvm::zip(given, paths)) {
    std::string error;
    Buffer buffer = readNpy(path, error, &allocator);
    Location argLoc = func.getArgument(i).getLoc();
    if (!buffer)
      return emitError(argLoc) << "argument #" << i << " of '"
                               << func.getSymName() << "': " << error;
    if (std::optional<std::string> why =
            mismatchWithType(buffer, type.getInput(i)))
      return emitError(argLoc)
             << "argument #" << i << " of '" << func.getSymName()
             << "' of type " << type.getInput(i) << " does not match " << path
             << ": " << *why;
    args[i] = std::move(buffer);
  }
  return args;
}

FailureOr<CompiledFunction>
fusec::compileFunction(func::FuncOp func, const CodegenOptions &codegen,
                       CodegenStage stage, PtxGrouping grouping) {
  std::optional<TargetInfo> target = TargetInfo::get(codegen.gpuArch);
  if (!target)
    return func.emitError()
           << "unsupported GPU architecture '" << codegen.gpuArch
           << "' (supported: " << TargetInfo::supportedList() << ")";
  CompileOptions options;
  options.target = *target;
  options.codegen = codegen;
  FailureOr<CompiledFunction> compiled = planFunction(func, options);
  if (failed(compiled) || stage == CodegenStage::Plan)
    return compiled;
  std::optional<KernelCache> cache;
  if (codegen.cache.kernelCache) {
    cache.emplace(kernelCacheDirectory(codegen.cache),
                  codegen.cache.kernelCacheSize);
    options.cache = &*cache;
  }
  if (failed(compileToPtx(*compiled, options, func.getLoc(), grouping)))
    return failure();
  return compiled;
}

namespace {

/// --emit=cuda|cpu|ptx|exec: the entry function's kernels and plan.
LogicalResult generateCode(Invocation &inv, Model &model, std::string &out) {
  FailureOr<func::FuncOp> entry = model.findEntry(inv.entry);
  if (failed(entry))
    return failure();
  FailureOr<CompiledFunction> compiled = compileFunction(
      *entry, inv.codegen,
      inv.emit == Emit::Cuda || inv.emit == Emit::Cpu ? CodegenStage::Plan
                                                      : CodegenStage::Ptx,
      inv.emit == Emit::Ptx ? PtxGrouping::OneModule
                            : PtxGrouping::ContentDefined);
  if (failed(compiled))
    return failure();
  if (inv.emit == Emit::Cuda) {
    out = compiled->cudaSource();
    return success();
  }
  if (inv.emit == Emit::Cpu) {
    out = compiled->cpuSource();
    return success();
  }
  printStats(inv, compiled->stats);
  if (inv.emit == Emit::Ptx) {
    out = compiled->executable.ptx.front();
    return success();
  }
  // The plan must fit the limit before it is deployed anywhere.
  std::string error;
  if (inv.execution.memoryLimit &&
      !rt::checkMemoryLimit(compiled->executable, inv.execution.memoryLimit,
                            error))
    return entry->emitError() << error;
  out = rt::serializeExecutable(compiled->executable);
  return success();
}

/// --train=FUNC --run with --input files (one fixed batch): --steps steps,
/// feeding each step's updated parameters and state to the next; prints
/// the loss per step and writes the final parameters.
LogicalResult trainModule(Invocation &inv, Model &model, Interpreter &interp,
                          rt::Device *device, llvm::raw_ostream &out) {
  ModuleOp module = model.getModule();
  const std::string &loss = inv.pipeline.training.train;
  FailureOr<TrainStepSignature> sig = trainStepSignature(module, loss);
  if (failed(sig))
    return failure();
  auto lossFunc = module.lookupSymbol<func::FuncOp>(loss);
  auto step = module.lookupSymbol<func::FuncOp>(loss + "_train_step");
  if (!inv.trainLoop.data.empty())
    return fitModule(inv, module, &*sig, lossFunc, step, interp, device, out);
  if (failed(checkSaveOnnx(inv, module)))
    return failure();
  int64_t fixedSteps = inv.trainLoop.steps < 0 ? 1 : inv.trainLoop.steps;
  // Before training, not after N steps of it.
  std::string error;
  if (!createDirectories(inv.outputDir, error))
    return module.emitError() << error;
  FailureOr<std::vector<Buffer>> args = readInputs(
      lossFunc, inv.inputs, interp.getAllocator(), sig->initialValues);
  if (failed(args))
    return failure();
  seedModelState(*sig, *args, inv.trainLoop.seed);
  if (!addTrainingState(*sig, *args, interp.getAllocator(), error))
    return module.emitError() << error;
  FailureOr<Runner> runner = makeRunner(inv, step, interp, device);
  if (failed(runner))
    return failure();
  std::unique_ptr<TrainStepRunner> steps =
      stepRunner(*sig, std::move(*args), *runner, error);
  if (!steps)
    return step.emitError() << error;
  auto report = [&](const StepReport &r) {
    out << "step " << r.step << ": loss " << llvm::format("%g", r.loss);
    if (r.scale)
      out << " scale " << llvm::format("%g", *r.scale);
    if (r.skipped)
      out << " skipped (non-finite gradients)";
    out << "\n";
  };
  std::optional<int64_t> skipped =
      runTraining(*sig, *steps, fixedSteps, report, error);
  if (!skipped) {
    if (!error.empty())
      return step.emitError() << error;
    return failure();
  }
  out << fixedSteps << " steps";
  if (sig->skippedResult >= 0)
    out << ", " << *skipped << " skipped";
  out << "\n";
  std::optional<std::string> after = runner->after(inv, error);
  if (!after)
    return step.emitError() << error;
  out << *after;
  std::vector<Buffer> params;
  std::vector<std::pair<std::string, Buffer>> trained;
  for (int64_t k : trainedArguments(*sig)) {
    std::optional<Buffer> value = steps->argument(k, error);
    if (!value)
      return step.emitError() << error;
    if (llvm::is_contained(sig->params, k))
      params.push_back(*value);
    trained.emplace_back(sig->argNames[size_t(k)], std::move(*value));
  }
  std::vector<std::string> lines;
  bool written = writeResults(inv.outputDir, params, lines, error);
  for (const std::string &line : lines)
    out << line << "\n";
  if (!written)
    return module.emitError() << error;
  return saveTrainedOnnx(inv, trained, module, out);
}

/// --run: read inputs, run on `device` or the interpreter, write results.
LogicalResult runModel(Invocation &inv, Model &model, rt::Device *device,
                       llvm::raw_ostream &out) {
  ModuleOp module = model.getModule();
  InterpreterOptions options;
  options.memoryLimit = inv.execution.memoryLimit;
  Interpreter interp(options);
  if (!inv.pipeline.training.train.empty())
    return trainModule(inv, model, interp, device, out);
  FailureOr<func::FuncOp> entry = model.findEntry(inv.entry);
  if (failed(entry))
    return failure();
  // Arguments the model gives a value (imported for training: its
  // weights) need no --input.
  FailureOr<std::vector<Buffer>> defaults = initialValuesOf(*entry);
  if (failed(defaults))
    return failure();
  FailureOr<std::vector<Buffer>> args =
      readInputs(*entry, inv.inputs, interp.getAllocator(), *defaults);
  if (failed(args))
    return failure();
  FailureOr<Runner> runner = makeRunner(inv, *entry, interp, device);
  if (failed(runner))
    return failure();
  std::string error;
  std::optional<std::vector<Buffer>> results = runner->run(*args, error);
  if (!results) {
    if (!error.empty())
      return entry->emitError() << error;
    return failure();
  }
  std::optional<std::string> after = runner->after(inv, error);
  if (!after)
    return entry->emitError() << error;
  out << *after;
  std::vector<std::string> lines;
  bool written = writeResults(inv.outputDir, *results, lines, error);
  for (const std::string &line : lines)
    out << line << "\n";
  if (!written)
    return module.emitError() << error;
  return success();
}

} // namespace

LogicalResult
fusec::runInvocation(Invocation &inv, Session &session,
                     function_ref<LogicalResult(PassManager &)> configure,
                     llvm::raw_ostream &out) {
  if (inv.emit == Emit::Exec && inv.output.empty()) {
    session.error("--emit=exec writes a binary file: give it a name with -o "
                  "(or -o - for stdout)");
    return failure();
  }
  if (inv.execution.listDevices) {
    out << rt::describeCudaDevices();
    return success();
  }
  // Training imports an ONNX model's initializers as parameters (unless
  // --trainable says otherwise).
  inv.pipeline.training.resolve();
  inv.import.training = !inv.pipeline.training.train.empty();
  if (inv.maxBatch)
    return findMaxBatch(inv, session, out);
  if (inv.run && inv.outputDir.empty()) {
    session.note(inv.trainLoop.data.empty()
                     ? "--run writes result0.npy, ... into the current "
                       "directory (--output-dir=DIR chooses another)"
                     : "--run writes the trained parameters (NAME.npy, "
                       "manifest.json) into the current directory "
                       "(--output-dir=DIR chooses another)");
    inv.outputDir = ".";
  }
  if (inv.input.empty()) {
    // Not standard input by default: in a terminal that would wait for
    // typing with no sign of it.
    session.error("no model: give its file, or - to read it from standard "
                  "input (--help lists the options)");
    return failure();
  }
  // A file is written to a temporary and renamed, so a failure never leaves
  // a half-written output; a device or FIFO is written through.
  auto writeResultWith = [&](const ContentWriter &write) -> LogicalResult {
    std::string error;
    out.flush(); // What was printed before comes first on stdout.
    if (!writeOutput(inv.output.empty() ? "-" : inv.output, write, error)) {
      session.error(error);
      return failure();
    }
    return success();
  };
  auto writeResult = [&](const std::string &text) {
    return writeResultWith(
        [&](int fd) { return writeAll(fd, text.data(), text.size()); });
  };
  // An artifact compiled before from the same model and options: no parse,
  // no pipeline (ModelCache.h).
  std::unique_ptr<ModelCache> modelCache;
  if (inv.emit == Emit::Exec && !inv.run)
    modelCache = ModelCache::open(inv);
  if (modelCache) {
    std::optional<std::string> artifact = modelCache->lookup();
    if (inv.compileStats)
      llvm::errs() << "fusec: model cache: " << (artifact ? "hit" : "miss")
                   << " (" << modelCache->key() << ")\n";
    if (artifact)
      return writeResult(*artifact);
  }
  FailureOr<std::unique_ptr<rt::Device>> device = openRunDevice(inv, session);
  if (failed(device))
    return failure();
  // A training run's --batch-size binds an ONNX model's dynamic batch.
  if (!inv.pipeline.training.train.empty() && inv.trainLoop.batchSize > 0 &&
      inv.import.batch == 0)
    inv.import.batch = inv.trainLoop.batchSize;
  FailureOr<Model> loaded = session.loadFile(inv.input, inv.import);
  if (failed(loaded))
    return failure();
  Model &model = *loaded;
  std::optional<FusionReportCollector> collector;
  if (inv.emit == Emit::Report || inv.emit == Emit::Dot)
    collector.emplace(inv.emit == Emit::Report ? ReportFormat::Text
                                               : ReportFormat::Dot,
                      inv.entry);
  if (failed(runPipeline(inv, session, model, device->get(),
                         collector ? &*collector : nullptr, configure)))
    return failure();
  bool codegen = isCodegen(inv.emit);

  if (inv.run && failed(runModel(inv, model, device->get(), out)))
    return failure();
  if (inv.run && inv.output.empty())
    return success();

  // Generated first, so that a failure writes nothing.
  std::string text;
  if (codegen) {
    if (failed(generateCode(inv, model, text)))
      return failure();
    if (modelCache)
      modelCache->store(text);
  } else if (collector) {
    // --entry picks the function the report or graph describes.
    if (!inv.entry.empty() && failed(model.findEntry(inv.entry)))
      return failure();
    text = collector->render(model.getModule(), inv.codegen);
  } else {
    // Printed straight into the output: the text of a large module is never
    // held in memory.
    ModuleOp module = model.getModule();
    return writeResultWith([&](int fd) {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
      os.SetBufferSize(size_t(1) << 20); // Few system calls.
      module->print(os);
      os.flush();
      if (!os.has_error())
        return true;
      errno = os.error().value();
      os.clear_error();
      return false;
    });
  }
  return writeResult(text);
}

std::string fusec::versionText() {
  std::string out = versionLine() + "\n";
  out += std::string("MLIR ") + LLVM_VERSION_STRING + "\n";
  std::string whyNot;
  if (Nvrtc *nvrtc = Nvrtc::get(&whyNot))
    out += "NVRTC " + nvrtc->version() + "\n";
  else
    out += "NVRTC: " + whyNot + "\n";
  return out + rt::describeCudaLibraries();
}

void fusec::warnIneffectiveOptions(
    const Invocation &inv,
    const std::function<std::vector<std::string>(std::string_view)> &givenIn,
    Session &session) {
  bool training = !inv.pipeline.training.train.empty() ||
                  inv.pipeline.training.loss.kind != LossKind::None;
  for (const std::string &flag : givenIn("training"))
    if (!training && flag != "--train")
      session.warning(flag + " has no effect without --train=FUNC or --loss");
  for (const std::string &flag : givenIn("training-runs")) {
    if (!training)
      session.warning(flag + " has no effect without --train=FUNC or --loss");
    else if (!inv.run)
      session.warning(flag + " has no effect without --run");
    else if (inv.trainLoop.data.empty() && flag != "--steps")
      session.warning(flag + " has no effect without --data (--input "
                             "trains on one fixed batch)");
  }
}
