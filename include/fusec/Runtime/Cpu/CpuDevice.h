//===- CpuDevice.h - Plans on the CPU, fast ---------------------*- C++ -*-===//
//
// The backend without a GPU (`--backend=cpu`): the executor's plan in one
// arena of host memory, each kernel's CPU form (fusec/Codegen/CpuEmitter.h,
// compiled once per machine by CpuCompiler.h) run over its work units on a
// thread pool, the matmul steps' calls through oneDNN (Cpu/CpuGemm.h; on the
// reference GEMM where oneDNN is missing or lacks a kernel, which the
// report says), convolution steps as oneDNN convolutions (Cpu/CpuConv.h;
// as their gather kernel and matmul where oneDNN does not compute them). Small
// kernels run on the calling thread, where waking the pool costs more than the
// work. Temporaries are not poisoned.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CPU_CPUDEVICE_H
#define FUSEC_RUNTIME_CPU_CPUDEVICE_H

#include "fusec/Runtime/Cpu/CpuCompiler.h"
#include "fusec/Runtime/Cpu/ThreadPool.h"
#include "fusec/Runtime/Host/InProcessDevice.h"

#include <memory>
#include <mutex>
#include <string>

namespace fusec::rt {

struct CpuDeviceOptions {
  /// Threads in all (the caller's included); 0: the CPUs this process may
  /// use.
  int threads = 0;
  CpuCompilerOptions compiler;
};

class CpuDevice final : public InProcessDevice {
public:
  explicit CpuDevice(const CpuDeviceOptions &options);

  std::string name() const override;
  bool poisonsTemporaries() const override { return false; }
  std::string replayDescription() const override;
  std::unique_ptr<DeviceKernels> loadKernels(const Executable &exe,
                                             std::string &error) override;
  int threads() const { return pool.size(); }

private:
  Closure launchClosure(const DeviceKernels &kernels, int64_t kernel,
                        uint32_t grid, uint32_t block,
                        std::vector<void *> args) override;
  Closure matmulClosure(const MatmulCall &call, void *a, void *b, void *d,
                        void *bias) override;
  Closure convClosure(const ConvCall &call, void *input, void *filter,
                      void *output, void *bias) override;

  CpuDeviceOptions options;
  ThreadPool pool;
  /// The matmul calls recorded through the library and on the reference
  /// GEMM, and the convolutions recorded through the library and as their
  /// gather and product (for the report), with the first reason for each
  /// fallback.
  mutable std::mutex gemmMutex;
  int64_t libraryCalls = 0, referenceCalls = 0;
  int64_t libraryConvs = 0, gatheredConvs = 0;
  std::string gemmFallback, convFallback;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CPU_CPUDEVICE_H
