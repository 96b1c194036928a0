//===- Executor.cpp - The one plan executor -------------------------------===//

#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Matmul.h"
#include "fusec/Runtime/MemoryPlan.h"

#include <chrono>
#include <cstring>

using namespace fusec;
using namespace fusec::rt;

DeviceMemory::~DeviceMemory() = default;
DeviceKernels::~DeviceKernels() = default;
StepRecorder::~StepRecorder() = default;
StepList::~StepList() = default;
Device::~Device() = default;

void ExecutionOptions::bindOptions(OptionBinder &binder) {
  binder.group("execution", "Running (`--run`, `fusec-run`)");
  binder.bytes("memory-limit", memoryLimit,
               "Most memory a run may hold: the plan's arena, constants, "
               "workspace and inputs on the device; the live tensors of the "
               "interpreter",
               "the device's available memory; for the interpreter 90% of "
               "physical memory");
  binder.integer("device", device, "The GPU to run on (see --devices)",
                 /*minimum=*/0);
  binder.flag("cuda-graphs", cudaGraphs,
              "Replay each run's steps as one CUDA graph (false: launch them "
              "one by one, for comparison)");
  binder.flag("device-report", deviceReport,
              "Say which device ran and, per step, whether it was a "
              "generated kernel or cuBLASLt");
  binder.flag("devices", listDevices,
              "List the GPUs of this machine (name, architecture, "
              "multiprocessors, memory, driver), or say why there is none, "
              "and exit");
}

static int64_t alignUp(int64_t bytes) {
  int64_t a = kArenaAlignment;
  return bytes > INT64_MAX - (a - 1) ? INT64_MAX : (bytes + a - 1) / a * a;
}

static int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

int64_t MemoryNeeds::total() const {
  return saturatingAdd(saturatingAdd(arena, constants),
                       saturatingAdd(workspace, inputs));
}

MemoryNeeds fusec::rt::memoryNeeds(const Executable &exe) {
  MemoryNeeds needs;
  needs.arena = alignUp(exe.memory.arenaBytes);
  needs.workspace = alignUp(exe.memory.workspaceBytes);
  for (const std::string &c : exe.constants)
    needs.constants =
        saturatingAdd(needs.constants, alignUp(int64_t(c.size())));
  for (int64_t b : exe.inputs)
    needs.inputs = saturatingAdd(needs.inputs,
                                 alignUp(bufferBytes(exe.buffers[size_t(b)])));
  return needs;
}

bool fusec::rt::checkMemoryLimit(const Executable &exe, uint64_t limit,
                                 std::string &error) {
  MemoryNeeds needs = memoryNeeds(exe);
  if (uint64_t(needs.total()) <= limit)
    return true;
  error = quoteName(exe.entry, '\'') + " needs " +
          describeBytes(uint64_t(needs.total())) + ": arena " +
          std::to_string(needs.arena) + ", constants " +
          std::to_string(needs.constants) + ", workspace " +
          std::to_string(needs.workspace) + ", inputs " +
          std::to_string(needs.inputs) + "; the limit is " +
          describeBytes(limit) + "; the arena's peak is at " +
          describeStep(exe, exe.memory.peakStep);
  return false;
}

LoadedExecutable::LoadedExecutable(const Executable &exe, Device &device)
    : exe(exe), device(device) {}
LoadedExecutable::~LoadedExecutable() = default;

uint64_t LoadedExecutable::address(int64_t buffer) const {
  int64_t root = rootBuffer(exe, buffer);
  const BufferDesc &b = exe.buffers[size_t(root)];
  switch (b.kind) {
  case BufferKind::Input:
    return inputs->address() + uint64_t(inputOffset[size_t(b.index)]);
  case BufferKind::Constant:
    return constants->address() + uint64_t(constantOffset[size_t(b.index)]);
  case BufferKind::Temp:
  case BufferKind::Alias:
    break;
  }
  return arena->address() + uint64_t(b.offset);
}

std::unique_ptr<LoadedExecutable>
LoadedExecutable::load(const Executable &exe, Device &device,
                       const ExecutionOptions &options, std::string &error) {
  uint64_t limit =
      options.memoryLimit ? options.memoryLimit : device.availableBytes();
  if (!checkMemoryLimit(exe, limit, error)) {
    if (!options.memoryLimit)
      error += " (what " + device.name() + " has available)";
    return nullptr;
  }
  std::unique_ptr<LoadedExecutable> loaded(new LoadedExecutable(exe, device));
  LoadedExecutable &l = *loaded;
  MemoryNeeds needs = memoryNeeds(exe);
  // Zero-byte allocations still get an address (1 alignment unit), so that
  // every pointer is valid.
  auto allocate = [&](int64_t bytes, std::unique_ptr<DeviceMemory> &out) {
    out = device.allocate(std::max<int64_t>(bytes, kArenaAlignment), error);
    return out != nullptr;
  };
  if (!allocate(needs.arena, l.arena) ||
      !allocate(needs.constants, l.constants) ||
      !allocate(needs.workspace, l.workspace) ||
      !allocate(needs.inputs, l.inputs))
    return nullptr;
  int64_t at = 0;
  for (const std::string &c : exe.constants) {
    l.constantOffset.push_back(at);
    if (!c.empty() &&
        !device.upload(*l.constants, at, c.data(), int64_t(c.size()), error))
      return nullptr;
    at += alignUp(int64_t(c.size()));
  }
  at = 0;
  for (int64_t b : exe.inputs) {
    l.inputOffset.push_back(at);
    at += alignUp(bufferBytes(exe.buffers[size_t(b)]));
  }
  l.kernels = device.loadKernels(exe, error);
  if (!l.kernels)
    return nullptr;

  // The step list, with every argument bound: the allocations never move,
  // so it is recorded once and replayed by every run.
  MemoryAnalysis memory;
  bool poison = device.poisonsTemporaries();
  std::vector<std::vector<int64_t>> startingAt;
  if (poison) {
    memory = analyzeMemory(exe);
    startingAt.resize(exe.steps.size() + 1);
    for (size_t b = 0; b < exe.buffers.size(); ++b) {
      const LiveRange &range = memory.liveRanges[b];
      // An in-place output starts in the bytes its input still holds.
      if (!range.empty() && memory.inPlaceOf[b] < 0 &&
          bufferBytes(exe.buffers[b]) > 0)
        startingAt[size_t(range.first)].push_back(int64_t(b));
    }
  }
  auto record = [&](StepRecorder &r) {
    auto poisonAt = [&](size_t step) {
      if (!poison)
        return;
      for (int64_t b : startingAt[step])
        r.fill(l.address(b), bufferBytes(exe.buffers[size_t(b)]), 0xff);
    };
    for (size_t s = 0; s < exe.steps.size(); ++s) {
      poisonAt(s);
      const Step &step = exe.steps[s];
      if (step.kind == Step::Kind::Launch) {
        std::vector<uint64_t> args;
        for (int64_t b : step.launch.args)
          args.push_back(l.address(b));
        r.launch(step.launch.kernel, step.launch.gridSize,
                 step.launch.blockSize, args);
        continue;
      }
      for (const MatmulCall &call : describeMatmul(exe, step.matmul)) {
        auto at = [&](const BlasOperand &o) {
          return o.buffer < 0 ? 0
                              : l.address(o.buffer) + uint64_t(o.byteOffset);
        };
        r.matmul(call, at(call.aData), at(call.bData), at(call.dData),
                 at(call.biasData), l.workspace->address(),
                 exe.memory.workspaceBytes);
      }
    }
    poisonAt(exe.steps.size());
  };
  l.steps = device.record(*l.kernels, record, error);
  if (!l.steps)
    return nullptr;
  return loaded;
}

std::optional<std::vector<Buffer>>
LoadedExecutable::run(const std::vector<Buffer> &args, std::string &error) {
  if (args.size() != exe.inputs.size()) {
    error = quoteName(exe.entry, '\'') + " takes " +
            std::to_string(exe.inputs.size()) + " input(s), " +
            std::to_string(args.size()) + " given";
    return std::nullopt;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const BufferDesc &d = exe.buffers[size_t(exe.inputs[i])];
    Shape shape(d.shape.begin(), d.shape.end());
    const Buffer &in = args[i];
    if (in.dtype() != d.dtype || in.shape() != shape) {
      error = "input #" + std::to_string(i) + " is " +
              std::string(dtypeName(in.dtype())) + "[" +
              formatShape(in.shape()) + "], the model takes " +
              std::string(dtypeName(d.dtype)) + "[" + formatShape(shape) + "]";
      return std::nullopt;
    }
    if (in.sizeInBytes() && !device.upload(*inputs, inputOffset[i], in.data(),
                                           int64_t(in.sizeInBytes()), error))
      return std::nullopt;
  }
  if (!device.replay(*steps, error) || !device.synchronize(error))
    return std::nullopt;
  std::vector<Buffer> outputs;
  for (int64_t b : exe.outputs) {
    const BufferDesc &d = exe.buffers[size_t(b)];
    Buffer out = Buffer::allocate(
        d.dtype, Shape(d.shape.begin(), d.shape.end()), &error);
    if (!out)
      return std::nullopt;
    // Download by the root's allocation and offset.
    int64_t root = rootBuffer(exe, b);
    const BufferDesc &r = exe.buffers[size_t(root)];
    const DeviceMemory *memory = arena.get();
    int64_t offset = r.offset;
    if (r.kind == BufferKind::Input) {
      memory = inputs.get();
      offset = inputOffset[size_t(r.index)];
    } else if (r.kind == BufferKind::Constant) {
      memory = constants.get();
      offset = constantOffset[size_t(r.index)];
    }
    if (out.sizeInBytes() &&
        !device.download(*memory, offset, out.data(),
                         int64_t(out.sizeInBytes()), error))
      return std::nullopt;
    outputs.push_back(std::move(out));
  }
  return outputs;
}

std::string LoadedExecutable::report() const {
  std::string out = "device: " + device.name() + "\n";
  int64_t launches = 0, calls = 0;
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    const Step &step = exe.steps[s];
    out += "  step " + std::to_string(s) + ": ";
    if (step.kind == Step::Kind::Launch) {
      const KernelDesc &k = exe.kernels[size_t(step.launch.kernel)];
      out += "generated kernel " + quoteName(k.name, '\'') + " (" +
             std::string(fusionKindName(k.kind)) + ", <<<" +
             std::to_string(step.launch.gridSize) + ", " +
             std::to_string(step.launch.blockSize) + ">>>)\n";
      ++launches;
      continue;
    }
    int64_t n = matmulCallCount(exe, step.matmul);
    out += "matmul, " + std::to_string(n) +
           (n == 1 ? " cuBLASLt call" : " cuBLASLt calls") + ", epilogue " +
           matmulEpilogueName(step.matmul.epilogue) + "\n";
    calls += n;
  }
  out += "  " + std::to_string(launches) + " kernel launches, " +
         std::to_string(calls) + " cuBLASLt calls per run; " +
         device.replayDescription() + "\n";
  return out;
}

std::optional<std::vector<double>> LoadedExecutable::time(int64_t repeats,
                                                          std::string &error) {
  std::vector<double> seconds;
  for (int64_t i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!device.replay(*steps, error) || !device.synchronize(error))
      return std::nullopt;
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return seconds;
}
