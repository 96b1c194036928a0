//===- HostDevice.h - Plans on the CPU --------------------------*- C++ -*-===//
//
// A Device that runs an executable's plan on the CPU, exactly as a GPU
// runtime does (the same executor, arena layout, launch order, grid and
// block sizes, arguments): the kernels are the generated CUDA C++ compiled
// for the host (with -DFUSEC_HOST, through fusec/Runtime/Host/HostCuda.h,
// into a shared library exporting `<kernel>_host(grid, block, args)`), the
// matmul steps run their cuBLASLt calls on the reference GEMM
// (ReferenceGemm.h). It poisons every temporary when its live range
// starts. This is how the plan, every generated kernel and every cuBLASLt
// description are tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_HOST_HOSTDEVICE_H
#define FUSEC_RUNTIME_HOST_HOSTDEVICE_H

#include "fusec/Runtime/Host/InProcessDevice.h"

#include <functional>
#include <memory>
#include <string>

namespace fusec::rt {

class HostDevice final : public InProcessDevice {
public:
  /// A host device whose kernels come from the shared library at
  /// `kernelLibrary`; nullptr with `error` set when it cannot be loaded.
  static std::unique_ptr<HostDevice> create(const std::string &kernelLibrary,
                                            std::string &error);
  /// The host entry `<kernel>_host(grid, block, args)` of a kernel.
  using KernelEntry = void (*)(unsigned grid, unsigned block, void **args);
  /// A host device whose kernels `lookup` finds by name (nullptr when it
  /// has none): kernels linked into the process, as tests do.
  static std::unique_ptr<HostDevice>
  create(std::function<KernelEntry(const std::string &name)> lookup,
         std::string name);
  ~HostDevice() override;

  std::string name() const override;
  bool poisonsTemporaries() const override { return true; }
  std::string replayDescription() const override {
    return "run step by step on the CPU (cuBLASLt calls on the reference "
           "GEMM), temporaries poisoned";
  }
  std::unique_ptr<DeviceKernels> loadKernels(const Executable &exe,
                                             std::string &error) override;

private:
  Closure launchClosure(const DeviceKernels &kernels, int64_t kernel,
                        uint32_t grid, uint32_t block,
                        std::vector<void *> args) override;
  Closure matmulClosure(const MatmulCall &call, void *a, void *b, void *d,
                        void *bias) override;
  HostDevice(std::function<KernelEntry(const std::string &)> lookup,
             std::string source, void *handle);
  std::function<KernelEntry(const std::string &)> lookup;
  /// Where the kernels come from, for name().
  std::string source;
  /// The dlopen handle of the kernel library, or nullptr.
  void *handle;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_HOST_HOSTDEVICE_H
