//===- InProcessDevice.cpp - Devices in this process's memory -------------===//

#include "fusec/Runtime/Host/InProcessDevice.h"
#include "fusec/Support/Buffer.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace fusec;
using namespace fusec::rt;

namespace {

class HeapMemory final : public DeviceMemory {
public:
  HeapMemory(void *data, int64_t bytes) : data(data), bytes(bytes) {}
  ~HeapMemory() override { std::free(data); }
  uint64_t address() const override { return uint64_t(uintptr_t(data)); }
  int64_t size() const override { return bytes; }

private:
  void *data;
  int64_t bytes;
};

class ClosureSteps final : public StepList {
public:
  std::vector<std::function<void()>> steps;
  std::vector<int64_t> planStep; // Per entry of `steps`.
};

void *pointer(uint64_t address) {
  return reinterpret_cast<void *>(uintptr_t(address));
}

bool inRange(const DeviceMemory &m, int64_t offset, int64_t bytes,
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

} // namespace

class InProcessDevice::Recorder final : public StepRecorder {
public:
  Recorder(InProcessDevice &device, const DeviceKernels &kernels,
           ClosureSteps &out)
      : device(device), kernels(kernels), out(out) {}

  void launch(int64_t kernel, uint32_t grid, uint32_t block,
              const std::vector<uint64_t> &args) override {
    std::vector<void *> pointers;
    for (uint64_t a : args)
      pointers.push_back(pointer(a));
    out.steps.push_back(device.launchClosure(kernels, kernel, grid, block,
                                             std::move(pointers)));
  }

  void matmul(const MatmulCall &call, uint64_t a, uint64_t b, uint64_t d,
              uint64_t bias, uint64_t, int64_t) override {
    out.steps.push_back(device.matmulClosure(call, pointer(a), pointer(b),
                                             pointer(d), pointer(bias)));
  }

  bool convolution(const ConvCall &call, uint64_t input, uint64_t filter,
                   uint64_t output, uint64_t bias) override {
    Closure c = device.convClosure(call, pointer(input), pointer(filter),
                                   pointer(output), pointer(bias));
    if (!c)
      return false;
    out.steps.push_back(std::move(c));
    return true;
  }

  void fill(uint64_t address, int64_t bytes, uint8_t value) override {
    void *p = pointer(address);
    out.steps.push_back(
        [p, bytes, value] { std::memset(p, value, size_t(bytes)); });
  }

  void copy(uint64_t to, uint64_t from, int64_t bytes) override {
    void *d = pointer(to);
    const void *s = pointer(from);
    out.steps.push_back([d, s, bytes] { std::memcpy(d, s, size_t(bytes)); });
  }

  void beginStep(int64_t step) override {
    tag();
    current = step;
  }

  /// Tags what was pushed since the last call with the current step.
  void tag() { out.planStep.resize(out.steps.size(), current); }

private:
  InProcessDevice &device;
  const DeviceKernels &kernels;
  ClosureSteps &out;
  int64_t current = 0;
};

uint64_t InProcessDevice::availableBytes() const {
  return BufferAllocator::defaultLimit();
}

std::unique_ptr<DeviceMemory> InProcessDevice::allocate(int64_t bytes,
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
  return std::make_unique<HeapMemory>(data, bytes);
}

bool InProcessDevice::upload(const DeviceMemory &to, int64_t offset,
                             const void *from, int64_t bytes,
                             std::string &error) {
  if (!inRange(to, offset, bytes, error))
    return false;
  std::memcpy(static_cast<char *>(pointer(to.address())) + offset, from,
              size_t(bytes));
  return true;
}

bool InProcessDevice::download(const DeviceMemory &from, int64_t offset,
                               void *to, int64_t bytes, std::string &error) {
  if (!inRange(from, offset, bytes, error))
    return false;
  std::memcpy(to, static_cast<const char *>(pointer(from.address())) + offset,
              size_t(bytes));
  return true;
}

std::unique_ptr<StepList>
InProcessDevice::record(const DeviceKernels &kernels,
                        const std::function<void(StepRecorder &)> &record,
                        std::string &) {
  auto steps = std::make_unique<ClosureSteps>();
  Recorder recorder(*this, kernels, *steps);
  record(recorder);
  recorder.tag();
  return steps;
}

std::optional<std::vector<double>>
InProcessDevice::profile(StepList &list, int64_t numSteps, std::string &) {
  auto &steps = static_cast<ClosureSteps &>(list);
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

bool InProcessDevice::replay(StepList &list, std::string &) {
  for (const std::function<void()> &step :
       static_cast<ClosureSteps &>(list).steps)
    step();
  return true;
}

bool InProcessDevice::synchronize(std::string &) {
  if (!log.empty()) // Only pipelined runs are logged.
    log.push_back("synchronize");
  return true;
}

std::unique_ptr<DeviceMemory>
InProcessDevice::allocateStaging(int64_t bytes, std::string &error) {
  return allocate(bytes, error);
}

bool InProcessDevice::uploadStaged(const DeviceMemory &to, int64_t offset,
                                   const DeviceMemory &from, int64_t fromOffset,
                                   int64_t bytes, int slot, std::string &) {
  std::memcpy(static_cast<char *>(pointer(to.address())) + offset,
              static_cast<const char *>(pointer(from.address())) + fromOffset,
              size_t(bytes));
  log.push_back("upload " + std::to_string(slot));
  return true;
}

bool InProcessDevice::replayStaged(StepList &list, int slot,
                                   std::string &error) {
  log.push_back("replay " + std::to_string(slot));
  return replay(list, error);
}
