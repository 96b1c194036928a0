//===- InProcessDevice.h - Devices in this process's memory -----*- C++ -*-===//
//
// What the devices that run plans on the CPU in this process share (the
// host device, Host/HostDevice.h, and the cpu device, Cpu/CpuDevice.h):
// memory from the heap (aligned to kArenaAlignment), copies as memcpy, a
// step list of closures run in order, profiles timed per plan step, and
// pipelined runs that are plain copies and replays (logged, so that tests
// can check the order a GPU would overlap). A subclass says how a launch
// and a matmul run.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_HOST_INPROCESSDEVICE_H
#define FUSEC_RUNTIME_HOST_INPROCESSDEVICE_H

#include "fusec/Runtime/Device.h"

#include <functional>
#include <string>
#include <vector>

namespace fusec::rt {

class InProcessDevice : public Device {
public:
  uint64_t availableBytes() const override;
  std::string arch() const override { return ""; }
  std::unique_ptr<DeviceMemory> allocate(int64_t bytes,
                                         std::string &error) override;
  bool upload(const DeviceMemory &to, int64_t offset, const void *from,
              int64_t bytes, std::string &error) override;
  bool download(const DeviceMemory &from, int64_t offset, void *to,
                int64_t bytes, std::string &error) override;
  std::unique_ptr<StepList>
  record(const DeviceKernels &kernels,
         const std::function<void(StepRecorder &)> &record,
         std::string &error) override;
  bool replay(StepList &list, std::string &error) override;
  std::optional<std::vector<double>> profile(StepList &list, int64_t numSteps,
                                             std::string &error) override;
  bool synchronize(std::string &error) override;
  std::unique_ptr<DeviceMemory> allocateStaging(int64_t bytes,
                                                std::string &error) override;
  bool uploadStaged(const DeviceMemory &to, int64_t offset,
                    const DeviceMemory &from, int64_t fromOffset, int64_t bytes,
                    int slot, std::string &error) override;
  bool replayStaged(StepList &list, int slot, std::string &error) override;

  /// What the pipelined-run calls did, in order ("upload 1", "replay 0",
  /// "synchronize"), for tests of the order a GPU would overlap.
  const std::vector<std::string> &events() const { return log; }

protected:
  using Closure = std::function<void()>;
  /// The closure that runs kernel `kernel` of `kernels` (loaded by this
  /// device) on `args`, launched as <<<grid, block>>>.
  virtual Closure launchClosure(const DeviceKernels &kernels, int64_t kernel,
                                uint32_t grid, uint32_t block,
                                std::vector<void *> args) = 0;
  /// The closure that runs the cuBLASLt call `call`.
  virtual Closure matmulClosure(const MatmulCall &call, void *a, void *b,
                                void *d, void *bias) = 0;
  /// The closure that computes the convolution `call`, or an empty one
  /// when the device runs convolution steps as their gather and product
  /// (the default).
  virtual Closure convClosure(const ConvCall &call, void *input, void *filter,
                              void *output, void *bias) {
    (void)call, (void)input, (void)filter, (void)output, (void)bias;
    return {};
  }

private:
  class Recorder;
  std::vector<std::string> log;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_HOST_INPROCESSDEVICE_H
