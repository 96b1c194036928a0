//===- HostExecutor.h - Run an executable's plan on the CPU -----*- C++ -*-===//
//
// Executes an rt::Executable on the CPU: the kernels are the generated CUDA
// C++ compiled for the host (with -DFUSEC_HOST, through
// fusec/Runtime/HostCuda.h, into a shared library exporting
// `<kernel>_host(grid, block, args)`), the matrix products the reference
// kernels. It follows the plan exactly as a GPU runtime does (buffers,
// views, launch order, grid and block sizes, arguments), which is how the
// plan and every generated kernel are tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_HOSTEXECUTOR_H
#define FUSEC_RUNTIME_HOSTEXECUTOR_H

#include "fusec/Runtime/Executable.h"
#include "fusec/Support/Buffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::rt {

class HostKernels {
public:
  /// Opens the shared library at `path`; nullptr with `error` set on
  /// failure.
  static std::unique_ptr<HostKernels> open(const std::string &path,
                                           std::string &error);
  ~HostKernels();

  using Entry = void (*)(unsigned grid, unsigned block, void **args);
  /// The host entry of kernel `name`, or nullptr.
  Entry lookup(const std::string &name) const;

private:
  HostKernels() = default;
  void *handle = nullptr;
};

/// Runs `exe` on `inputs` (one per entry argument, dtype and shape
/// checked). Returns the outputs, or nullopt with `error` set.
std::optional<std::vector<Buffer>> runOnHost(const Executable &exe,
                                             const HostKernels &kernels,
                                             const std::vector<Buffer> &inputs,
                                             std::string &error);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_HOSTEXECUTOR_H
