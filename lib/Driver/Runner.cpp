//===- Runner.cpp - Compiling and running a loaded model ------------------===//

#include "Runner.h"
#include "fusec/Codegen/KernelCache.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Host/HostDevice.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::driver;

bool driver::isCodegen(Emit emit) {
  return emit == Emit::Cuda || emit == Emit::Ptx || emit == Emit::Exec;
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
  std::string dir = inv.codegen.cache.kernelCacheDir.empty()
                        ? KernelCache::defaultDirectory()
                        : inv.codegen.cache.kernelCacheDir;
  bool memoryOnly = dir.empty() || StringRef(dir).equals_insensitive("off");
  llvm::errs() << "fusec: kernel cache: "
               << (memoryOnly ? "(memory only)" : dir) << "\n";
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
  FailureOr<CompiledFunction> compiled =
      compileFunction(func, inv.codegen, CodegenStage::Ptx);
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

/// The GPU --run uses: none with --backend=interp; with auto, none when
/// there is no usable GPU (a note says why); with gpu, an error then.
FailureOr<std::unique_ptr<rt::Device>>
driver::openRunDevice(const Invocation &inv, Session &session) {
  if (!inv.run || inv.backend == Backend::Interp)
    return std::unique_ptr<rt::Device>();
  std::string why;
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
  session.note("running on the reference interpreter: no usable GPU (" + why +
               ")");
  return std::unique_ptr<rt::Device>();
}

LogicalResult
driver::runPipeline(Invocation &inv, Session &session, Model &model,
                    rt::Device *device, FusionReportCollector *collector,
                    function_ref<LogicalResult(PassManager &)> configure) {
  PipelineOptions pipeline = inv.pipeline;
  const std::string &train = pipeline.training.train;
  if (!train.empty()) {
    auto loss = model.getModule().lookupSymbol<func::FuncOp>(train);
    if (!loss) {
      session.error("--train=" + train + ": there is no function named '" +
                    train + "' in " + model.getName());
      return failure();
    }
    // The inliner that runs first deletes private functions nobody calls;
    // the function being trained is used.
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
      pipeline.fusion.duplicate = false;
      pipeline.fusion.matmulEpilogues = false;
    }
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
