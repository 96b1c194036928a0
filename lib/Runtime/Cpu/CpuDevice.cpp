//===- CpuDevice.cpp - Plans on the CPU, fast -----------------------------===//

#include "fusec/Runtime/Cpu/CpuDevice.h"
#include "fusec/Runtime/Cpu/CpuConv.h"
#include "fusec/Runtime/Cpu/CpuGemm.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"

#include <cstdint>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// A kernel's bytes below which it runs on the calling thread.
constexpr int64_t kParallelBytes = int64_t(64) << 10;

using CpuEntry = void (*)(int64_t begin, int64_t end, void **args);

struct CpuKernel {
  CpuEntry entry = nullptr;
  int64_t units = 0;
  bool parallel = false;
};

class CpuKernels final : public DeviceKernels {
public:
  std::unique_ptr<CpuLibrary> library;
  std::vector<CpuKernel> kernels;
  std::string origin() const override {
    // (A plan of matmuls only loads no library.)
    if (!library)
      return "";
    return std::to_string(kernels.size()) + " CPU kernels " + library->origin();
  }
};

} // namespace

CpuDevice::CpuDevice(const CpuDeviceOptions &options)
    : options(options),
      pool(options.threads > 0 ? options.threads
                               : ThreadPool::availableCpus()) {}

std::string CpuDevice::name() const {
  return "the host CPU (" + std::to_string(pool.size()) +
         (pool.size() == 1 ? " thread)" : " threads)");
}

std::string CpuDevice::replayDescription() const {
  std::string out = "run step by step on the CPU, each kernel's units on " +
                    std::to_string(pool.size()) + " threads";
  std::lock_guard<std::mutex> lock(gemmMutex);
  if (libraryCalls && referenceCalls)
    out += "; matmuls through " + cpuGemmLibrary() +
           ", some calls on the reference GEMM (" + gemmFallback + ")";
  else if (libraryCalls)
    out += "; matmuls through " + cpuGemmLibrary();
  else if (referenceCalls)
    out += "; matmuls on the reference GEMM (" + gemmFallback + ")";
  if (libraryConvs && gatheredConvs)
    out += "; convolutions through " + cpuGemmLibrary() +
           ", some as their gather and matmul (" + convFallback + ")";
  else if (libraryConvs)
    out += "; convolutions through " + cpuGemmLibrary();
  else if (gatheredConvs)
    out += "; convolutions as their gather and matmul (" + convFallback + ")";
  return out;
}

std::unique_ptr<DeviceKernels> CpuDevice::loadKernels(const Executable &exe,
                                                      std::string &error) {
  auto loaded = std::make_unique<CpuKernels>();
  if (exe.kernels.empty())
    return loaded;
  if (exe.cpuSource.empty()) {
    error = "the executable has no CPU code for the cpu device (compile it "
            "again with this fusec's --emit=exec)";
    return nullptr;
  }
  loaded->library = compileCpuLibrary(exe.cpuSource, options.compiler, error);
  if (!loaded->library)
    return nullptr;
  for (const KernelDesc &k : exe.kernels) {
    CpuKernel kernel;
    kernel.entry =
        reinterpret_cast<CpuEntry>(loaded->library->lookup(k.name + "_cpu"));
    auto *units = static_cast<const int64_t *>(
        loaded->library->lookup(k.name + "_cpu_units"));
    if (!kernel.entry || !units) {
      error =
          "the executable's CPU code lacks " + quoteName(k.name + "_cpu", '\'');
      return nullptr;
    }
    kernel.units = *units;
    int64_t bytes = 0;
    for (const KernelParam &p : k.params)
      bytes += p.elements * int64_t(dtypeSize(p.dtype)); // (Validated.)
    kernel.parallel = bytes >= kParallelBytes && kernel.units > 1;
    loaded->kernels.push_back(kernel);
  }
  return loaded;
}

InProcessDevice::Closure CpuDevice::launchClosure(const DeviceKernels &kernels,
                                                  int64_t kernel, uint32_t,
                                                  uint32_t,
                                                  std::vector<void *> args) {
  CpuKernel k =
      static_cast<const CpuKernels &>(kernels).kernels[size_t(kernel)];
  if (!k.parallel)
    return [k, args]() mutable { k.entry(0, k.units, args.data()); };
  ThreadPool *threads = &pool;
  return [k, args, threads]() mutable {
    void **a = args.data();
    threads->parallelFor(
        k.units, [&](int64_t begin, int64_t end) { k.entry(begin, end, a); });
  };
}

InProcessDevice::Closure CpuDevice::matmulClosure(const MatmulCall &call,
                                                  void *a, void *b, void *d,
                                                  void *bias) {
  std::string why;
  std::shared_ptr<CpuGemm> gemm =
      prepareCpuGemm(call, pool.size(), a, b, d, bias, why);
  std::lock_guard<std::mutex> lock(gemmMutex);
  if (gemm) {
    ++libraryCalls;
    return [gemm] { gemm->run(); };
  }
  ++referenceCalls;
  if (gemmFallback.empty())
    gemmFallback = why;
  return [call, a, b, d, bias] { runReferenceGemm(call, a, b, d, bias); };
}

InProcessDevice::Closure CpuDevice::convClosure(const ConvCall &call,
                                                void *input, void *filter,
                                                void *output, void *bias) {
  std::string why;
  std::shared_ptr<CpuConv> conv =
      prepareCpuConv(call, pool.size(), input, filter, output, bias, why);
  std::lock_guard<std::mutex> lock(gemmMutex);
  if (!conv) {
    ++gatheredConvs;
    if (convFallback.empty())
      convFallback = why;
    return {};
  }
  ++libraryConvs;
  return [conv] { conv->run(); };
}
