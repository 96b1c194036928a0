//===- HostExecutor.cpp - Run an executable's plan on the CPU -------------===//

#include "fusec/Runtime/HostExecutor.h"
#include "fusec/Interpreter/Kernels.h"

#include <dlfcn.h>

#include <cstring>

using namespace fusec;
using namespace fusec::rt;

std::unique_ptr<HostKernels> HostKernels::open(const std::string &path,
                                               std::string &error) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load host kernels '" + path +
            "': " + (why ? why : "unknown error");
    return nullptr;
  }
  std::unique_ptr<HostKernels> kernels(new HostKernels());
  kernels->handle = handle;
  return kernels;
}

HostKernels::~HostKernels() {
  if (handle)
    dlclose(handle);
}

HostKernels::Entry HostKernels::lookup(const std::string &name) const {
  return reinterpret_cast<Entry>(dlsym(handle, (name + "_host").c_str()));
}

std::optional<std::vector<Buffer>>
fusec::rt::runOnHost(const Executable &exe, const HostKernels &kernels,
                     const std::vector<Buffer> &inputs, std::string &error) {
  std::vector<HostKernels::Entry> entries;
  for (const KernelDesc &k : exe.kernels) {
    entries.push_back(kernels.lookup(k.name));
    if (!entries.back()) {
      error = "the host kernels lack '" + k.name +
              "_host': were they compiled from this model's --emit=cuda?";
      return std::nullopt;
    }
  }

  if (inputs.size() != exe.inputs.size()) {
    error = "'" + exe.entry + "' takes " + std::to_string(exe.inputs.size()) +
            " input(s), " + std::to_string(inputs.size()) + " given";
    return std::nullopt;
  }
  // Buffers in plan order: an alias always follows the buffer it views.
  std::vector<Buffer> buffers(exe.buffers.size());
  for (size_t i = 0; i < exe.buffers.size(); ++i) {
    const BufferDesc &d = exe.buffers[i];
    Shape shape(d.shape.begin(), d.shape.end());
    switch (d.kind) {
    case BufferKind::Input: {
      const Buffer &in = inputs[size_t(d.index)];
      if (in.dtype() != d.dtype || in.shape() != shape) {
        error = "input #" + std::to_string(d.index) + " is " +
                std::string(dtypeName(in.dtype())) + "[" +
                formatShape(in.shape()) + "], the model takes " +
                std::string(dtypeName(d.dtype)) + "[" + formatShape(shape) +
                "]";
        return std::nullopt;
      }
      buffers[i] = in;
      break;
    }
    case BufferKind::Constant: {
      buffers[i] = Buffer::allocate(d.dtype, shape, &error);
      if (!buffers[i])
        return std::nullopt;
      const std::string &data = exe.constants[size_t(d.index)];
      if (!data.empty())
        std::memcpy(buffers[i].data(), data.data(), data.size());
      break;
    }
    case BufferKind::Temp:
      buffers[i] = Buffer::allocate(d.dtype, shape, &error);
      if (!buffers[i])
        return std::nullopt;
      // Poison (NaN, -1, an invalid i1): an element a kernel fails to
      // write shows in the results instead of passing as a zero.
      std::memset(buffers[i].data(), 0xff, buffers[i].sizeInBytes());
      break;
    case BufferKind::Alias:
      buffers[i] = buffers[size_t(d.index)].withShape(shape);
      break;
    }
  }

  for (const Step &step : exe.steps) {
    if (step.kind == Step::Kind::Matmul) {
      const MatmulStep &m = step.matmul;
      kernels::matmul(buffers[size_t(m.a)], buffers[size_t(m.b)],
                      buffers[size_t(m.c)]);
      continue;
    }
    const LaunchStep &launch = step.launch;
    std::vector<void *> args;
    for (int64_t b : launch.args)
      args.push_back(buffers[size_t(b)].data());
    entries[size_t(launch.kernel)](launch.gridSize, launch.blockSize,
                                   args.data());
  }

  std::vector<Buffer> outputs;
  for (int64_t b : exe.outputs)
    outputs.push_back(buffers[size_t(b)]);
  return outputs;
}
