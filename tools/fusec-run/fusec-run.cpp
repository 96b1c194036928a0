//===- fusec-run.cpp - Inspect and run an executable artifact -------------===//
//
//   fusec-run MODEL.fsx [--input A.npy ... --output-dir DIR]
//             [--backend=auto|gpu|cpu|host] [--host-kernels KERNELS.so]
//             [--device N] [--device-report] [--print-plan] [--dump-ptx DIR]
//   fusec-run --devices
//
// Reads an .fsx written by `fusec --emit=exec` with no LLVM or MLIR in the
// process and runs it through the plan executor: on a GPU (the CUDA
// device), or on the host device with the model's kernels compiled for the
// CPU (docs/codegen.md). --print-plan and --dump-ptx inspect it instead of
// running it, unless a run is asked for too. Every error is one line
// "fusec-run: error: ..." and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cpu/CpuDevice.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Runtime/PlanPrinter.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"
#include "fusec/Support/Options.h"
#include "fusec/Support/Results.h"
#include "fusec/Support/Version.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace fusec;

namespace {

enum class RunBackend { Auto, GPU, Cpu, Host };

struct RunToolOptions {
  RunBackend backend = RunBackend::Auto;
  bool printPlan = false;
  std::string dumpPtx, outputDir = ".";
  std::vector<std::string> inputs, inputSets;
  int64_t repeat = 0;
  rt::ExecutionOptions execution;

  void bindOptions(OptionBinder &binder) {
    binder.group("fusec-run", "fusec-run options");
    binder.flag("print-plan", printPlan,
                "Print the memory plan, buffers, kernels and steps");
    binder.text("dump-ptx", dumpPtx,
                "Write each kernel's PTX to DIR/<kernel>.ptx", "DIR");
    binder.choice(
        "backend", backend,
        {{RunBackend::Auto, "auto",
          "the host device with --host-kernels, else the GPU, else the cpu "
          "device"},
         {RunBackend::GPU, "gpu", "the GPU; see --devices"},
         {RunBackend::Cpu, "cpu",
          "the cpu device: the kernels' CPU forms, compiled for this "
          "machine, on --threads threads"},
         {RunBackend::Host, "host", "the host device (needs --host-kernels)"}},
        "Where the model runs");
    binder.list("input", inputs,
                "An .npy file per argument of the entry function, in order",
                "A.npy", /*commaSeparated=*/false);
    binder.text("output-dir", outputDir,
                "Directory for result0.npy, result1.npy, ...", "DIR");
    binder.list("input-sets", inputSets,
                "Run once per directory, each holding input0.npy, "
                "input1.npy, ...: the runs are pipelined (the next inputs "
                "upload while one computes); results go to "
                "OUTPUT-DIR/<k>/result0.npy, ...",
                "DIR");
    binder.integer("repeat", repeat,
                   "After the run, replay its steps N more times (3 of them "
                   "to warm up) and print the median and minimum time of one",
                   /*minimum=*/0);
    execution.bindOptions(binder);
  }
};

int fail(const std::string &message) {
  std::cerr << "fusec-run: error: " << message << "\n";
  return 1;
}

/// --input-sets: one pipelined run per directory.
int runSets(const RunToolOptions &options, rt::LoadedExecutable &loaded,
            const std::string &model) {
  if (!options.inputs.empty())
    return fail("--input and --input-sets exclude each other");
  std::string error;
  size_t n = loaded.executable().inputs.size();
  std::vector<std::vector<Buffer>> calls;
  for (const std::string &dir : options.inputSets) {
    std::vector<Buffer> args;
    for (size_t i = 0; i < n; ++i) {
      Buffer b = readNpy(dir + "/input" + std::to_string(i) + ".npy", error);
      if (!b)
        return fail(error);
      args.push_back(std::move(b));
    }
    calls.push_back(std::move(args));
  }
  std::optional<std::vector<std::vector<Buffer>>> results =
      loaded.runPipelined(calls, error);
  if (!results)
    return fail(model + ": " + error);
  for (size_t k = 0; k < results->size(); ++k) {
    std::vector<std::string> lines;
    bool written = writeResults(options.outputDir + "/" + std::to_string(k),
                                (*results)[k], lines, error);
    for (const std::string &line : lines)
      std::cout << line << "\n";
    if (!written)
      return fail(error);
  }
  if (options.execution.deviceReport)
    std::cout << loaded.report();
  return 0;
}

/// The device `options` ask for, or nullptr with the reason.
std::unique_ptr<rt::Device> openDevice(const RunToolOptions &options,
                                       std::string &error) {
  bool host = options.backend == RunBackend::Host ||
              (options.backend == RunBackend::Auto &&
               !options.execution.hostKernels.empty());
  rt::CpuDeviceOptions cpu;
  cpu.threads = int(std::min<int64_t>(options.execution.threads, 4096));
  if (options.backend == RunBackend::Cpu)
    return std::make_unique<rt::CpuDevice>(cpu);
  if (host) {
    if (options.execution.hostKernels.empty()) {
      error = "--backend=host needs --host-kernels (the model's --emit=cuda "
              "compiled for the CPU, docs/codegen.md)";
      return nullptr;
    }
    return rt::HostDevice::create(options.execution.hostKernels, error);
  }
  rt::CudaDeviceOptions cuda;
  cuda.ordinal = int(options.execution.device);
  cuda.graphs = options.execution.cudaGraphs;
  std::unique_ptr<rt::Device> device = rt::createCudaDevice(cuda, error);
  if (device)
    return device;
  error = "no usable GPU: " + error;
  std::string noCompiler;
  if (options.backend == RunBackend::Auto &&
      rt::haveCpuCompiler(cpu.compiler, noCompiler)) {
    std::cerr << "fusec-run: note: running on the cpu device: " << error
              << "\n";
    return std::make_unique<rt::CpuDevice>(cpu);
  }
  if (options.backend == RunBackend::Auto)
    error += ", and " + noCompiler;
  return nullptr;
}

int runTool(int argc, char **argv) {
  RunToolOptions options;
  ArgumentParser parser("fusec-run", "fusec-run MODEL.fsx [options]");
  parser.setVersion(
      [] { return fusec::versionLine() + "\n" + rt::describeCudaLibraries(); });
  options.bindOptions(parser);
  std::vector<std::string> positionals;
  std::string message;
  switch (parser.parse(argc, argv, positionals, message)) {
  case ArgumentParser::Result::Help:
    std::cout << message;
    return 0;
  case ArgumentParser::Result::Error:
    return fail(message);
  case ArgumentParser::Result::Ok:
    break;
  }
  if (options.execution.listDevices) {
    std::cout << rt::describeCudaDevices();
    return 0;
  }
  if (positionals.empty())
    return fail("no model given (usage: fusec-run MODEL.fsx ...)");
  if (positionals.size() > 1)
    return fail("more than one model given: '" + positionals[0] + "' and '" +
                positionals[1] + "'");
  const std::string &model = positionals[0];

  std::string error;
  std::optional<rt::Executable> exe = rt::readExecutableFile(model, error);
  if (!exe)
    return fail(error);
  if (options.printPlan)
    std::cout << rt::formatPlan(*exe);
  if (!options.dumpPtx.empty()) {
    if (!createDirectories(options.dumpPtx, error))
      return fail(error);
    for (const rt::KernelDesc &k : exe->kernels)
      if (!writeFileAtomically(options.dumpPtx + "/" + k.name + ".ptx",
                               exe->ptx[size_t(k.ptxIndex)], error))
        return fail(error);
  }
  // Inspecting alone does not run the model; anything about a run does.
  bool inspect = options.printPlan || !options.dumpPtx.empty();
  bool run =
      !inspect || !options.inputs.empty() || !options.inputSets.empty() ||
      !options.execution.hostKernels.empty() ||
      options.backend != RunBackend::Auto || options.execution.deviceReport;
  if (!run)
    return 0;

  std::unique_ptr<rt::Device> device = openDevice(options, error);
  if (!device)
    return fail(error);
  std::unique_ptr<rt::LoadedExecutable> loaded =
      rt::LoadedExecutable::load(*exe, *device, options.execution, error);
  if (!loaded)
    return fail(model + ": " + error);
  if (!options.inputSets.empty())
    return runSets(options, *loaded, model);
  std::vector<Buffer> args;
  for (const std::string &path : options.inputs) {
    Buffer b = readNpy(path, error);
    if (!b)
      return fail(error);
    args.push_back(std::move(b));
  }
  std::optional<std::vector<Buffer>> results = loaded->run(args, error);
  if (!results)
    return fail(model + ": " + error);
  if (options.execution.deviceReport)
    std::cout << loaded->report();
  if (options.execution.profile) {
    std::optional<std::string> profile = loaded->profile(error);
    if (!profile)
      return fail(model + ": " + error);
    std::cout << *profile;
  }
  if (options.repeat > 0) {
    std::optional<std::vector<double>> times =
        loaded->time(options.repeat + 3, error);
    if (!times)
      return fail(model + ": " + error);
    std::vector<double> t(times->begin() + 3, times->end());
    std::sort(t.begin(), t.end());
    std::printf("time: median %.6f ms, min %.6f ms over %zu replays\n",
                t[t.size() / 2] * 1e3, t.front() * 1e3, t.size());
  }
  std::vector<std::string> lines;
  bool written = writeResults(options.outputDir, *results, lines, error);
  for (const std::string &line : lines)
    std::cout << line << "\n";
  return written ? 0 : fail(error);
}

} // namespace

int main(int argc, char **argv) {
  int status = runTool(argc, argv);
  // What was printed must have reached stdout (a full disk, a closed pipe).
  errno = 0;
  std::cout.flush();
  if (!std::cout)
    return fail(std::string("<stdout>: cannot write") +
                (errno ? ": " + fusec::errnoMessage(errno) : ""));
  return status;
}
