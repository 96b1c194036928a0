//===- Runner.cpp - Compiling and running a loaded model ------------------===//

#include "Runner.h"
#include "fusec/Conversion/OnnxImport.h"
#include "fusec/Conversion/OnnxTrainedWeights.h"
#include "fusec/Driver/Checkpoint.h"
#include "fusec/Driver/TrainingLoop.h"
#include "fusec/Runtime/Cpu/CpuDevice.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Support/File.h"
#include "fusec/Support/KernelCache.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::driver;

bool driver::isCodegen(Emit emit) {
  return emit == Emit::Cuda || emit == Emit::Cpu || emit == Emit::Ptx ||
         emit == Emit::Exec;
}

void driver::printStats(const Invocation &inv, const CompileStats &stats) {
  if (!inv.compileStats)
    return;
  llvm::errs() << llvm::format(
      "fusec: %lld launches, %lld distinct kernels in %lld PTX modules, "
      "%lld matmuls; %lld modules from the kernel cache, %lld compiled by "
      "NVRTC (%.1f ms NVRTC, %.1f ms wall)\n",
      (long long)stats.launches, (long long)stats.distinctKernels,
      (long long)stats.modules, (long long)stats.matmuls,
      (long long)stats.cacheHits, (long long)stats.compiled,
      stats.nvrtcSeconds * 1e3, stats.wallSeconds * 1e3);
  if (!inv.codegen.cache.kernelCache)
    return;
  std::string dir = kernelCacheDirectory(inv.codegen.cache);
  llvm::errs() << "fusec: kernel cache: "
               << (dir.empty() ? "(memory only)" : dir) << "\n";
}

/// A runner for `func`: on `device` when there is one (the function is
/// compiled for it, its plan loaded once), else on `interp`.
FailureOr<Runner> driver::makeRunner(Invocation &inv, func::FuncOp func,
                                     Interpreter &interp, rt::Device *device) {
  Runner runner;
  if (!device) {
    runner.run = [&interp,
                  func](const std::vector<Buffer> &args,
                        std::string &) -> std::optional<std::vector<Buffer>> {
      FailureOr<SmallVector<Buffer>> results = interp.run(func, args);
      if (failed(results))
        return std::nullopt; // Diagnosed at its location.
      return std::vector<Buffer>(results->begin(), results->end());
    };
    return runner;
  }
  // The cpu device runs the kernels' CPU forms: no PTX.
  bool cpu = dynamic_cast<rt::CpuDevice *>(device) != nullptr;
  FailureOr<CompiledFunction> compiled = compileFunction(
      func, inv.codegen, cpu ? CodegenStage::Plan : CodegenStage::Ptx);
  if (failed(compiled))
    return failure();
  printStats(inv, compiled->stats);
  std::string error;
  runner.loaded = rt::LoadedExecutable::load(compiled->executable, *device,
                                             inv.execution, error);
  if (!runner.loaded)
    return func.emitError() << error;
  rt::LoadedExecutable *loaded = runner.loaded.get();
  runner.run = [loaded](const std::vector<Buffer> &args, std::string &error) {
    return loaded->run(args, error);
  };
  return runner;
}

/// The device --run uses: none with --backend=interp; with auto, none when
/// code generation cannot compile the module (--no-fuse,
/// --no-lower-windows), else the GPU, else the cpu device when a C++
/// compiler runs (a note says why there is no GPU), else none (the
/// interpreter; the note says why not the cpu device either); with gpu, an
/// error when there is no GPU.
FailureOr<std::unique_ptr<rt::Device>>
driver::openRunDevice(const Invocation &inv, Session &session) {
  if (!inv.run || inv.backend == Backend::Interp)
    return std::unique_ptr<rt::Device>();
  std::string why;
  rt::CpuDeviceOptions cpu;
  cpu.threads = int(std::min<int64_t>(inv.execution.threads, 4096));
  std::string dir = kernelCacheDirectory(inv.codegen.cache);
  cpu.compiler.cacheDirectory =
      dir.empty() || !inv.codegen.cache.kernelCache ? "off" : dir;
  if (inv.backend == Backend::Cpu)
    return std::unique_ptr<rt::Device>(std::make_unique<rt::CpuDevice>(cpu));
  // A device runs the compiled plan, which needs the windows lowered and
  // the operations fused: without them auto runs the interpreter.
  if (inv.backend == Backend::Auto &&
      (!inv.pipeline.lowerWindows || !inv.pipeline.fuse))
    return std::unique_ptr<rt::Device>();
  if (inv.backend == Backend::Host) {
    if (inv.execution.hostKernels.empty()) {
      session.error("--backend=host needs --host-kernels (the model's "
                    "--emit=cuda compiled for the CPU, docs/codegen.md)");
      return failure();
    }
    std::unique_ptr<rt::HostDevice> host =
        rt::HostDevice::create(inv.execution.hostKernels, why);
    if (!host) {
      session.error(why);
      return failure();
    }
    return std::unique_ptr<rt::Device>(std::move(host));
  }
  rt::CudaDeviceOptions options;
  options.ordinal = int(inv.execution.device);
  options.graphs = inv.execution.cudaGraphs;
  std::unique_ptr<rt::Device> device = rt::createCudaDevice(options, why);
  if (device)
    return device;
  if (inv.backend == Backend::GPU) {
    session.error("--backend=gpu: no usable GPU: " + why);
    return failure();
  }
  std::string noCompiler;
  if (rt::haveCpuCompiler(cpu.compiler, noCompiler)) {
    session.note("running on the cpu device: no usable GPU (" + why + ")");
    return std::unique_ptr<rt::Device>(std::make_unique<rt::CpuDevice>(cpu));
  }
  session.note("running on the reference interpreter: no usable GPU (" + why +
               "), and " + noCompiler);
  return std::unique_ptr<rt::Device>();
}

LogicalResult
driver::runPipeline(Invocation &inv, Session &session, Model &model,
                    rt::Device *device, FusionReportCollector *collector,
                    function_ref<LogicalResult(PassManager &)> configure) {
  inv.pipeline.training.resolve();
  PipelineOptions pipeline = inv.pipeline;
  const std::string &train = pipeline.training.train;
  bool addsLoss = pipeline.training.loss.kind != LossKind::None;
  if (addsLoss && train != kAddedLossName) {
    session.error("--train=" + train +
                  " and --loss: --loss adds the loss "
                  "function '" +
                  kAddedLossName.str() +
                  "' and trains it; a model that computes its loss trains "
                  "without --loss");
    return failure();
  }
  if (!train.empty()) {
    bool anyParam = false;
    model.getModule().walk([&](func::FuncOp f) {
      for (unsigned i = 0; i < f.getNumArguments(); ++i)
        anyParam |= bool(f.getArgAttr(i, kParamAttrName));
    });
    if (!anyParam) {
      session.error("nothing to train in " + model.getName() +
                    ": no argument is a parameter (" + kParamAttrName.str() +
                    "); an ONNX model's float initializers are, unless "
                    "--trainable=none or --frozen say otherwise");
      return failure();
    }
    auto loss = model.getModule().lookupSymbol<func::FuncOp>(train);
    if (!loss && !addsLoss) {
      std::string names;
      for (auto f : model.getModule().getOps<func::FuncOp>())
        if (!f.isPrivate() && !f.isExternal())
          names += (names.empty() ? "" : ", ") + f.getSymName().str();
      session.error(
          "--train=" + train + ": there is no function named '" + train +
          "' in " + model.getName() +
          (names.empty() ? std::string() : " (its functions: " + names + ")"));
      return failure();
    }
    // The inliner that runs first deletes private functions nobody calls;
    // the function being trained is used.
    if (loss)
      loss.setPublic();
    // Differentiation does not go through calls.
    pipeline.inlineCalls = true;
    if (inv.entry.empty())
      inv.entry = train + "_train_step";
  }
  bool codegen = isCodegen(inv.emit);
  if (device) {
    // Code for --gpu-arch runs on that architecture and newer ones; for an
    // older GPU, compile for the GPU itself when fusec targets it.
    std::string arch = device->arch(), why;
    if (!arch.empty() && !rt::archRunsOn(inv.codegen.gpuArch, arch, why) &&
        TargetInfo::get(arch))
      inv.codegen.gpuArch = arch;
  }
  if (codegen || device) {
    // Code generation compiles one function, every operation in a fusion:
    // without fusion, one operation each.
    pipeline.inlineCalls = true;
    if (!pipeline.fuse) {
      pipeline.fuse = true;
      pipeline.fusion.maxOps = 1;
      pipeline.fusion.multiOutput = false;
      pipeline.fusion.horizontal = false;
      pipeline.fusion.duplicate = false;
      pipeline.fusion.matmulEpilogues = false;
    }
  }
  // --recompute=auto under --memory-limit: the step's plan without
  // recomputation decides, compiled from a copy of the model.
  uint64_t limit = inv.execution.memoryLimit;
  if (!train.empty() && limit &&
      pipeline.training.recompute == TrainingOptions::Recompute::Auto) {
    OwningOpRef<ModuleOp> trial(model.getModule().clone());
    PipelineOptions plain = pipeline;
    plain.training.recompute = TrainingOptions::Recompute::Off;
    plain.fuse = true;
    plain.inlineCalls = true;
    PassManager pm(&session.getContext());
    buildFusecPipeline(pm, plain);
    if (failed(pm.run(*trial)))
      return failure();
    auto step = trial->lookupSymbol<func::FuncOp>(train + "_train_step");
    FailureOr<CompiledFunction> compiled =
        step ? compileFunction(step, inv.codegen, CodegenStage::Plan)
             : FailureOr<CompiledFunction>(failure());
    if (failed(compiled))
      return failure();
    int64_t needs = rt::memoryNeeds(compiled->executable).total();
    bool over = uint64_t(needs) > limit;
    pipeline.training.recompute =
        over ? TrainingOptions::Recompute::On : TrainingOptions::Recompute::Off;
    if (over)
      session.note("the training step needs " + std::to_string(needs) +
                   " bytes, more than --memory-limit (" +
                   std::to_string(limit) +
                   "): recomputing cheap forward values in the backward "
                   "pass instead of keeping them (--recompute=auto)");
  }
  PassManager pm(&session.getContext());
  if (configure && failed(configure(pm)))
    return failure();
  buildFusecPipeline(pm, pipeline, collector);
  pm.enableVerifier(inv.verifyEach);
  if (failed(pm.run(model.getModule())) || failed(verify(model.getModule())))
    return failure();

  return success();
}

/// --train=FUNC --run --data=...: the training loop over a dataset
/// (TrainingLoop.h); writes the final parameters by name.
std::unique_ptr<TrainStepRunner>
driver::stepRunner(const TrainStepSignature &sig, std::vector<Buffer> args,
                   Runner &runner, std::string &error) {
  return runner.loaded
             ? deviceStepRunner(sig, std::move(args), *runner.loaded, error)
             : hostStepRunner(sig, std::move(args), runner.run);
}

LogicalResult driver::fitModule(Invocation &inv, ModuleOp module,
                                const TrainStepSignature *sig,
                                func::FuncOp lossFunc, func::FuncOp step,
                                Interpreter &interp, rt::Device *device,
                                llvm::raw_ostream &out) {
  TrainLoopOptions options = inv.trainLoop;
  std::string error;
  auto fail = [&](Operation *at) {
    at->emitError() << error;
    return failure();
  };
  if (failed(checkSaveOnnx(inv, module)))
    return failure();
  std::optional<Dataset> data =
      bindData(*sig, options.data, options.batchSize, "--data", error);
  if (!data)
    return fail(lossFunc);
  std::optional<Dataset> validation =
      bindData(*sig, options.validationData, options.batchSize,
               "--validation-data", error);
  if (!validation)
    return fail(lossFunc);
  if (!validation->empty()) {
    std::vector<int64_t> a, b;
    for (const DataBinding &d : data->getBindings())
      a.push_back(d.argument);
    for (const DataBinding &d : validation->getBindings())
      b.push_back(d.argument);
    llvm::sort(a);
    llvm::sort(b);
    if (a != b) {
      error = "--validation-data must bind the same arguments as --data";
      return fail(lossFunc);
    }
  }
  if (!createDirectories(inv.outputDir, error))
    return fail(module);
  std::optional<std::vector<Buffer>> args =
      initialArguments(*sig, options, *data, interp.getAllocator(), error);
  if (!args)
    return fail(lossFunc);
  if (!addTrainingState(*sig, *args, interp.getAllocator(), error))
    return fail(module);
  FailureOr<Runner> runner = makeRunner(inv, step, interp, device);
  if (failed(runner))
    return failure();
  // Validation runs the loss function's evaluation twin when it has one
  // (inference semantics: running statistics, no dropout).
  FailureOr<Runner> evaluator = success(Runner());
  func::FuncOp evalFunc = lossFunc;
  if (auto twin = lossFunc->getAttrOfType<FlatSymbolRefAttr>(kEvalAttrName))
    if (auto f = module.lookupSymbol<func::FuncOp>(twin.getAttr()))
      evalFunc = f;
  if (!validation->empty())
    evaluator = makeRunner(inv, evalFunc, interp, device);
  if (failed(evaluator))
    return failure();
  std::unique_ptr<TrainStepRunner> steps =
      stepRunner(*sig, std::move(*args), *runner, error);
  if (!steps)
    return fail(step);
  FitContext context{*sig,
                     *steps,
                     *data,
                     *validation,
                     evaluator->run,
                     interp.getAllocator(),
                     out,
                     out.is_displayed()};
  if (!fit(options, context, error)) {
    if (error.empty())
      return failure(); // Diagnosed at its location.
    return fail(step);
  }
  std::optional<std::string> after = runner->after(inv, error);
  if (!after)
    return fail(step);
  out << *after;
  std::vector<std::pair<std::string, Buffer>> trained;
  for (int64_t k : trainedArguments(*sig)) {
    std::optional<Buffer> value = steps->argument(k, error);
    if (!value)
      return fail(step);
    trained.emplace_back(sig->argNames[size_t(k)], std::move(*value));
  }
  std::vector<std::string> lines;
  bool written = writeNamedTensors(inv.outputDir, trained, lines, error);
  for (const std::string &line : lines)
    if (!options.quiet)
      out << line << "\n";
  if (!written)
    return fail(module);
  return saveTrainedOnnx(inv, trained, module, out);
}

LogicalResult driver::checkSaveOnnx(const Invocation &inv, ModuleOp module) {
  if (inv.trainLoop.saveOnnx.empty())
    return success();
  FileBytes bytes;
  std::string error;
  if (!readFile(inv.input, bytes, error,
                [](std::string_view) { return uint64_t(64); }))
    return module.emitError() << "--save-onnx: " << error;
  if (!looksLikeOnnx(StringRef(bytes.view().data(), bytes.view().size())))
    return module.emitError()
           << "--save-onnx: " << inv.input
           << " is not an ONNX model (--output-dir writes the trained "
              "parameters of any model as .npy files)";
  return success();
}

LogicalResult driver::saveTrainedOnnx(
    const Invocation &inv,
    const std::vector<std::pair<std::string, Buffer>> &trained, ModuleOp module,
    llvm::raw_ostream &out) {
  const std::string &path = inv.trainLoop.saveOnnx;
  if (path.empty())
    return success();
  FileBytes bytes;
  std::string error, written;
  std::map<std::string, Buffer> values(trained.begin(), trained.end());
  if (!readFile(inv.input, bytes, error) ||
      !replaceOnnxInitializers(bytes.view(), values, written, error) ||
      !writeFileAtomically(path, written, error))
    return module.emitError() << "--save-onnx=" << path << ": " << error;
  if (!inv.trainLoop.quiet)
    out << "wrote " << path << ": " << inv.input << " with " << values.size()
        << " trained initializers\n";
  return success();
}
