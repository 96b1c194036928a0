//===- HostDevice.cpp - Plans on the CPU ----------------------------------===//

#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"

#include <dlfcn.h>
#include <link.h>

using namespace fusec;
using namespace fusec::rt;

namespace {

class HostKernels final : public DeviceKernels {
public:
  std::vector<HostDevice::KernelEntry> entries;
};

} // namespace

std::unique_ptr<HostDevice> HostDevice::create(const std::string &kernelLibrary,
                                               std::string &error) {
  // A name without a slash is a file here, not a library for the loader's
  // search path.
  std::string path = kernelLibrary.find('/') == std::string::npos
                         ? "./" + kernelLibrary
                         : kernelLibrary;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load host kernels '" + kernelLibrary +
            "': " + (why ? why : "unknown error");
    return nullptr;
  }
  // dlsym also searches the library's dependencies (libc...): only a
  // symbol defined in the kernel library itself is a kernel.
  struct link_map *self = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &self) != 0 || !self || !self->l_name) {
    error = "cannot inspect host kernels '" + kernelLibrary + "'";
    dlclose(handle);
    return nullptr;
  }
  auto lookup = [handle, library = std::string(self->l_name)](
                    const std::string &name) -> KernelEntry {
    void *symbol = dlsym(handle, (name + "_host").c_str());
    Dl_info where{};
    if (!symbol || !dladdr(symbol, &where) || !where.dli_fname ||
        library != where.dli_fname)
      return nullptr;
    return reinterpret_cast<KernelEntry>(symbol);
  };
  return std::unique_ptr<HostDevice>(
      new HostDevice(lookup, "kernels from " + kernelLibrary, handle));
}

std::unique_ptr<HostDevice>
HostDevice::create(std::function<KernelEntry(const std::string &)> lookup,
                   std::string name) {
  return std::unique_ptr<HostDevice>(
      new HostDevice(std::move(lookup), std::move(name), nullptr));
}

HostDevice::HostDevice(std::function<KernelEntry(const std::string &)> lookup,
                       std::string source, void *handle)
    : lookup(std::move(lookup)), source(std::move(source)), handle(handle) {}

HostDevice::~HostDevice() {
  if (handle)
    dlclose(handle);
}

std::string HostDevice::name() const { return "the host CPU (" + source + ")"; }

std::unique_ptr<DeviceKernels> HostDevice::loadKernels(const Executable &exe,
                                                       std::string &error) {
  auto kernels = std::make_unique<HostKernels>();
  for (const KernelDesc &k : exe.kernels) {
    KernelEntry entry = lookup(k.name);
    if (!entry) {
      error = "the host kernels lack " + quoteName(k.name + "_host", '\'') +
              ": were they compiled from this model's --emit=cuda?";
      return nullptr;
    }
    kernels->entries.push_back(entry);
  }
  return kernels;
}

InProcessDevice::Closure HostDevice::launchClosure(const DeviceKernels &kernels,
                                                   int64_t kernel,
                                                   uint32_t grid,
                                                   uint32_t block,
                                                   std::vector<void *> args) {
  KernelEntry entry =
      static_cast<const HostKernels &>(kernels).entries[size_t(kernel)];
  return
      [entry, grid, block, args]() mutable { entry(grid, block, args.data()); };
}

InProcessDevice::Closure HostDevice::matmulClosure(const MatmulCall &call,
                                                   void *a, void *b, void *d,
                                                   void *bias) {
  return [call, a, b, d, bias] { runReferenceGemm(call, a, b, d, bias); };
}
