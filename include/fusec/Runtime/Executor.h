//===- Executor.h - The one plan executor -----------------------*- C++ -*-===//
//
// Runs an executable on any Device, the same way on every device: checks
// the memory the plan needs against the limit before allocating anything,
// allocates exactly the plan (the arena, the constants, cuBLASLt's
// workspace, the inputs), uploads the constants once, binds every step's
// arguments to device addresses and records the step list once; each run
// then checks and uploads the inputs, replays the list and downloads the
// outputs.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_EXECUTOR_H
#define FUSEC_RUNTIME_EXECUTOR_H

#include "fusec/Runtime/Device.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/Options.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::rt {

struct ExecutionOptions {
  /// Most bytes an executable may hold on its device (arena, constants,
  /// workspace and inputs); 0: what the device has available. The
  /// interpreter reads it as its budget for live tensors.
  uint64_t memoryLimit = 0;
  /// The host device's kernels: the model's --emit=cuda compiled for the
  /// CPU (--host-kernels=KERNELS.so, docs/codegen.md).
  std::string hostKernels;
  /// The GPU to run on (--device=N).
  int64_t device = 0;
  /// Threads of the cpu device (--threads=N); 0: the CPUs this process
  /// may use.
  int64_t threads = 0;
  /// Replay each run's steps as one CUDA graph (else call by call).
  bool cudaGraphs = true;
  /// Say which device ran and what each step was (--device-report).
  bool deviceReport = false;
  /// Print the GPUs of this machine, or why there is none (--devices).
  bool listDevices = false;
  /// Time each step on the device after the run (--profile).
  bool profile = false;

  void bindOptions(OptionBinder &binder);
};

/// The device memory an executable needs, each part a multiple of
/// kArenaAlignment.
struct MemoryNeeds {
  int64_t arena = 0, constants = 0, workspace = 0, inputs = 0;
  /// The sum; saturates at INT64_MAX.
  int64_t total() const;
};
MemoryNeeds memoryNeeds(const Executable &exe);

/// Whether the plan fits in `limit` bytes; if not, `error` gives the
/// numbers and the step where the arena's peak is, e.g. "'f' needs 33560320
/// bytes (32.0 MiB): arena 1536, constants 0, workspace 33554432, inputs
/// 4352; the limit is 16777216 bytes (16.0 MiB); the arena's peak is at
/// step 2 (matmul)".
bool checkMemoryLimit(const Executable &exe, uint64_t limit,
                      std::string &error);

class LoadedExecutable {
public:
  /// Loads `exe` on `device`, which must outlive the result (it holds the
  /// device's memory and kernels). Nothing is allocated when the plan does
  /// not fit (checkMemoryLimit with options.memoryLimit, or the device's
  /// available bytes).
  static std::unique_ptr<LoadedExecutable> load(const Executable &exe,
                                                Device &device,
                                                const ExecutionOptions &options,
                                                std::string &error);
  ~LoadedExecutable();

  /// Runs on `inputs`, one per entry argument (dtype and shape checked),
  /// and returns the outputs as host buffers.
  std::optional<std::vector<Buffer>> run(const std::vector<Buffer> &inputs,
                                         std::string &error);
  /// The same, uploading only the inputs given (a null one keeps what its
  /// slot holds: the last upload, or an output fed back) and downloading
  /// only the outputs `wanted` says (all when it is empty; the others are
  /// empty Buffers).
  std::optional<std::vector<Buffer>>
  run(const std::vector<const Buffer *> &inputs,
      const std::vector<bool> &wanted, std::string &error);

  /// Makes every run end by copying output `first` into the slot of input
  /// `second`, on the device, for each pair: a loop (training steps) keeps
  /// its state where it is computed and moves only what the host reads.
  /// Each output and input must have the same dtype and shape, no input be
  /// fed twice, and no fed output be an input that is fed too. Re-records
  /// the step list.
  bool feedBack(const std::vector<std::pair<int64_t, int64_t>> &pairs,
                std::string &error);

  /// The current contents of input `input`'s slot (after feedBack: the
  /// latest value fed to it).
  std::optional<Buffer> readInput(int64_t input, std::string &error);

  /// Runs once per element of `calls` (each a full set of inputs) and
  /// returns each run's outputs, pipelined: two sets of input slots, each
  /// with its own recorded step list, so that while run k computes the
  /// inputs of run k+1 are copied into pinned staging memory and uploaded
  /// on the device's second queue (batched inference over a list of
  /// inputs). Costs one more set of input slots on the device (checked
  /// against the limit) and two of staging memory; not with feedBack.
  std::optional<std::vector<std::vector<Buffer>>>
  runPipelined(const std::vector<std::vector<Buffer>> &calls,
               std::string &error);

  const Executable &executable() const { return exe; }

  /// Replays the last run's steps `repeats` times (its inputs are still on
  /// the device), each timed from launch to completion; the seconds of
  /// each, or nullopt with `error`. For benchmarks (fusec-run --repeat).
  std::optional<std::vector<double>> time(int64_t repeats, std::string &error);

  /// What --profile prints: each step's time measured on the device (one
  /// replay, step by step, after one to warm up), the bytes it reads and
  /// writes and the bandwidth that makes, then the totals. Expects a run
  /// before (its inputs are used).
  std::optional<std::string> profile(std::string &error);

  /// What --device-report prints: the device, then one line per step (a
  /// generated kernel, or cuBLASLt with its number of calls), then the
  /// totals and how the steps are replayed.
  std::string report() const;

private:
  LoadedExecutable(const Executable &exe, Device &device,
                   const ExecutionOptions &options);
  /// A buffer's device address when the inputs are in slot set `slot`.
  uint64_t address(int64_t buffer, int slot = 0) const;
  bool recordSteps(int slot, std::string &error);
  /// Checks that `given` inputs is the entry's number.
  bool checkInputCount(size_t given, std::string &error) const;
  /// Checks the dtype and shape of input `i`.
  bool checkInput(size_t i, const Buffer &in, std::string &error) const;
  /// Downloads the outputs `wanted` says (all when empty) after a run on
  /// slot set `slot`.
  std::optional<std::vector<Buffer>>
  downloadOutputs(int slot, const std::vector<bool> &wanted,
                  std::string &error);

  Executable exe;
  Device &device;
  ExecutionOptions options;
  std::unique_ptr<DeviceMemory> arena, constants, workspace;
  /// The input slots: set 0, and set 1 once runPipelined needs it.
  std::unique_ptr<DeviceMemory> inputs[2];
  /// Host staging memory per slot set (runPipelined).
  std::unique_ptr<DeviceMemory> staging[2];
  /// Offset of each constant in `constants`, of each input in `inputs`.
  std::vector<int64_t> constantOffset, inputOffset;
  std::unique_ptr<DeviceKernels> kernels;
  /// The recorded step list per slot set.
  std::unique_ptr<StepList> steps[2];
  /// (output, input) pairs copied at the end of every run (feedBack).
  std::vector<std::pair<int64_t, int64_t>> feedback;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_EXECUTOR_H
