//===- fusec.cpp - The fusec command-line compiler ------------------------===//
//
//   fusec MODEL.mlir [-o OUT] [--entry=NAME]
//         [--run --input=A.npy ... --output-dir=DIR --backend=auto|interp]
//
// Parses a module in the fusec or tosa dialect, runs the fusec pipeline and
// prints the result; with --run, executes the entry function and writes its
// results as .npy files. Every error is a diagnostic (file:line:col where the
// input has a location) and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/Compile.h"
#include "fusec/Conversion/TosaToFusec/TosaToFusec.h"
#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"
#include "fusec/InitAll.h"
#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Pipeline/Pipeline.h"
#include "fusec/Support/Npy.h"

#include "mlir/Debug/Counter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory fusecCategory("fusec options");

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<model.mlir>"),
                                   cl::init("-"), cl::cat(fusecCategory));

cl::opt<std::string> outputFilename(
    "o",
    cl::desc("Write the compiled module here (default: stdout; with "
             "--run, only when given)"),
    cl::value_desc("path"), cl::init(""), cl::cat(fusecCategory));

enum class Emit { MLIR, Report, Dot, Cuda, Ptx, Exec };
cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::MLIR),
    cl::values(clEnumValN(Emit::MLIR, "mlir", "the optimized module (default)"),
               clEnumValN(Emit::Report, "report",
                          "the fusion decisions: kernels before/after, each "
                          "fusion, and why each edge was not fused"),
               clEnumValN(Emit::Dot, "dot",
                          "a Graphviz graph with one cluster per fusion"),
               clEnumValN(Emit::Cuda, "cuda",
                          "the generated CUDA C++ of the entry's kernels"),
               clEnumValN(Emit::Ptx, "ptx",
                          "the PTX of the entry's kernels (one module)"),
               clEnumValN(Emit::Exec, "exec",
                          "the executable artifact (.fsx) of the entry: "
                          "kernels' PTX and host plan (needs -o)")),
    cl::cat(fusecCategory));

cl::opt<bool> noFold("no-fold",
                     cl::desc("Do not fold concatenate/split/slice pairs"),
                     cl::init(false), cl::cat(fusecCategory));

cl::opt<bool> noFuse("no-fuse", cl::desc("Do not fuse operations into kernels"),
                     cl::init(false), cl::cat(fusecCategory));

cl::opt<int64_t> fusionLaunchCost(
    "fusion-launch-cost-bytes",
    cl::desc("Fusion cost model: a kernel launch, in bytes of traffic"),
    cl::init(16384), cl::cat(fusecCategory));
cl::opt<int64_t> fusionMaxOps("fusion-max-ops",
                              cl::desc("Most operations in one fusion"),
                              cl::init(256), cl::cat(fusecCategory));
cl::opt<bool> fusionMultiOutput("fusion-multi-output",
                                cl::desc("Form multi-output fusions"),
                                cl::init(true), cl::cat(fusecCategory));
cl::opt<bool> fusionDuplicate(
    "fusion-duplicate",
    cl::desc("Duplicate cheap producers into kernels when it saves traffic"),
    cl::init(true), cl::cat(fusecCategory));
cl::opt<int64_t> fusionReachabilityBudget(
    "fusion-reachability-budget",
    cl::desc("Visits allowed per cycle check of a multi-output fusion"),
    cl::init(4096), cl::cat(fusecCategory));

cl::OptionCategory precisionCategory("fusec mixed precision options");
cl::opt<std::string> mixedPrecision(
    "mixed-precision",
    cl::desc("Run f32 computations in f16 or bf16 where it is safe: off "
             "(default), f16 or bf16"),
    cl::value_desc("off|f16|bf16"), cl::init("off"),
    cl::cat(precisionCategory));
cl::opt<bool> keepIOLowPrecision(
    "keep-io-low-precision",
    cl::desc("With --mixed-precision, change f32 arguments and results of "
             "the functions to the low type"),
    cl::init(false), cl::cat(precisionCategory));
cl::list<std::string> mixedPrecisionAllow(
    "mixed-precision-allow", cl::CommaSeparated,
    cl::desc("Operations moved to the allow class (always low precision)"),
    cl::value_desc("op,..."), cl::cat(precisionCategory));
cl::list<std::string> mixedPrecisionInfer(
    "mixed-precision-infer", cl::CommaSeparated,
    cl::desc("Operations moved to the infer class (follow their inputs)"),
    cl::value_desc("op,..."), cl::cat(precisionCategory));
cl::list<std::string> mixedPrecisionDeny(
    "mixed-precision-deny", cl::CommaSeparated,
    cl::desc("Operations moved to the deny class (always f32)"),
    cl::value_desc("op,..."), cl::cat(precisionCategory));
cl::list<std::string> mixedPrecisionClear(
    "mixed-precision-clear", cl::CommaSeparated,
    cl::desc("Operations moved to the clear class (no numeric effect)"),
    cl::value_desc("op,..."), cl::cat(precisionCategory));

cl::OptionCategory trainCategory("fusec training options");
cl::opt<std::string> trainFunc(
    "train",
    cl::desc("Build <FUNC>_train_step from the loss function FUNC (first "
             "result a scalar loss, trainable arguments marked fusec.param); "
             "with --run, train on the given inputs"),
    cl::value_desc("FUNC"), cl::init(""), cl::cat(trainCategory));
cl::opt<std::string> optimizerName("optimizer",
                                   cl::desc("sgd (default, with momentum) or "
                                            "adam"),
                                   cl::value_desc("sgd|adam"), cl::init("sgd"),
                                   cl::cat(trainCategory));
cl::opt<double> learningRate("learning-rate",
                             cl::desc("Learning rate (default 0.01)"),
                             cl::init(0.01), cl::cat(trainCategory));
cl::opt<double> momentum("momentum",
                         cl::desc("SGD momentum (default 0.9; 0: plain SGD)"),
                         cl::init(0.9), cl::cat(trainCategory));
cl::opt<double> beta1("beta1",
                      cl::desc("Adam: first-moment decay (default 0.9)"),
                      cl::init(0.9), cl::cat(trainCategory));
cl::opt<double> beta2("beta2",
                      cl::desc("Adam: second-moment decay (default 0.999)"),
                      cl::init(0.999), cl::cat(trainCategory));
cl::opt<double> epsilon("epsilon",
                        cl::desc("Adam: denominator epsilon (default 1e-8)"),
                        cl::init(1e-8), cl::cat(trainCategory));
cl::opt<double> weightDecay("weight-decay",
                            cl::desc("L2 penalty added to the gradients "
                                     "(default 0)"),
                            cl::init(0), cl::cat(trainCategory));
cl::opt<std::string> lossScale(
    "loss-scale",
    cl::desc("Loss scaling: dynamic, static:VALUE or off (default: dynamic "
             "with --mixed-precision=f16, else off)"),
    cl::value_desc("mode"), cl::init("default"), cl::cat(trainCategory));
cl::opt<double> lossScaleInit("loss-scale-init",
                              cl::desc("Dynamic loss scaling: initial scale "
                                       "(default 65536)"),
                              cl::init(65536), cl::cat(trainCategory));
cl::opt<double>
    lossScaleGrowth("loss-scale-growth",
                    cl::desc("Dynamic loss scaling: growth factor (default "
                             "2)"),
                    cl::init(2), cl::cat(trainCategory));
cl::opt<double>
    lossScaleBackoff("loss-scale-backoff",
                     cl::desc("Dynamic loss scaling: backoff factor "
                              "(default 0.5)"),
                     cl::init(0.5), cl::cat(trainCategory));
cl::opt<int64_t> lossScaleInterval(
    "loss-scale-interval",
    cl::desc("Dynamic loss scaling: good steps before the scale grows "
             "(default 2000)"),
    cl::init(2000), cl::cat(trainCategory));
cl::opt<int64_t> trainSteps("steps",
                            cl::desc("Training steps run by --train --run "
                                     "(default 1)"),
                            cl::init(1), cl::cat(trainCategory));

cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass, not only after the pipeline "
             "(for debugging fusec itself)"),
    cl::init(false), cl::cat(fusecCategory));

cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public one)"),
              cl::value_desc("name"), cl::init(""), cl::cat(fusecCategory));

cl::opt<bool> runEntry("run", cl::desc("Execute the entry function"),
                       cl::init(false), cl::cat(fusecCategory));

cl::list<std::string>
    inputFiles("input",
               cl::desc("An .npy file per argument of the entry function, in "
                        "order"),
               cl::value_desc("path.npy"), cl::cat(fusecCategory));

cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("Directory for result0.npy, result1.npy, ... (default: .)"),
    cl::value_desc("dir"), cl::init("."), cl::cat(fusecCategory));

enum class Backend { Auto, Interp, GPU };
cl::opt<Backend> backend(
    "backend", cl::desc("Where --run executes"), cl::init(Backend::Auto),
    cl::values(clEnumValN(Backend::Auto, "auto",
                          "the GPU when available, otherwise the interpreter"),
               clEnumValN(Backend::Interp, "interp",
                          "the reference interpreter"),
               clEnumValN(Backend::GPU, "gpu", "the CUDA runtime")),
    cl::cat(fusecCategory));

cl::opt<std::string> gpuArch(
    "gpu-arch",
    cl::desc("GPU architecture of --emit=cuda/ptx/exec: sm_80, sm_90 or "
             "sm_100"),
    cl::init("sm_90"), cl::cat(fusecCategory));

cl::opt<bool> noKernelCache(
    "no-kernel-cache",
    cl::desc("Compile every kernel with NVRTC, without the kernel cache"),
    cl::init(false), cl::cat(fusecCategory));

cl::opt<std::string>
    kernelCacheDir("kernel-cache-dir",
                   cl::desc("Directory of the on-disk kernel cache (default: "
                            "$FUSEC_CACHE_DIR, else $XDG_CACHE_HOME/fusec or "
                            "~/.cache/fusec; 'off' keeps the cache in memory)"),
                   cl::value_desc("dir"), cl::init(""), cl::cat(fusecCategory));

cl::opt<std::string> kernelCacheSize(
    "kernel-cache-size",
    cl::desc("Most bytes the on-disk kernel cache keeps, with an optional "
             "K/M/G suffix; least recently used kernels are evicted "
             "(default: 256M)"),
    cl::value_desc("size"), cl::init("256M"), cl::cat(fusecCategory));

cl::opt<bool> compileStats(
    "compile-stats",
    cl::desc("Print kernel and cache statistics of code generation to "
             "stderr"),
    cl::init(false), cl::cat(fusecCategory));

cl::opt<bool> roundEveryOp(
    "fp16-round-each-op",
    cl::desc("In generated kernels, round f16/bf16 values after every "
             "operation like the interpreter (default: once, at the store)"),
    cl::init(false), cl::cat(fusecCategory));

cl::opt<unsigned> compileThreads(
    "compile-threads",
    cl::desc("Kernels compiled at once by NVRTC (default: one per core)"),
    cl::init(0), cl::cat(fusecCategory));

cl::opt<std::string> memoryLimit(
    "memory-limit",
    cl::desc("Most tensor memory --run may hold at once, in bytes with an "
             "optional K/M/G suffix (default: 90% of physical memory)"),
    cl::value_desc("size"), cl::init(""), cl::cat(fusecCategory));

/// Parses "1234", "64K", "512M", "8G".
std::optional<uint64_t> parseSize(StringRef text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      scale = 1ull << 10;
      break;
    case 'M':
      scale = 1ull << 20;
      break;
    case 'G':
      scale = 1ull << 30;
      break;
    default:
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.getAsInteger(10, value) || value > UINT64_MAX / scale)
    return std::nullopt;
  return value * scale;
}

/// The function to run: --entry, else the only public function.
FailureOr<func::FuncOp> findEntry(ModuleOp module) {
  if (!entryName.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!func)
      return module.emitError()
             << "no function named '" << entryName << "' in the module";
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  InFlightDiagnostic diag = module.emitError();
  if (candidates.empty())
    return diag << "the module has no public function to run";
  diag << "the module has " << candidates.size()
       << " public functions; choose one with --entry=NAME:";
  for (func::FuncOp f : candidates)
    diag << " " << f.getSymName();
  return diag;
}

/// One line per result: where it went, its type and value statistics.
void printSummary(llvm::raw_ostream &os, StringRef name,
                  const fusec::Buffer &b) {
  os << name << ": " << fusec::dtypeName(b.dtype()) << "["
     << fusec::formatShape(b.shape()) << "]";
  int64_t n = b.numElements();
  if (n == 0) {
    os << " (empty)\n";
    return;
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t finite = 0, nans = 0, infs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = b.getAsDouble(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    if (std::isinf(v))
      ++infs;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (!std::isinf(v)) {
      sum += v;
      ++finite;
    }
  }
  if (nans == n) {
    os << " all NaN\n";
    return;
  }
  os << llvm::format(" min %g max %g", lo, hi);
  if (finite)
    os << llvm::format(" mean %g", sum / double(finite));
  if (nans)
    os << " nan " << nans;
  if (infs)
    os << " inf " << infs;
  os << "\n";
}

/// Reads one --input per argument of `func`, checked against its type.
LogicalResult readInputs(func::FuncOp func, fusec::Interpreter &interpreter,
                         SmallVectorImpl<fusec::Buffer> &args) {
  FunctionType type = func.getFunctionType();
  if (inputFiles.size() != type.getNumInputs())
    return func.emitError()
           << "'" << func.getSymName() << "' takes " << type.getNumInputs()
           << " argument(s) but " << inputFiles.size()
           << " --input file(s) were given";
  for (auto [i, path] : llvm::enumerate(inputFiles)) {
    std::string error;
    fusec::Buffer buffer =
        fusec::readNpy(path, error, &interpreter.getAllocator());
    Location argLoc = func.getArgument(i).getLoc();
    if (!buffer)
      return emitError(argLoc) << "argument #" << i << " of '"
                               << func.getSymName() << "': " << error;
    if (std::optional<std::string> why =
            fusec::mismatchWithType(buffer, type.getInput(i)))
      return emitError(argLoc)
             << "argument #" << i << " of '" << func.getSymName()
             << "' of type " << type.getInput(i) << " does not match " << path
             << ": " << *why;
    args.push_back(std::move(buffer));
  }
  return success();
}

/// Writes result0.npy, result1.npy, ... to --output-dir and summarizes
/// each.
LogicalResult writeResults(ModuleOp module, ArrayRef<fusec::Buffer> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return module.emitError() << "cannot create output directory '" << outputDir
                              << "': " << ec.message();
  for (auto [i, result] : llvm::enumerate(results)) {
    SmallString<256> path(outputDir);
    std::string name = "result" + std::to_string(i) + ".npy";
    llvm::sys::path::append(path, name);
    std::string error;
    if (!fusec::writeNpy(std::string(path), result, error))
      return module.emitError() << error;
    printSummary(llvm::outs(), path, result);
  }
  return success();
}

FailureOr<fusec::InterpreterOptions> interpreterOptions(ModuleOp module) {
  fusec::InterpreterOptions options;
  if (!memoryLimit.empty()) {
    std::optional<uint64_t> limit = parseSize(memoryLimit);
    if (!limit || *limit == 0)
      return module.emitError()
             << "invalid --memory-limit '" << memoryLimit
             << "': expected a positive byte count with an optional K/M/G "
                "suffix";
    options.memoryLimit = *limit;
  }
  return options;
}

/// A buffer of `type` with every element `value` (the fusec.init of a
/// training state argument).
FailureOr<fusec::Buffer> splatBuffer(fusec::Interpreter &interpreter,
                                     Location loc, Type type, Attribute value) {
  auto tensor = cast<RankedTensorType>(type);
  std::optional<fusec::DType> dtype = fusec::toDType(tensor.getElementType());
  std::string error;
  fusec::Buffer buffer;
  if (dtype)
    buffer = interpreter.getAllocator().allocate(
        *dtype,
        fusec::Shape(tensor.getShape().begin(), tensor.getShape().end()),
        error);
  if (!buffer)
    return emitError(loc) << "cannot allocate training state: " << error;
  int64_t n = buffer.numElements();
  if (auto f = dyn_cast<FloatAttr>(value); f && *dtype == fusec::DType::F32) {
    std::fill_n(buffer.as<float>(), n, float(f.getValueAsDouble()));
  } else if (auto i = dyn_cast<IntegerAttr>(value);
             i && *dtype == fusec::DType::I32) {
    std::fill_n(buffer.as<int32_t>(), n, int32_t(i.getInt()));
  } else {
    return emitError(loc) << "unsupported initial value " << value
                          << " for training state of type " << type;
  }
  return buffer;
}

/// --train=FUNC --run: runs FUNC_train_step --steps times, feeding each
/// step's updated parameters and state to the next; prints the loss per
/// step and writes the final parameters.
LogicalResult trainModule(ModuleOp module) {
  auto lossFunc = module.lookupSymbol<func::FuncOp>(trainFunc);
  auto step = module.lookupSymbol<func::FuncOp>(trainFunc + "_train_step");
  if (!lossFunc || !step)
    return module.emitError() << "no training step for '" << trainFunc << "'";
  FailureOr<fusec::InterpreterOptions> options = interpreterOptions(module);
  if (failed(options))
    return failure();
  // Before training, not after N steps of it.
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return module.emitError() << "cannot create output directory '" << outputDir
                              << "': " << ec.message();
  fusec::Interpreter interpreter(*options);
  SmallVector<fusec::Buffer> args;
  if (failed(readInputs(lossFunc, interpreter, args)))
    return failure();
  for (unsigned i = args.size(); i < step.getNumArguments(); ++i) {
    FailureOr<fusec::Buffer> init =
        splatBuffer(interpreter, step.getArgument(i).getLoc(),
                    step.getArgument(i).getType(),
                    step.getArgAttr(i, fusec::kInitAttrName));
    if (failed(init))
      return failure();
    args.push_back(std::move(*init));
  }
  // Which result replaces which argument, and which are reported.
  SmallVector<int64_t> updates(step.getNumResults(), -1);
  int64_t scaleResult = -1, skippedResult = -1;
  for (unsigned r = 0; r < step.getNumResults(); ++r) {
    if (auto arg =
            step.getResultAttrOfType<IntegerAttr>(r, fusec::kUpdatesAttrName))
      updates[r] = arg.getInt();
    if (step.getResultAttr(r, fusec::kLossScaleAttrName))
      scaleResult = r;
    if (step.getResultAttr(r, fusec::kSkippedAttrName))
      skippedResult = r;
  }
  // The scale a step uses is its argument (the result is the next one's).
  int64_t scaleArg = scaleResult >= 0 ? updates[scaleResult] : -1;
  int64_t skipped = 0;
  for (int64_t k = 1; k <= trainSteps; ++k) {
    double scale = scaleArg >= 0 ? args[scaleArg].getAsDouble(0) : 0;
    FailureOr<SmallVector<fusec::Buffer>> results = interpreter.run(step, args);
    if (failed(results))
      return failure();
    llvm::outs() << "step " << k << ": loss "
                 << llvm::format("%g", (*results)[0].getAsDouble(0));
    if (scaleArg >= 0)
      llvm::outs() << " scale " << llvm::format("%g", scale);
    if (skippedResult >= 0 && (*results)[skippedResult].getAsDouble(0)) {
      ++skipped;
      llvm::outs() << " skipped (non-finite gradients)";
    }
    llvm::outs() << "\n";
    for (auto [r, arg] : llvm::enumerate(updates))
      if (arg >= 0)
        args[arg] = std::move((*results)[r]);
  }
  llvm::outs() << trainSteps << " steps";
  if (skippedResult >= 0)
    llvm::outs() << ", " << skipped << " skipped";
  llvm::outs() << "\n";
  SmallVector<fusec::Buffer> params;
  for (unsigned i = 0; i < lossFunc.getNumArguments(); ++i)
    if (lossFunc.getArgAttr(i, fusec::kParamAttrName))
      params.push_back(args[i]);
  return writeResults(module, params);
}

/// --run: read inputs, interpret, write results.
LogicalResult runModule(ModuleOp module) {
  if (backend == Backend::GPU)
    return module.emitError()
           << "--backend=gpu is not available in this build of fusec; use "
              "--backend=interp or auto";
  if (!trainFunc.empty())
    return trainModule(module);
  FailureOr<func::FuncOp> entry = findEntry(module);
  if (failed(entry))
    return failure();
  func::FuncOp func = *entry;
  FailureOr<fusec::InterpreterOptions> options = interpreterOptions(module);
  if (failed(options))
    return failure();
  fusec::Interpreter interpreter(*options);
  SmallVector<fusec::Buffer> args;
  if (failed(readInputs(func, interpreter, args)))
    return failure();
  FailureOr<SmallVector<fusec::Buffer>> results = interpreter.run(func, args);
  if (failed(results))
    return failure();
  return writeResults(module, *results);
}

bool isCodegen() {
  return emit == Emit::Cuda || emit == Emit::Ptx || emit == Emit::Exec;
}

/// --emit=cuda/ptx/exec: the entry function's kernels and plan, written to
/// `os`.
LogicalResult generateCode(ModuleOp module, llvm::raw_ostream &os) {
  FailureOr<func::FuncOp> entry = findEntry(module);
  if (failed(entry))
    return failure();
  fusec::CompileOptions options;
  std::optional<fusec::TargetInfo> target = fusec::TargetInfo::get(gpuArch);
  if (!target)
    return module.emitError()
           << "unsupported --gpu-arch '" << gpuArch
           << "' (supported: " << fusec::TargetInfo::supportedList() << ")";
  options.target = *target;
  options.codegen.roundEveryOp = roundEveryOp;
  options.threads = compileThreads;
  FailureOr<fusec::CompiledFunction> compiled =
      fusec::planFunction(*entry, options);
  if (failed(compiled))
    return failure();
  if (emit == Emit::Cuda) {
    os << compiled->cudaSource();
    return success();
  }

  std::optional<fusec::KernelCache> cache;
  if (!noKernelCache) {
    std::string dir = kernelCacheDir.empty()
                          ? fusec::KernelCache::defaultDirectory()
                          : std::string(kernelCacheDir);
    if (StringRef(dir).equals_insensitive("off"))
      dir.clear();
    std::optional<uint64_t> size = parseSize(kernelCacheSize);
    if (!size || *size == 0)
      return module.emitError()
             << "invalid --kernel-cache-size '" << kernelCacheSize
             << "': expected a positive byte count with an optional K/M/G "
                "suffix";
    cache.emplace(dir, *size);
    options.cache = &*cache;
  }
  auto printStats = [&](const fusec::CompileStats &stats) {
    if (!compileStats)
      return;
    llvm::errs() << llvm::format(
        "fusec: %lld launches, %lld distinct kernels in %lld PTX modules, "
        "%lld matmuls; %lld modules from the kernel cache, %lld compiled by "
        "NVRTC (%.1f ms NVRTC, %.1f ms wall)\n",
        (long long)stats.launches, (long long)stats.distinctKernels,
        (long long)stats.modules, (long long)stats.matmuls,
        (long long)stats.cacheHits, (long long)stats.compiled,
        stats.nvrtcSeconds * 1e3, stats.wallSeconds * 1e3);
    if (cache)
      llvm::errs() << "fusec: kernel cache: "
                   << (cache->directory().empty() ? "(memory only)"
                                                  : cache->directory())
                   << "\n";
  };
  if (emit == Emit::Ptx) {
    // All kernels as one program: one PTX module a user can read and
    // assemble with ptxas.
    fusec::CompiledFunction whole;
    whole.executable = compiled->executable;
    fusec::KernelSource all;
    all.name = entry->getSymName().str();
    std::string source = compiled->cudaSource();
    all.body = source.substr(std::strlen(fusec::cudaPrelude()));
    whole.kernels.push_back(all);
    whole.kernelOrigins.push_back(*entry);
    if (failed(fusec::compileToPtx(whole, options, entry->getLoc())))
      return failure();
    whole.stats.launches = compiled->stats.launches;
    whole.stats.distinctKernels = compiled->stats.distinctKernels;
    whole.stats.matmuls = compiled->stats.matmuls;
    printStats(whole.stats);
    os << whole.executable.ptx.front();
    return success();
  }
  if (failed(fusec::compileToPtx(*compiled, options, entry->getLoc())))
    return failure();
  printStats(compiled->stats);
  os << fusec::rt::serializeExecutable(compiled->executable);
  return success();
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "fusec: error: " << errorMessage << "\n";
    return failure();
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());

  // Count errors, so that a parser that fails without saying why (some of
  // upstream's custom parsers) still gets a diagnostic.
  int64_t errors = 0;
  DiagnosticEngine::HandlerID counter =
      context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          ++errors;
        return failure(); // Let the source manager handler print it.
      });
  auto noteSilentFailure = [&](StringRef what) {
    if (!errors)
      llvm::errs() << inputFilename << ": error: " << what << "\n";
  };

  // Parse without verifying first: a few upstream TOSA verifiers crash on
  // inputs they should reject, so those are checked for beforehand.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module) {
    noteSilentFailure("cannot parse the model");
    return failure();
  }
  if (failed(fusec::checkTosaBeforeVerification(*module)) ||
      failed(verify(*module))) {
    noteSilentFailure("the model is not valid");
    return failure();
  }
  context.getDiagEngine().eraseHandler(counter);
  if (!trainFunc.empty()) {
    auto loss = module->lookupSymbol<func::FuncOp>(trainFunc);
    if (!loss) {
      llvm::errs() << "fusec: error: --train=" << trainFunc
                   << ": there is no function named '" << trainFunc << "' in "
                   << inputFilename << "\n";
      return failure();
    }
    // The inliner that runs first deletes private functions nobody calls;
    // the function being trained is used.
    loss.setPublic();
  }

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();
  pm.enableTiming(timing);
  fusec::FusecPipelineOptions pipelineOptions;
  pipelineOptions.fold = !noFold;
  // The report and the graph describe the fusion plan, made below.
  pipelineOptions.fuse = (!noFuse && emit == Emit::MLIR) || isCodegen();
  pipelineOptions.fusionLaunchCostBytes = fusionLaunchCost;
  pipelineOptions.fusionMaxOps = fusionMaxOps;
  pipelineOptions.fusionMultiOutput = fusionMultiOutput;
  pipelineOptions.fusionDuplicate = fusionDuplicate;
  pipelineOptions.inlineCalls = isCodegen();
  if (isCodegen() && noFuse) {
    // Code generation needs every operation in a fusion: one each.
    pipelineOptions.fusionMaxOps = 1;
    pipelineOptions.fusionMultiOutput = false;
    pipelineOptions.fusionDuplicate = false;
  }
  if (emit == Emit::Exec && outputFilename.empty()) {
    llvm::errs() << "fusec: error: --emit=exec writes a binary file: give "
                    "it a name with -o (or -o - for stdout)\n";
    return failure();
  }
  pipelineOptions.fusionReachabilityBudget = fusionReachabilityBudget;
  if (mixedPrecision != "off" && mixedPrecision != "f16" &&
      mixedPrecision != "bf16") {
    llvm::errs() << "fusec: error: --mixed-precision='" << mixedPrecision
                 << "': expected off, f16 or bf16\n";
    return failure();
  }
  pipelineOptions.mixedPrecision = mixedPrecision;
  pipelineOptions.train = trainFunc;
  pipelineOptions.optimizer = optimizerName;
  pipelineOptions.learningRate = learningRate;
  pipelineOptions.momentum = momentum;
  pipelineOptions.beta1 = beta1;
  pipelineOptions.beta2 = beta2;
  pipelineOptions.epsilon = epsilon;
  pipelineOptions.weightDecay = weightDecay;
  pipelineOptions.lossScale = lossScale;
  pipelineOptions.lossScaleInit = lossScaleInit;
  pipelineOptions.lossScaleGrowth = lossScaleGrowth;
  pipelineOptions.lossScaleBackoff = lossScaleBackoff;
  pipelineOptions.lossScaleInterval = lossScaleInterval;
  if (!trainFunc.empty()) {
    // Differentiation does not go through calls.
    pipelineOptions.inlineCalls = true;
    if (entryName.empty())
      entryName = trainFunc + "_train_step";
  }
  if (trainSteps < 0) {
    llvm::errs() << "fusec: error: --steps must not be negative\n";
    return failure();
  }
  pipelineOptions.keepIOLowPrecision = keepIOLowPrecision;
  pipelineOptions.mixedPrecisionAllow = mixedPrecisionAllow;
  pipelineOptions.mixedPrecisionInfer = mixedPrecisionInfer;
  pipelineOptions.mixedPrecisionDeny = mixedPrecisionDeny;
  pipelineOptions.mixedPrecisionClear = mixedPrecisionClear;
  fusec::buildFusecPipeline(pm, pipelineOptions);
  pm.enableVerifier(verifyEach);
  if (failed(pm.run(*module)) || failed(verify(*module)))
    return failure();

  if (runEntry && failed(runModule(*module)))
    return failure();

  if (runEntry && outputFilename.empty())
    return success();
  std::string out = outputFilename.empty() ? "-" : std::string(outputFilename);
  // Generated first, so that a failure writes nothing.
  std::string generated;
  if (isCodegen()) {
    llvm::raw_string_ostream os(generated);
    if (failed(generateCode(*module, os)))
      return failure();
  }
  // writeToOutput writes to a temporary file and renames it, so a failure
  // never leaves a half-written output.
  llvm::Error err = llvm::writeToOutput(out, [&](llvm::raw_ostream &os) {
    if (emit == Emit::MLIR) {
      module->print(os);
      return llvm::Error::success();
    }
    if (isCodegen()) {
      os << generated;
      return llvm::Error::success();
    }
    fusec::FusionOptions options = fusec::getFusionOptions(pipelineOptions);
    // Several functions share one digraph, a cluster each.
    int64_t bodies =
        llvm::count_if(module->getOps<func::FuncOp>(),
                       [](func::FuncOp f) { return !f.isExternal(); });
    bool sharedGraph = emit == Emit::Dot && bodies > 1;
    if (sharedGraph)
      os << "digraph fusec {\n  rankdir=TB;\n"
         << "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    int64_t index = 0;
    for (auto func : module->getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Block &body = func.getBody().front();
      int64_t kernels = fusec::countKernels(body);
      fusec::FusionPlan plan;
      if (!noFuse) {
        fusec::prepareForFusion(body, options);
        plan = fusec::planFusion(body, options);
      } else {
        plan.kernelsAfter = kernels;
      }
      plan.kernelsBefore = kernels;
      if (emit == Emit::Report)
        fusec::printFusionReport(os, func, plan);
      else
        fusec::printFusionDot(os, func, plan,
                              sharedGraph ? "f" + std::to_string(index++) + "_"
                                          : "");
    }
    if (sharedGraph)
      os << "}\n";
    return llvm::Error::success();
  });
  if (err) {
    llvm::errs() << "fusec: error: cannot write '" << out
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return failure();
  }
  return success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  tracing::DebugCounter::registerCLOptions();
  fusec::registerAllPasses();
  // libLLVM registers hundreds of codegen flags; keep --help to fusec's own
  // options and MLIR's standard --mlir-* ones (the rest: --help-hidden).
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::any_of(option->Categories, [](cl::OptionCategory *c) {
      return c == &fusecCategory || c == &precisionCategory ||
             c == &trainCategory;
    });
    bool generic = entry.first == "help" || entry.first == "version";
    if (!ours && !generic && !entry.first.starts_with("mlir-"))
      option->setHiddenFlag(cl::Hidden);
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "fusec: kernel-fusion and mixed-precision compiler for tensor graphs\n");

  DialectRegistry registry;
  fusec::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic form of the whole
  // offending op is noise for users unless they ask for it.
  cl::Option *printOp =
      cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  if (!printOp || !printOp->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  return failed(compile(context, sourceMgr)) ? 1 : 0;
}
