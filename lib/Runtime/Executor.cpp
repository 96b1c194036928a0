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
  binder.text("host-kernels", hostKernels,
              "Run on the host device with the kernels of this shared "
              "library (the model's --emit=cuda compiled with -DFUSEC_HOST, "
              "docs/codegen.md)",
              "KERNELS.so");
  binder.integer("device", device, "The GPU to run on (see --devices)",
                 /*minimum=*/0);
  binder.integer("threads", threads,
                 "Threads the cpu device runs kernels on (0: the CPUs this "
                 "process may use)",
                 /*minimum=*/0);
  binder.flag("cuda-graphs", cudaGraphs,
              "Replay each run's steps as one CUDA graph (false: launch them "
              "one by one, for comparison)");
  binder.flag("device-report", deviceReport,
              "Say which device ran and, per step, whether it was a "
              "generated kernel or cuBLASLt");
  binder.flag("profile", profile,
              "After the run, replay its steps once more one by one and "
              "print each one's time on the device, bytes and bandwidth");
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

LoadedExecutable::LoadedExecutable(const Executable &exe, Device &device,
                                   const ExecutionOptions &options)
    : exe(exe), device(device), options(options) {}
LoadedExecutable::~LoadedExecutable() = default;

uint64_t LoadedExecutable::address(int64_t buffer, int slot) const {
  int64_t root = rootBuffer(exe, buffer);
  const BufferDesc &b = exe.buffers[size_t(root)];
  switch (b.kind) {
  case BufferKind::Input:
    return inputs[slot]->address() + uint64_t(inputOffset[size_t(b.index)]);
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
  std::unique_ptr<LoadedExecutable> loaded(
      new LoadedExecutable(exe, device, options));
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
      !allocate(needs.inputs, l.inputs[0]))
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
  if (!l.kernels || !l.recordSteps(0, error))
    return nullptr;
  return loaded;
}

bool LoadedExecutable::recordSteps(int slot, std::string &error) {
  LoadedExecutable &l = *this;
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
        r.fill(l.address(b, slot), bufferBytes(exe.buffers[size_t(b)]), 0xff);
    };
    for (size_t s = 0; s < exe.steps.size(); ++s) {
      r.beginStep(int64_t(s));
      poisonAt(s);
      const Step &step = exe.steps[s];
      auto launch = [&](const LaunchStep &launch) {
        std::vector<uint64_t> args;
        for (int64_t b : launch.args)
          args.push_back(l.address(b, slot));
        r.launch(launch.kernel, launch.gridSize, launch.blockSize, args);
      };
      auto matmul = [&](const MatmulStep &matmul) {
        for (const MatmulCall &call : describeMatmul(exe, matmul)) {
          auto at = [&](const BlasOperand &o) {
            return o.buffer < 0
                       ? 0
                       : l.address(o.buffer, slot) + uint64_t(o.byteOffset);
          };
          r.matmul(call, at(call.aData), at(call.bData), at(call.dData),
                   at(call.biasData), l.workspace->address(),
                   exe.memory.workspaceBytes);
        }
      };
      switch (step.kind) {
      case Step::Kind::Launch:
        launch(step.launch);
        break;
      case Step::Kind::Matmul:
        matmul(step.matmul);
        break;
      case Step::Kind::Conv: {
        const MatmulStep &p = step.conv.product;
        if (r.convolution(describeConv(exe, step.conv),
                          l.address(step.conv.input, slot),
                          l.address(p.b, slot), l.address(p.c, slot),
                          p.bias < 0 ? 0 : l.address(p.bias, slot)))
          break;
        launch(step.conv.gather);
        matmul(p);
        break;
      }
      }
    }
    r.beginStep(int64_t(exe.steps.size()));
    poisonAt(exe.steps.size());
    // The outputs fed back to the next run, once everything is computed.
    for (auto [output, input] : feedback)
      r.copy(inputs[slot]->address() + uint64_t(inputOffset[size_t(input)]),
             l.address(exe.outputs[size_t(output)], slot),
             bufferBytes(exe.buffers[size_t(exe.inputs[size_t(input)])]));
  };
  l.steps[slot] = device.record(*l.kernels, record, error);
  return l.steps[slot] != nullptr;
}

bool LoadedExecutable::feedBack(
    const std::vector<std::pair<int64_t, int64_t>> &pairs, std::string &error) {
  std::vector<bool> fed(exe.inputs.size(), false);
  for (auto [output, input] : pairs) {
    if (output < 0 || uint64_t(output) >= exe.outputs.size() || input < 0 ||
        uint64_t(input) >= exe.inputs.size()) {
      error = "cannot feed output " + std::to_string(output) + " to input " +
              std::to_string(input) + ": there are " +
              std::to_string(exe.outputs.size()) + " outputs and " +
              std::to_string(exe.inputs.size()) + " inputs";
      return false;
    }
    const BufferDesc &o = exe.buffers[size_t(exe.outputs[size_t(output)])];
    const BufferDesc &i = exe.buffers[size_t(exe.inputs[size_t(input)])];
    if (o.dtype != i.dtype || o.shape != i.shape) {
      error = "cannot feed output " + std::to_string(output) + " (" +
              std::string(dtypeName(o.dtype)) + formatDims(o.shape) +
              ") to input " + std::to_string(input) + " (" +
              std::string(dtypeName(i.dtype)) + formatDims(i.shape) + ")";
      return false;
    }
    if (fed[size_t(input)]) {
      error = "input " + std::to_string(input) + " is fed twice";
      return false;
    }
    fed[size_t(input)] = true;
  }
  // The copies run one after another: none may read an input slot that an
  // earlier one (or itself) overwrites.
  for (auto [output, input] : pairs) {
    const BufferDesc &root =
        exe.buffers[size_t(rootBuffer(exe, exe.outputs[size_t(output)]))];
    if (root.kind == BufferKind::Input && fed[size_t(root.index)]) {
      error = "output " + std::to_string(output) + " is input " +
              std::to_string(root.index) + ", which is fed back too";
      return false;
    }
  }
  if (inputs[1]) {
    error = "feedback does not combine with pipelined runs";
    return false;
  }
  feedback = pairs;
  return recordSteps(0, error);
}

std::optional<Buffer> LoadedExecutable::readInput(int64_t input,
                                                  std::string &error) {
  const BufferDesc &d = exe.buffers[size_t(exe.inputs[size_t(input)])];
  Buffer out =
      Buffer::allocate(d.dtype, Shape(d.shape.begin(), d.shape.end()), &error);
  if (!out)
    return std::nullopt;
  if (out.sizeInBytes() &&
      !device.download(*inputs[0], inputOffset[size_t(input)], out.data(),
                       int64_t(out.sizeInBytes()), error))
    return std::nullopt;
  return out;
}

std::optional<std::vector<Buffer>>
LoadedExecutable::run(const std::vector<Buffer> &args, std::string &error) {
  std::vector<const Buffer *> pointers;
  for (const Buffer &b : args)
    pointers.push_back(&b);
  return run(pointers, {}, error);
}

bool LoadedExecutable::checkInputCount(size_t given, std::string &error) const {
  if (given == exe.inputs.size())
    return true;
  error = quoteName(exe.entry, '\'') + " takes " +
          std::to_string(exe.inputs.size()) + " input(s), " +
          std::to_string(given) + " given";
  return false;
}

bool LoadedExecutable::checkInput(size_t i, const Buffer &in,
                                  std::string &error) const {
  const BufferDesc &d = exe.buffers[size_t(exe.inputs[i])];
  Shape shape(d.shape.begin(), d.shape.end());
  if (in.dtype() == d.dtype && in.shape() == shape)
    return true;
  error = "input #" + std::to_string(i) + " is " +
          std::string(dtypeName(in.dtype())) + "[" + formatShape(in.shape()) +
          "], the model takes " + std::string(dtypeName(d.dtype)) + "[" +
          formatShape(shape) + "]" + dtypeMismatchHint(in.dtype(), d.dtype);
  return false;
}

std::optional<std::vector<Buffer>>
LoadedExecutable::run(const std::vector<const Buffer *> &args,
                      const std::vector<bool> &wanted, std::string &error) {
  if (!checkInputCount(args.size(), error))
    return std::nullopt;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i])
      continue; // The slot keeps what it holds.
    const Buffer &in = *args[i];
    if (!checkInput(i, in, error))
      return std::nullopt;
    if (in.sizeInBytes() &&
        !device.upload(*inputs[0], inputOffset[i], in.data(),
                       int64_t(in.sizeInBytes()), error))
      return std::nullopt;
  }
  if (!device.replay(*steps[0], error) || !device.synchronize(error))
    return std::nullopt;
  return downloadOutputs(0, wanted, error);
}

std::optional<std::vector<Buffer>>
LoadedExecutable::downloadOutputs(int slot, const std::vector<bool> &wanted,
                                  std::string &error) {
  std::vector<Buffer> outputs;
  for (size_t k = 0; k < exe.outputs.size(); ++k) {
    if (!wanted.empty() && !wanted[k]) {
      outputs.emplace_back();
      continue;
    }
    int64_t b = exe.outputs[k];
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
      memory = inputs[slot].get();
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

std::optional<std::vector<std::vector<Buffer>>>
LoadedExecutable::runPipelined(const std::vector<std::vector<Buffer>> &calls,
                               std::string &error) {
  if (!feedback.empty()) {
    error = "pipelined runs do not combine with feedback";
    return std::nullopt;
  }
  for (const std::vector<Buffer> &call : calls) {
    if (!checkInputCount(call.size(), error))
      return std::nullopt;
    for (size_t i = 0; i < call.size(); ++i)
      if (!checkInput(i, call[i], error))
        return std::nullopt;
  }
  MemoryNeeds needs = memoryNeeds(exe);
  if (!inputs[1]) {
    // The second set of input slots must fit the limit too.
    uint64_t limit = options.memoryLimit
                         ? options.memoryLimit
                         : device.availableBytes() + uint64_t(needs.total());
    if (uint64_t(needs.total()) + uint64_t(needs.inputs) > limit) {
      error = "pipelined runs need a second set of input slots (" +
              describeBytes(uint64_t(needs.inputs)) + ") beyond the " +
              describeBytes(uint64_t(needs.total())) +
              " of the plan; the limit is " + describeBytes(limit);
      return std::nullopt;
    }
    int64_t bytes = std::max<int64_t>(needs.inputs, kArenaAlignment);
    if (!(inputs[1] = device.allocate(bytes, error)) ||
        !(staging[0] = device.allocateStaging(bytes, error)) ||
        !(staging[1] = device.allocateStaging(bytes, error)) ||
        !recordSteps(1, error)) {
      inputs[1] = nullptr;
      return std::nullopt;
    }
  }
  // Inputs into slot set `slot`: written into its staging memory by the
  // host, uploaded as one copy on the device's second queue.
  auto stage = [&](size_t call, int slot) {
    auto *to = reinterpret_cast<char *>(uintptr_t(staging[slot]->address()));
    for (size_t i = 0; i < exe.inputs.size(); ++i)
      if (calls[call][i].sizeInBytes())
        std::memcpy(to + inputOffset[i], calls[call][i].data(),
                    calls[call][i].sizeInBytes());
    return needs.inputs == 0 ||
           device.uploadStaged(*inputs[slot], 0, *staging[slot], 0,
                               needs.inputs, slot, error);
  };
  std::vector<std::vector<Buffer>> results;
  if (!calls.empty() && !stage(0, 0))
    return std::nullopt;
  for (size_t k = 0; k < calls.size(); ++k) {
    int slot = int(k % 2);
    if (!device.replayStaged(*steps[slot], slot, error))
      return std::nullopt;
    // The next inputs go up while this run computes. Their staging memory
    // is free: run k-1, which read it, finished before its outputs came
    // down.
    if (k + 1 < calls.size() && !stage(k + 1, 1 - slot))
      return std::nullopt;
    if (!device.synchronize(error))
      return std::nullopt;
    std::optional<std::vector<Buffer>> out = downloadOutputs(slot, {}, error);
    if (!out)
      return std::nullopt;
    results.push_back(std::move(*out));
  }
  return results;
}

std::string LoadedExecutable::report() const {
  std::string out = "device: " + device.name() + "\n";
  int64_t launches = 0, calls = 0, convolutions = 0;
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    const Step &step = exe.steps[s];
    out += "  step " + std::to_string(s) + ": ";
    auto launch = [&](const LaunchStep &l) {
      const KernelDesc &k = exe.kernels[size_t(l.kernel)];
      out += "generated kernel " + quoteName(k.name, '\'') + " (" +
             std::string(fusionKindName(k.kind)) + ", <<<" +
             std::to_string(l.gridSize) + ", " + std::to_string(l.blockSize) +
             ">>>)";
      ++launches;
    };
    auto matmul = [&](const MatmulStep &m) {
      int64_t n = matmulCallCount(exe, m);
      out += "matmul, " + std::to_string(n) +
             (n == 1 ? " cuBLASLt call" : " cuBLASLt calls") + ", epilogue " +
             matmulEpilogueName(m.epilogue);
      calls += n;
    };
    switch (step.kind) {
    case Step::Kind::Launch:
      launch(step.launch);
      break;
    case Step::Kind::Matmul:
      matmul(step.matmul);
      break;
    case Step::Kind::Conv: {
      // Which form ran is the device's to say (replayDescription).
      const MatmulStep &p = step.conv.product;
      int64_t n = matmulCallCount(exe, p);
      out += "convolution " + step.conv.window.describe() + ", epilogue " +
             matmulEpilogueName(p.epilogue) +
             " (on a device without convolutions: ";
      launch(step.conv.gather);
      out += " and " + std::to_string(n) +
             (n == 1 ? " cuBLASLt call)" : " cuBLASLt calls)");
      calls += n;
      ++convolutions;
      break;
    }
    }
    out += "\n";
  }
  if (std::string origin = kernels ? kernels->origin() : ""; !origin.empty())
    out += "  kernels: " + origin + "\n";
  out += "  " + std::to_string(launches) + " kernel launches, " +
         std::to_string(calls) + " cuBLASLt calls per run";
  if (convolutions)
    out += " (each of the " + std::to_string(convolutions) +
           " convolutions counted as its gather and product)";
  out += "; " + device.replayDescription() + "\n";
  return out;
}

std::optional<std::vector<double>> LoadedExecutable::time(int64_t repeats,
                                                          std::string &error) {
  std::vector<double> seconds;
  for (int64_t i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!device.replay(*steps[0], error) || !device.synchronize(error))
      return std::nullopt;
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return seconds;
}

/// Bytes step `step` reads and writes: its buffers' sizes (a matmul's
/// operands, bias and result; a launch's arguments; a convolution's input,
/// filter, bias and result, without its windows).
static int64_t stepBytes(const Executable &exe, const Step &step) {
  int64_t bytes = 0;
  auto add = [&](int64_t b) {
    if (b >= 0)
      bytes += bufferBytes(exe.buffers[size_t(b)]);
  };
  auto matmul = [&](const MatmulStep &m) {
    add(m.a);
    add(m.b);
    add(m.c);
    add(m.bias);
  };
  switch (step.kind) {
  case Step::Kind::Launch:
    for (int64_t b : step.launch.args)
      add(b);
    break;
  case Step::Kind::Matmul:
    matmul(step.matmul);
    break;
  case Step::Kind::Conv:
    // The convolution's own bytes: its input, filter, bias and result.
    add(step.conv.input);
    matmul(step.conv.product);
    bytes -= bufferBytes(exe.buffers[size_t(step.conv.product.a)]);
    break;
  }
  return bytes;
}

std::optional<std::string> LoadedExecutable::profile(std::string &error) {
  int64_t n = int64_t(exe.steps.size()) + 1;
  // The first replay warms up (the host's fibers, the GPU's caches).
  std::optional<std::vector<double>> seconds =
      device.profile(*steps[0], n, error);
  if (seconds)
    seconds = device.profile(*steps[0], n, error);
  if (!seconds)
    return std::nullopt;
  char line[256];
  std::string out = "profile on " + device.name() + ":\n";
  double total = 0;
  int64_t totalBytes = 0;
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    const Step &step = exe.steps[s];
    std::string what =
        step.kind == Step::Kind::Launch
            ? quoteName(exe.kernels[size_t(step.launch.kernel)].name, '\'')
        : step.kind == Step::Kind::Matmul
            ? std::string("matmul")
            : "conv " + step.conv.window.describe();
    int64_t bytes = stepBytes(exe, step);
    double t = (*seconds)[s];
    std::snprintf(line, sizeof line,
                  "  step %zu: %-26s %10.3f us %12lld bytes %9.2f GB/s\n", s,
                  what.c_str(), t * 1e6, (long long)bytes,
                  t > 0 ? double(bytes) / t * 1e-9 : 0.0);
    out += line;
    total += t;
    totalBytes += bytes;
  }
  double after = (*seconds)[exe.steps.size()];
  std::snprintf(line, sizeof line,
                "  total %.3f us (%zu steps, %lld bytes, %.2f GB/s)%s\n",
                total * 1e6, exe.steps.size(), (long long)totalBytes,
                total > 0 ? double(totalBytes) / total * 1e-9 : 0.0,
                after > 0 ? (", then " + std::to_string(after * 1e6) +
                             " us of copies and fills")
                                .c_str()
                          : "");
  out += line;
  return out;
}
