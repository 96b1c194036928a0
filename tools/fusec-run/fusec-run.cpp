//===- fusec-run.cpp - Inspect and run an executable artifact -------------===//
//
//   fusec-run MODEL.fsx [--print-plan] [--dump-ptx DIR]
//             [--host-kernels KERNELS.so --input A.npy ... --output-dir DIR]
//
// Reads an .fsx written by `fusec --emit=exec` with no LLVM or MLIR in the
// process. --print-plan prints the buffers, kernels and steps; --dump-ptx
// writes each kernel's PTX to DIR/<kernel>.ptx; --host-kernels runs the plan
// on the CPU with the model's kernels compiled for the host (see
// docs/codegen.md) and writes result0.npy, result1.npy, ... Every error is
// one line "fusec-run: error: ..." and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/HostExecutor.h"
#include "fusec/Support/Npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace fusec;

namespace {

int fail(const std::string &message) {
  std::cerr << "fusec-run: error: " << message << "\n";
  return 1;
}

std::string typeOf(const rt::BufferDesc &b) {
  return std::string(dtypeName(b.dtype)) + "[" +
         formatShape(Shape(b.shape.begin(), b.shape.end())) + "]";
}

void printPlan(const rt::Executable &exe, std::ostream &os) {
  os << "executable '" << exe.entry << "' for " << exe.arch << ", format v"
     << exe.version << "\n";
  os << "buffers:\n";
  for (size_t i = 0; i < exe.buffers.size(); ++i) {
    const rt::BufferDesc &b = exe.buffers[i];
    os << "  #" << i << " " << b.name << ": " << rt::bufferKindName(b.kind);
    if (b.kind == rt::BufferKind::Input)
      os << " " << b.index;
    if (b.kind == rt::BufferKind::Alias)
      os << " of #" << b.index;
    os << " " << typeOf(b) << "\n";
  }
  os << "kernels:\n";
  for (size_t i = 0; i < exe.kernels.size(); ++i) {
    const rt::KernelDesc &k = exe.kernels[i];
    os << "  k" << i << " " << k.name << ": " << rt::kernelKindName(k.kind)
       << ", work " << k.work;
    if (k.kind != rt::KernelKind::Elementwise)
      os << " x " << k.rowLength;
    else
      os << ", vector " << k.vectorWidth;
    os << ", ptx " << exe.ptx[size_t(k.ptxIndex)].size() << " bytes\n";
  }
  os << "steps:\n";
  for (const rt::Step &step : exe.steps) {
    if (step.kind == rt::Step::Kind::Matmul) {
      os << "  matmul #" << step.matmul.a << " x #" << step.matmul.b << " -> #"
         << step.matmul.c << "\n";
      continue;
    }
    const rt::LaunchStep &l = step.launch;
    os << "  launch k" << l.kernel << " <<<" << l.gridSize << ", "
       << l.blockSize << ">>> (";
    for (size_t a = 0; a < l.args.size(); ++a)
      os << (a ? ", " : "") << "#" << l.args[a];
    os << ")\n";
  }
  os << "outputs:";
  for (int64_t o : exe.outputs)
    os << " #" << o;
  os << "\n";
}

} // namespace

int main(int argc, char **argv) {
  std::string model, outputDir = ".", hostKernels, dumpPtx;
  std::vector<std::string> inputs;
  bool plan = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag, std::string &out) {
      std::string prefix = std::string(flag) + "=";
      if (arg == flag) {
        if (i + 1 >= argc)
          return false;
        out = argv[++i];
        return true;
      }
      if (arg.compare(0, prefix.size(), prefix) == 0) {
        out = arg.substr(prefix.size());
        return true;
      }
      return false;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      std::cout
          << "usage: fusec-run MODEL.fsx [--print-plan] [--dump-ptx DIR]\n"
             "                 [--host-kernels KERNELS.so --input A.npy ... "
             "--output-dir DIR]\n";
      return 0;
    }
    if (arg == "--print-plan")
      plan = true;
    else if (value("--input", v))
      inputs.push_back(v);
    else if (value("--output-dir", v))
      outputDir = v;
    else if (value("--host-kernels", v))
      hostKernels = v;
    else if (value("--dump-ptx", v))
      dumpPtx = v;
    else if (!arg.empty() && arg[0] == '-')
      return fail("unknown or incomplete option '" + arg + "'");
    else if (model.empty())
      model = arg;
    else
      return fail("more than one model given: '" + model + "' and '" + arg +
                  "'");
  }
  if (model.empty())
    return fail("no model given (usage: fusec-run MODEL.fsx ...)");

  std::ifstream file(model, std::ios::binary);
  if (!file)
    return fail("cannot open '" + model + "': " + std::strerror(errno));
  std::stringstream bytes;
  bytes << file.rdbuf();
  std::string error;
  std::optional<rt::Executable> exe = rt::parseExecutable(bytes.str(), error);
  if (!exe)
    return fail(model + ": " + error);

  if (plan)
    printPlan(*exe, std::cout);
  if (!dumpPtx.empty()) {
    ::mkdir(dumpPtx.c_str(), 0755);
    for (const rt::KernelDesc &k : exe->kernels)
      if (!writeFileAtomically(dumpPtx + "/" + k.name + ".ptx",
                               exe->ptx[size_t(k.ptxIndex)], error))
        return fail(error);
  }
  if (hostKernels.empty()) {
    if (!inputs.empty())
      return fail("running a model needs --host-kernels (the GPU runtime "
                  "is not part of this build)");
    return 0;
  }

  std::unique_ptr<rt::HostKernels> kernels =
      rt::HostKernels::open(hostKernels, error);
  if (!kernels)
    return fail(error);
  std::vector<Buffer> args;
  for (const std::string &path : inputs) {
    Buffer b = readNpy(path, error);
    if (!b)
      return fail(path + ": " + error);
    args.push_back(std::move(b));
  }
  std::optional<std::vector<Buffer>> results =
      rt::runOnHost(*exe, *kernels, args, error);
  if (!results)
    return fail(model + ": " + error);
  ::mkdir(outputDir.c_str(), 0755);
  for (size_t i = 0; i < results->size(); ++i) {
    std::string path = outputDir + "/result" + std::to_string(i) + ".npy";
    if (!writeNpy(path, (*results)[i], error))
      return fail(error);
    std::cout << path << ": " << dtypeName((*results)[i].dtype()) << "["
              << formatShape((*results)[i].shape()) << "]\n";
  }
  return 0;
}
