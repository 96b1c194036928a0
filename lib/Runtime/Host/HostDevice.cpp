//===- HostDevice.cpp - Plans on the CPU ----------------------------------===//

#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"
#include "fusec/Support/Buffer.h"

#include <dlfcn.h>
#include <link.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace fusec;
using namespace fusec::rt;

namespace {

class HostMemory final : public DeviceMemory {
public:
  HostMemory(void *data, int64_t bytes) : data(data), bytes(bytes) {}
  ~HostMemory() override { std::free(data); }
  uint64_t address() const override { return uint64_t(uintptr_t(data)); }
  int64_t size() const override { return bytes; }

private:
  void *data;
  int64_t bytes;
};

using Entry = HostDevice::KernelEntry;

class HostKernels final : public DeviceKernels {
public:
  std::vector<Entry> entries;
};

class HostSteps final : public StepList {
public:
  std::vector<std::function<void()>> steps;
  std::vector<int64_t> planStep; // Per entry of `steps`.
};

class HostRecorder final : public StepRecorder {
public:
  HostRecorder(const HostKernels &kernels, HostSteps &out)
      : kernels(kernels), out(out) {}

  void launch(int64_t kernel, uint32_t grid, uint32_t block,
              const std::vector<uint64_t> &args) override {
    std::vector<void *> pointers;
    for (uint64_t a : args)
      pointers.push_back(reinterpret_cast<void *>(uintptr_t(a)));
    Entry entry = kernels.entries[size_t(kernel)];
    out.steps.push_back([entry, grid, block, pointers]() mutable {
      entry(grid, block, pointers.data());
    });
  }

  void matmul(const MatmulCall &call, uint64_t a, uint64_t b, uint64_t d,
              uint64_t bias, uint64_t workspace,
              int64_t workspaceBytes) override {
    auto ptr = [](uint64_t address) {
      return reinterpret_cast<void *>(uintptr_t(address));
    };
    out.steps.push_back(
        [call, a = ptr(a), b = ptr(b), d = ptr(d), bias = ptr(bias)] {
          runReferenceGemm(call, a, b, d, bias);
        });
  }

  void fill(uint64_t address, int64_t bytes, uint8_t value) override {
    void *p = reinterpret_cast<void *>(uintptr_t(address));
    out.steps.push_back(
        [p, bytes, value] { std::memset(p, value, size_t(bytes)); });
  }

  void copy(uint64_t to, uint64_t from, int64_t bytes) override {
    void *d = reinterpret_cast<void *>(uintptr_t(to));
    const void *s = reinterpret_cast<const void *>(uintptr_t(from));
    out.steps.push_back([d, s, bytes] { std::memcpy(d, s, size_t(bytes)); });
  }

  void beginStep(int64_t step) override {
    tag();
    current = step;
  }

  /// Tags what was pushed since the last call with the current step.
  void tag() { out.planStep.resize(out.steps.size(), current); }

private:
  const HostKernels &kernels;
  HostSteps &out;
  int64_t current = 0;
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
                    const std::string &name) -> Entry {
    void *symbol = dlsym(handle, (name + "_host").c_str());
    Dl_info where{};
    if (!symbol || !dladdr(symbol, &where) || !where.dli_fname ||
        library != where.dli_fname)
      return nullptr;
    return reinterpret_cast<Entry>(symbol);
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

uint64_t HostDevice::availableBytes() const {
  return BufferAllocator::defaultLimit();
}

std::unique_ptr<DeviceMemory> HostDevice::allocate(int64_t bytes,
                                                   std::string &error) {
  int64_t a = kArenaAlignment;
  if (bytes < 0 || bytes > INT64_MAX - a) {
    error = "cannot allocate " + std::to_string(bytes) + " bytes";
    return nullptr;
  }
  size_t rounded = size_t((bytes + a - 1) / a * a);
  void *data = std::aligned_alloc(size_t(a), rounded);
  if (!data) {
    error =
        "cannot allocate " + std::to_string(bytes) + " bytes of host memory";
    return nullptr;
  }
  return std::make_unique<HostMemory>(data, bytes);
}

static bool inRange(const DeviceMemory &m, int64_t offset, int64_t bytes,
                    std::string &error) {
  if (offset < 0 || bytes < 0 || offset > m.size() ||
      bytes > m.size() - offset) {
    error = "internal error: a copy of " + std::to_string(bytes) +
            " bytes at offset " + std::to_string(offset) +
            " leaves an allocation of " + std::to_string(m.size());
    return false;
  }
  return true;
}

bool HostDevice::upload(const DeviceMemory &to, int64_t offset,
                        const void *from, int64_t bytes, std::string &error) {
  if (!inRange(to, offset, bytes, error))
    return false;
  std::memcpy(reinterpret_cast<char *>(uintptr_t(to.address())) + offset, from,
              size_t(bytes));
  return true;
}

bool HostDevice::download(const DeviceMemory &from, int64_t offset, void *to,
                          int64_t bytes, std::string &error) {
  if (!inRange(from, offset, bytes, error))
    return false;
  std::memcpy(
      to, reinterpret_cast<const char *>(uintptr_t(from.address())) + offset,
      size_t(bytes));
  return true;
}

std::unique_ptr<DeviceKernels> HostDevice::loadKernels(const Executable &exe,
                                                       std::string &error) {
  auto kernels = std::make_unique<HostKernels>();
  for (const KernelDesc &k : exe.kernels) {
    Entry entry = lookup(k.name);
    if (!entry) {
      error = "the host kernels lack " + quoteName(k.name + "_host", '\'') +
              ": were they compiled from this model's --emit=cuda?";
      return nullptr;
    }
    kernels->entries.push_back(entry);
  }
  return kernels;
}

std::unique_ptr<StepList>
HostDevice::record(const DeviceKernels &kernels,
                   const std::function<void(StepRecorder &)> &record,
                   std::string &error) {
  auto steps = std::make_unique<HostSteps>();
  HostRecorder recorder(static_cast<const HostKernels &>(kernels), *steps);
  record(recorder);
  recorder.tag();
  return steps;
}

std::optional<std::vector<double>>
HostDevice::profile(StepList &list, int64_t numSteps, std::string &) {
  auto &steps = static_cast<HostSteps &>(list);
  std::vector<double> seconds(size_t(numSteps), 0.0);
  for (size_t i = 0; i < steps.steps.size(); ++i) {
    auto start = std::chrono::steady_clock::now();
    steps.steps[i]();
    int64_t s = steps.planStep[i];
    if (s >= 0 && s < numSteps)
      seconds[size_t(s)] += std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  }
  return seconds;
}

bool HostDevice::replay(StepList &list, std::string &error) {
  for (const std::function<void()> &step : static_cast<HostSteps &>(list).steps)
    step();
  return true;
}

bool HostDevice::synchronize(std::string &) {
  if (!log.empty()) // Only pipelined runs are logged.
    log.push_back("synchronize");
  return true;
}

std::unique_ptr<DeviceMemory> HostDevice::allocateStaging(int64_t bytes,
                                                          std::string &error) {
  return allocate(bytes, error);
}

bool HostDevice::uploadStaged(const DeviceMemory &to, int64_t offset,
                              const DeviceMemory &from, int64_t fromOffset,
                              int64_t bytes, int slot, std::string &) {
  std::memcpy(reinterpret_cast<char *>(uintptr_t(to.address())) + offset,
              reinterpret_cast<const char *>(uintptr_t(from.address())) +
                  fromOffset,
              size_t(bytes));
  log.push_back("upload " + std::to_string(slot));
  return true;
}

bool HostDevice::replayStaged(StepList &list, int slot, std::string &error) {
  log.push_back("replay " + std::to_string(slot));
  return replay(list, error);
}
