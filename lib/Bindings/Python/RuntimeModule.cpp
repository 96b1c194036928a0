//===- RuntimeModule.cpp - The fusec Python package's runtime part --------===//
//
// `fusec._runtime`: an .fsx artifact loaded on a device and run, linking
// only the runtime (no MLIR, no compiler), so that a deployment machine
// needs no compiler: `fusec.runtime.load("model.fsx")` on the GPU, or on
// the host device with the model's kernels compiled for the CPU
// (`host_kernels=`, docs/codegen.md).
//
//===----------------------------------------------------------------------===//

#include "Arrays.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Host/HostDevice.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <mutex>

namespace nb = nanobind;
using namespace fusec;
using namespace fusec::python;

namespace {

struct Loaded {
  rt::Executable executable;
  std::unique_ptr<rt::Device> device;
  std::unique_ptr<rt::LoadedExecutable> loaded;
  std::mutex mutex;
};

std::tuple<std::unique_ptr<Loaded>, std::string>
load(const std::string &path, const std::string &device,
     const std::string &hostKernels) {
  std::string error;
  nb::gil_scoped_release release;
  if (device == "host" && hostKernels.empty())
    return {nullptr, "device='host' needs host_kernels: the model's CUDA "
                     "C++ compiled for the CPU (docs/codegen.md)"};
  std::optional<rt::Executable> exe = rt::readExecutableFile(path, error);
  if (!exe)
    return {nullptr, error};
  auto l = std::make_unique<Loaded>();
  l->executable = std::move(*exe);
  if (!hostKernels.empty()) {
    l->device = rt::HostDevice::create(hostKernels, error);
  } else {
    l->device = rt::createCudaDevice(rt::CudaDeviceOptions(), error);
    if (!l->device)
      error = "no usable GPU: " + error +
              " (on the CPU: host_kernels=, the model's CUDA C++ compiled "
              "for the CPU)";
  }
  if (!l->device)
    return {nullptr, error};
  l->loaded = rt::LoadedExecutable::load(l->executable, *l->device,
                                         rt::ExecutionOptions(), error);
  if (!l->loaded)
    return {nullptr, error};
  return {std::move(l), std::string()};
}

std::tuple<std::optional<std::vector<nb::object>>, std::string>
run(Loaded &l, std::vector<Array> arrays) {
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::string error;
    Buffer b = toBuffer(arrays[i], "#" + std::to_string(i), error);
    if (!b)
      return {std::nullopt, error};
    buffers.push_back(std::move(b));
  }
  std::optional<std::vector<Buffer>> results;
  std::string error;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(l.mutex);
    results = l.loaded->run(buffers, error);
  }
  if (!results)
    return {std::nullopt, error};
  std::vector<nb::object> out;
  for (Buffer &r : *results)
    out.push_back(toArray(std::move(r)));
  return {std::move(out), std::string()};
}

nb::list describe(Loaded &l, const std::vector<int64_t> &which) {
  nb::list list;
  for (int64_t b : which) {
    const rt::BufferDesc &d = l.executable.buffers[size_t(b)];
    list.append(nb::make_tuple(d.name, std::string(dtypeName(d.dtype)),
                               nb::tuple(nb::cast(d.shape))));
  }
  return list;
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "fusec's runtime: load an .fsx artifact on a device and run it";
  nb::class_<Loaded>(m, "Loaded")
      .def_prop_ro("arguments",
                   [](Loaded &l) { return describe(l, l.executable.inputs); })
      .def_prop_ro("results",
                   [](Loaded &l) { return describe(l, l.executable.outputs); })
      .def_prop_ro("device", [](Loaded &l) { return l.device->name(); });
  m.def("load", &load, nb::arg("path"), nb::arg("device"),
        nb::arg("host_kernels"));
  m.def("run", &run, nb::arg("loaded"), nb::arg("arrays"));
}
