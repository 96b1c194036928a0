//===- fusec-run.cpp - Inspect and run an executable artifact -------------===//
//
//   fusec-run MODEL.fsx [--print-plan] [--dump-ptx DIR]
//             [--host-kernels KERNELS.so --input A.npy ... --output-dir DIR]
//             [--memory-limit SIZE]
//
// Reads an .fsx written by `fusec --emit=exec` with no LLVM or MLIR in the
// process. --print-plan prints the memory plan, buffers, kernels and steps;
// --dump-ptx writes each kernel's PTX to DIR/<kernel>.ptx; --host-kernels
// runs the plan on the host device (the model's kernels compiled for the
// CPU, docs/codegen.md) through the plan executor and writes result0.npy,
// result1.npy, ... Every error is one line "fusec-run: error: ..." and exit
// status 1.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Runtime/PlanPrinter.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"
#include "fusec/Support/Options.h"
#include "fusec/Support/Results.h"

#include <iostream>
#include <string>
#include <vector>

using namespace fusec;

namespace {

struct RunToolOptions {
  bool printPlan = false;
  std::string dumpPtx, hostKernels, outputDir = ".";
  std::vector<std::string> inputs;
  rt::ExecutionOptions execution;

  void bindOptions(OptionBinder &binder) {
    binder.group("fusec-run", "fusec-run options");
    binder.flag("print-plan", printPlan,
                "Print the memory plan, buffers, kernels and steps");
    binder.text("dump-ptx", dumpPtx,
                "Write each kernel's PTX to DIR/<kernel>.ptx", "DIR");
    binder.text("host-kernels", hostKernels,
                "Run on the host device with the kernels of this shared "
                "library (the model's --emit=cuda compiled with -DFUSEC_HOST)",
                "KERNELS.so");
    binder.list("input", inputs,
                "An .npy file per argument of the entry function, in order",
                "A.npy", /*commaSeparated=*/false);
    binder.text("output-dir", outputDir,
                "Directory for result0.npy, result1.npy, ...", "DIR");
    execution.bindOptions(binder);
  }
};

int fail(const std::string &message) {
  std::cerr << "fusec-run: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  RunToolOptions options;
  ArgumentParser parser("fusec-run", "fusec-run MODEL.fsx [options]");
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
  if (options.hostKernels.empty()) {
    if (!options.inputs.empty())
      return fail("running a model needs --host-kernels (the GPU runtime "
                  "is not part of this build)");
    return 0;
  }

  std::unique_ptr<rt::HostDevice> device =
      rt::HostDevice::create(options.hostKernels, error);
  if (!device)
    return fail(error);
  std::unique_ptr<rt::LoadedExecutable> loaded =
      rt::LoadedExecutable::load(*exe, *device, options.execution, error);
  if (!loaded)
    return fail(model + ": " + error);
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
  std::vector<std::string> lines;
  bool written = writeResults(options.outputDir, *results, lines, error);
  for (const std::string &line : lines)
    std::cout << line << "\n";
  return written ? 0 : fail(error);
}
