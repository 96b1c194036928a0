//===- Device.h - What the executor needs from a device ---------*- C++ -*-===//
//
// The one seam between the plan executor (Executor.h) and the machines that
// run plans: memory, copies, the kernels of an executable, and a recorded
// list of steps replayed as a whole. The host device (Host/HostDevice.h)
// runs the generated kernels compiled for the CPU and the cuBLASLt calls on
// a reference GEMM; a CUDA device implements the same interface with the
// driver API, cuBLASLt and CUDA graphs (a step list is a graph). Nothing
// here assumes one device per process: a device is an object, and so is
// everything loaded on it.
//
// Addresses are 64-bit device addresses (a CUdeviceptr on a GPU, a pointer
// on the host); the executor only adds offsets to them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_DEVICE_H
#define FUSEC_RUNTIME_DEVICE_H

#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Matmul.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::rt {

/// A block of device memory, freed with the object.
class DeviceMemory {
public:
  virtual ~DeviceMemory();
  virtual uint64_t address() const = 0;
  virtual int64_t size() const = 0;
};

/// The kernels of one executable, loaded on a device.
class DeviceKernels {
public:
  virtual ~DeviceKernels();
  /// How the kernels were loaded, for --device-report ("2 modules from
  /// CUBIN for sm_90"); empty when there is nothing to say.
  virtual std::string origin() const { return {}; }
};

/// What the executor records into: the steps of a plan, with their
/// arguments bound to device addresses.
class StepRecorder {
public:
  virtual ~StepRecorder();
  /// Launches kernel `kernel` (an index into the executable's kernels) with
  /// one pointer argument per address.
  virtual void launch(int64_t kernel, uint32_t grid, uint32_t block,
                      const std::vector<uint64_t> &args) = 0;
  /// One cublasLtMatmul call. `bias` is 0 without a bias epilogue.
  virtual void matmul(const MatmulCall &call, uint64_t a, uint64_t b,
                      uint64_t d, uint64_t bias, uint64_t workspace,
                      int64_t workspaceBytes) = 0;
  /// One convolution with its operands at these addresses (`bias` 0
  /// without a bias epilogue), if the device computes convolutions itself;
  /// returns false, recording nothing, when it does not (the default): the
  /// executor then records the step's gather and product.
  virtual bool convolution(const ConvCall &call, uint64_t input,
                           uint64_t filter, uint64_t output, uint64_t bias) {
    (void)call, (void)input, (void)filter, (void)output, (void)bias;
    return false;
  }
  /// Sets `bytes` bytes at `address` to `value`.
  virtual void fill(uint64_t address, int64_t bytes, uint8_t value) = 0;
  /// Copies `bytes` bytes from `from` to `to` (not overlapping).
  virtual void copy(uint64_t to, uint64_t from, int64_t bytes) = 0;
  /// The calls that follow belong to step `step` of the plan (steps.size():
  /// what runs after the last step), for profiles.
  virtual void beginStep(int64_t step) = 0;
};

/// A recorded step list (a CUDA graph on a GPU).
class StepList {
public:
  virtual ~StepList();
};

class Device {
public:
  virtual ~Device();

  /// For messages and reports: "host CPU", "NVIDIA H200 (device 0)".
  virtual std::string name() const = 0;
  /// The GPU architecture kernels are compiled for ("sm_90"); empty for a
  /// device that runs them some other way (the host).
  virtual std::string arch() const = 0;
  /// Bytes this process may still allocate on the device (what the memory
  /// plan is checked against when no limit is given).
  virtual uint64_t availableBytes() const = 0;
  /// Whether the executor should fill every temporary with 0xff bytes when
  /// its live range starts (NaN floats, -1 integers, invalid i1), so that
  /// a value read before it is written, a planning bug, shows in the
  /// results. The host device does; a GPU, where it costs bandwidth, does
  /// not.
  virtual bool poisonsTemporaries() const = 0;

  /// `bytes` bytes aligned to at least kArenaAlignment; nullptr with
  /// `error` set when the device cannot allocate them.
  virtual std::unique_ptr<DeviceMemory> allocate(int64_t bytes,
                                                 std::string &error) = 0;
  virtual bool upload(const DeviceMemory &to, int64_t offset, const void *from,
                      int64_t bytes, std::string &error) = 0;
  virtual bool download(const DeviceMemory &from, int64_t offset, void *to,
                        int64_t bytes, std::string &error) = 0;

  /// Loads the kernels of `exe` (its PTX, or their host build).
  virtual std::unique_ptr<DeviceKernels> loadKernels(const Executable &exe,
                                                     std::string &error) = 0;
  /// Records the steps `record` issues, with `kernels`, into a list.
  virtual std::unique_ptr<StepList>
  record(const DeviceKernels &kernels,
         const std::function<void(StepRecorder &)> &record,
         std::string &error) = 0;
  /// How a recorded list runs, for reports: "replayed as one CUDA graph".
  virtual std::string replayDescription() const = 0;
  /// Runs a recorded list once, step by step, and returns the seconds
  /// each step of the plan took (indexed by the steps given to
  /// StepRecorder::beginStep; `numSteps` of them), measured on the device.
  virtual std::optional<std::vector<double>>
  profile(StepList &list, int64_t numSteps, std::string &error) = 0;
  /// Runs a recorded list (asynchronously where the device allows).
  virtual bool replay(StepList &list, std::string &error) = 0;
  /// Pipelined runs (LoadedExecutable::runPipelined) alternate between two
  /// sets of input slots, `slot` 0 and 1.
  /// Host memory the device copies from asynchronously (pinned on a GPU);
  /// its address() is a host pointer.
  virtual std::unique_ptr<DeviceMemory> allocateStaging(int64_t bytes,
                                                        std::string &error) = 0;
  /// Copies `bytes` from staging memory `from` into `to` on the device's
  /// second queue, after the runs replayed on slot set `slot` so far are
  /// done with it, and returns without waiting.
  virtual bool uploadStaged(const DeviceMemory &to, int64_t offset,
                            const DeviceMemory &from, int64_t fromOffset,
                            int64_t bytes, int slot, std::string &error) = 0;
  /// Replays `list` once the uploads staged for slot set `slot` arrived.
  virtual bool replayStaged(StepList &list, int slot, std::string &error) = 0;
  /// Waits until everything issued so far has finished.
  virtual bool synchronize(std::string &error) = 0;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_DEVICE_H
