//===- repeated_compile.cpp - Many models compiled in one process --------===//
//
// The "every model I build makes the next one slower" benchmark: compiles
// N different small TOSA models, one after another, through the library
// (Session, CompiledModel, then the .fsx artifact: pipeline, kernel
// planning, CUDA C++, NVRTC through the kernel cache, serialization), once
// with one shared Session (one MLIRContext) and once with a Session per
// model, and prints for each
//
//   the mean time per compile of the first 100 and of the last 100 measured
//   models, and their ratio (goal <= 1.05);
//   resident memory and heap in use after the first 100 and at the end, and
//   their growth (goal <= 20 MB).
//
// The models differ in their constants (new attributes in the context for
// every model) and are drawn from a few structures (activation, rows,
// with or without a reduction), so their kernels repeat: a warm-up compiles
// one model of each structure first, unmeasured, so that NVRTC runs there
// and the measured compiles take their kernels from the on-disk cache (a
// fresh directory under the system's temporary directory), as a service
// compiling its users' models would. --stage=cuda stops at the CUDA C++
// (no NVRTC, no cache); --distinct-kernels gives every model kernels of its
// own (small constants, copied into the kernels), so that NVRTC compiles
// for every model (about 50 ms each: use --count 1000).
//
//   repeated_compile [--count N] [--mode shared|per-model|both]
//                    [--stage exec|cuda] [--distinct-kernels]
//
// Nothing is asserted; the figures are read off the output.
//
//===----------------------------------------------------------------------===//

#include "fusec/Driver/CompiledModel.h"
#include "fusec/Driver/Session.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace fusec;

namespace {

constexpr int kActivations = 4, kRowChoices = 3;
constexpr int kStructures = kActivations * kRowChoices * 2;
constexpr int kWindow = 100;
/// 32: wider than --fusion-inline-constant-elements, so the constants are
/// buffers the kernels read and the kernels repeat; 8 (--distinct-kernels):
/// tables in the kernels' source, so every model's kernels are new and go
/// through NVRTC.
int constantWidth = 32;

/// Model `i`: structure i % kStructures, constants unique to i.
std::string modelText(int64_t i) {
  static const char *activations[kActivations] = {"tanh", "sigmoid", "exp",
                                                  "abs"};
  static const int rowChoices[kRowChoices] = {4, 16, 64};
  int s = int(i % kStructures);
  const char *act = activations[s % kActivations];
  int rows = rowChoices[(s / kActivations) % kRowChoices];
  bool reduce = s / (kActivations * kRowChoices);
  auto constant = [&](int salt) {
    std::string values;
    for (int k = 0; k < constantWidth; ++k) {
      // Distinct for every model (i / 1024 survives 6 decimals).
      double v = double(i) / 1024.0 + salt * 0.25 + k * 0.0078125;
      values += (k ? ", " : "") + std::to_string(v);
    }
    return values;
  };
  std::string x = "tensor<" + std::to_string(rows) + "x" +
                  std::to_string(constantWidth) + "xf32>";
  std::string out = reduce ? "tensor<" + std::to_string(rows) + "x1xf32>" : x;
  std::string t;
  llvm::raw_string_ostream os(t);
  os << "func.func @model_" << i << "(%x: " << x << ") -> " << out << " {\n"
     << "  %b = \"tosa.const\"() <{values = dense<[[" << constant(0)
     << "]]> : tensor<1x" << constantWidth << "xf32>}> : () -> tensor<1x"
     << constantWidth << "xf32>\n"
     << "  %s = \"tosa.const\"() <{values = dense<[[" << constant(1)
     << "]]> : tensor<1x" << constantWidth << "xf32>}> : () -> tensor<1x"
     << constantWidth << "xf32>\n"
     << "  %shift = \"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : "
        "() -> tensor<1xi8>\n"
     << "  %0 = tosa.add %x, %b : (" << x << ", tensor<1x" << constantWidth
     << "xf32>) -> " << x << "\n"
     << "  %1 = tosa." << act << " %0 : (" << x << ") -> " << x << "\n"
     << "  %2 = tosa.mul %1, %s, %shift : (" << x << ", tensor<1x"
     << constantWidth << "xf32>, tensor<1xi8>) -> " << x << "\n";
  if (reduce)
    os << "  %3 = tosa.reduce_sum %2 {axis = 1 : i32} : (" << x << ") -> "
       << out << "\n  return %3 : " << out << "\n}\n";
  else
    os << "  return %2 : " << x << "\n}\n";
  return t;
}

struct Memory {
  double residentMiB = 0, heapMiB = 0;
  static Memory now() {
    Memory m;
    long pages = 0, resident = 0;
    if (FILE *f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
      std::fclose(f);
    }
    m.residentMiB =
        double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
    struct mallinfo2 info = mallinfo2();
    m.heapMiB = double(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
    return m;
  }
};

enum class Stage { Exec, Cuda };

/// Compiles model `i` in `session`; false (with the diagnostics printed)
/// on failure.
bool compileOne(Session &session, int64_t i, Stage stage,
                const std::vector<std::string> &options) {
  auto report = [&] {
    for (const Diagnostic &d : session.takeDiagnostics())
      llvm::errs() << d.rendered << "\n";
    return false;
  };
  std::string name = "model_" + std::to_string(i) + ".mlir";
  mlir::FailureOr<Model> model = session.loadBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(modelText(i), name));
  if (mlir::failed(model))
    return report();
  Invocation invocation;
  std::string error;
  if (!parseInvocationOptions(options, invocation, error)) {
    llvm::errs() << "repeated_compile: " << error << "\n";
    return false;
  }
  mlir::FailureOr<std::unique_ptr<CompiledModel>> compiled =
      CompiledModel::compile(session, std::move(*model), invocation);
  if (mlir::failed(compiled))
    return report();
  mlir::FailureOr<std::string> result = stage == Stage::Exec
                                            ? (*compiled)->artifact()
                                            : (*compiled)->cudaSource();
  if (mlir::failed(result) || result->empty())
    return report();
  return true;
}

double mean(const std::vector<double> &v, size_t from, size_t to) {
  double sum = 0;
  for (size_t k = from; k < to; ++k)
    sum += v[k];
  return sum / double(to - from);
}

/// One mode: false on a failed compile.
bool runMode(bool shared, int64_t count, Stage stage,
             const std::vector<std::string> &options) {
  std::optional<Session> sharedSession;
  if (shared)
    sharedSession.emplace();
  auto compile = [&](int64_t i) {
    if (shared)
      return compileOne(*sharedSession, i, stage, options);
    Session session;
    return compileOne(session, i, stage, options);
  };
  // Warm-up: one model of each structure (NVRTC runs here), unmeasured.
  for (int64_t i = 0; i < kStructures; ++i)
    if (!compile(i))
      return false;
  std::vector<double> ms;
  ms.reserve(size_t(count));
  Memory afterFirst, atEnd;
  using Clock = std::chrono::steady_clock;
  for (int64_t k = 0; k < count; ++k) {
    Clock::time_point start = Clock::now();
    if (!compile(kStructures + k))
      return false;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start)
                     .count());
    if (k + 1 == std::min<int64_t>(kWindow, count))
      afterFirst = Memory::now();
  }
  atEnd = Memory::now();
  size_t n = ms.size(), w = std::min<size_t>(kWindow, n);
  double first = mean(ms, 0, w), last = mean(ms, n - w, n);
  std::printf("%-10s %7lld %11.3f %10.3f %6.3f %9.1f %8.1f %7.1f %8.1f "
              "%7.1f %7.1f\n",
              shared ? "shared" : "per-model", (long long)count, first, last,
              last / first, afterFirst.residentMiB, atEnd.residentMiB,
              atEnd.residentMiB - afterFirst.residentMiB, afterFirst.heapMiB,
              atEnd.heapMiB, atEnd.heapMiB - afterFirst.heapMiB);
  std::fflush(stdout);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  int64_t count = 10000;
  std::string mode = "both";
  Stage stage = Stage::Exec;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    auto value = [&](const char *flag) -> const char * {
      size_t len = std::strlen(flag);
      if (arg.compare(0, len, flag) == 0 && arg.size() > len && arg[len] == '=')
        return argv[a] + len + 1;
      if (arg == flag && a + 1 < argc)
        return argv[++a];
      return nullptr;
    };
    if (const char *v = value("--count")) {
      count = std::atoll(v);
    } else if (const char *v = value("--mode")) {
      mode = v;
    } else if (const char *v = value("--stage")) {
      if (std::strcmp(v, "exec") && std::strcmp(v, "cuda")) {
        std::fprintf(stderr, "repeated_compile: --stage is exec or cuda\n");
        return 1;
      }
      stage = std::strcmp(v, "exec") ? Stage::Cuda : Stage::Exec;
    } else if (arg == "--distinct-kernels") {
      constantWidth = 8;
    } else {
      std::fprintf(stderr, "usage: repeated_compile [--count N] "
                           "[--mode shared|per-model|both] [--stage exec|cuda] "
                           "[--distinct-kernels]\n");
      return 1;
    }
  }
  if (count < 1 ||
      (mode != "shared" && mode != "per-model" && mode != "both")) {
    std::fprintf(stderr, "repeated_compile: bad --count or --mode\n");
    return 1;
  }
  llvm::SmallString<128> cacheDir;
  if (llvm::sys::fs::createUniqueDirectory("fusec-repeated", cacheDir)) {
    std::fprintf(stderr, "repeated_compile: cannot create a cache directory\n");
    return 1;
  }
  // The interpreter is the run backend: only the artifact is compiled for a
  // GPU, so no driver is needed. Each mode has a cache of its own, so the
  // second does not find the first one's kernels.
  auto options = [&](const char *mode) {
    return std::vector<std::string>{
        "--backend=interp",
        "--kernel-cache-dir=" + std::string(cacheDir) + "/" + mode,
        "--no-model-cache"};
  };
  std::printf("%d structures warmed up, then %lld models per mode, stage %s, "
              "%s kernels; kernel cache %s\n",
              kStructures, (long long)count,
              stage == Stage::Exec ? "exec (.fsx through NVRTC)" : "cuda",
              constantWidth == 8 ? "distinct" : "repeated", cacheDir.c_str());
  std::printf("%-10s %7s %11s %10s %6s %9s %8s %7s %8s %7s %7s\n", "mode",
              "models", "first ms", "last ms", "ratio", "RSS@100", "RSS end",
              "growth", "heap@100", "heap end", "growth");
  bool ok = true;
  if (mode != "per-model")
    ok = runMode(/*shared=*/true, count, stage, options("shared"));
  if (ok && mode != "shared")
    ok = runMode(/*shared=*/false, count, stage, options("per-model"));
  llvm::sys::fs::remove_directories(cacheDir);
  return ok ? 0 : 1;
}
