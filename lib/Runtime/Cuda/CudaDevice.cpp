//===- CudaDevice.cpp - An NVIDIA GPU behind the device interface ---------===//

#include "fusec/Runtime/Cuda/CudaDevice.h"
#include "fusec/Runtime/Cuda/CudaBlas.h"
#include "fusec/Runtime/Cuda/CudaLibraries.h"
#include "fusec/Support/Options.h"

#include <algorithm>
#include <functional>

using namespace fusec;
using namespace fusec::rt;
using namespace fusec::rt::cuda;

namespace {

/// The primary context of the device made current for a scope.
class ContextScope {
public:
  ContextScope(const Driver &driver, CUcontext context) : driver(driver) {
    pushed = driver.cuCtxPushCurrent(context) == CUDA_SUCCESS;
  }
  ~ContextScope() {
    if (pushed) {
      CUcontext popped;
      driver.cuCtxPopCurrent(&popped);
    }
  }
  bool ok() const { return pushed; }

private:
  const Driver &driver;
  bool pushed = false;
};

/// GPU `ordinal`'s handle and what --devices shows of it but the free
/// memory (which needs a context); false with `error` naming the GPU.
bool queryDevice(const Driver &driver, int ordinal, CUdevice &device,
                 CudaDeviceInfo &info, std::string &error) {
  info.ordinal = ordinal;
  char name[256] = {};
  size_t total = 0;
  CUresult r;
  if ((r = driver.cuDeviceGet(&device, ordinal)) != CUDA_SUCCESS ||
      (r = driver.cuDeviceGetName(name, sizeof name - 1, device)) !=
          CUDA_SUCCESS ||
      (r = driver.cuDeviceGetAttribute(
           &info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
           device)) != CUDA_SUCCESS ||
      (r = driver.cuDeviceGetAttribute(
           &info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
           device)) != CUDA_SUCCESS ||
      (r = driver.cuDeviceGetAttribute(&info.multiprocessors,
                                       CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                       device)) != CUDA_SUCCESS ||
      (r = driver.cuDeviceTotalMem(&total, device)) != CUDA_SUCCESS) {
    error = "cannot query GPU " + std::to_string(ordinal) + ": " +
            driver.describe(r);
    return false;
  }
  info.name = name;
  info.totalBytes = total;
  return true;
}

class CudaMemory final : public DeviceMemory {
public:
  CudaMemory(const Driver &driver, CUcontext context, CUdeviceptr pointer,
             int64_t bytes)
      : driver(driver), context(context), pointer(pointer), bytes(bytes) {}
  ~CudaMemory() override {
    ContextScope scope(driver, context);
    driver.cuMemFree(pointer);
  }
  uint64_t address() const override { return uint64_t(pointer); }
  int64_t size() const override { return bytes; }

private:
  const Driver &driver;
  CUcontext context;
  CUdeviceptr pointer;
  int64_t bytes;
};

/// Pinned host memory (cuMemAllocHost), for asynchronous uploads.
class CudaHostMemory final : public DeviceMemory {
public:
  CudaHostMemory(const Driver &driver, CUcontext context, void *pointer,
                 int64_t bytes)
      : driver(driver), context(context), pointer(pointer), bytes(bytes) {}
  ~CudaHostMemory() override {
    ContextScope scope(driver, context);
    driver.cuMemFreeHost(pointer);
  }
  uint64_t address() const override { return uint64_t(uintptr_t(pointer)); }
  int64_t size() const override { return bytes; }

private:
  const Driver &driver;
  CUcontext context;
  void *pointer;
  int64_t bytes;
};

class CudaKernels final : public DeviceKernels {
public:
  CudaKernels(const Driver &driver, CUcontext context)
      : driver(driver), context(context) {}
  ~CudaKernels() override {
    ContextScope scope(driver, context);
    for (CUmodule m : modules)
      driver.cuModuleUnload(m);
  }
  std::vector<CUmodule> modules;     // One per PTX text.
  std::vector<CUfunction> functions; // One per kernel.
  std::vector<std::string> names;
  std::string loadedFrom;

  std::string origin() const override { return loadedFrom; }

private:
  const Driver &driver;
  CUcontext context;
};

/// One recorded call: issues itself on a stream, or says what failed.
using Call = std::function<bool(CUstream, std::string &)>;

class CudaStepList final : public StepList {
public:
  CudaStepList(const Driver &driver, CUcontext context)
      : driver(driver), context(context) {}
  ~CudaStepList() override {
    ContextScope scope(driver, context);
    if (exec)
      driver.cuGraphExecDestroy(exec);
    if (graph)
      driver.cuGraphDestroy(graph);
  }
  std::vector<Call> calls;
  std::vector<int64_t> planStep; // Per call.
  std::vector<std::unique_ptr<BlasDescriptors>> descriptors;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;

private:
  const Driver &driver;
  CUcontext context;
};

class CudaDevice;

/// Turns the executor's steps into calls; the first failure is kept.
class CudaRecorder final : public StepRecorder {
public:
  CudaRecorder(CudaDevice &device, const CudaKernels &kernels,
               CudaStepList &list)
      : device(device), kernels(kernels), list(list) {}
  void launch(int64_t kernel, uint32_t grid, uint32_t block,
              const std::vector<uint64_t> &args) override;
  void matmul(const MatmulCall &call, uint64_t a, uint64_t b, uint64_t d,
              uint64_t bias, uint64_t workspace,
              int64_t workspaceBytes) override;
  void fill(uint64_t address, int64_t bytes, uint8_t value) override;
  void copy(uint64_t to, uint64_t from, int64_t bytes) override;
  void beginStep(int64_t step) override {
    tag();
    current = step;
  }
  /// Tags the calls added since the last call with the current step.
  void tag() { list.planStep.resize(list.calls.size(), current); }

  std::string error;

private:
  CudaDevice &device;
  const CudaKernels &kernels;
  CudaStepList &list;
  int64_t current = 0;
};

class CudaDevice final : public Device {
public:
  CudaDevice(const Driver &driver, const CudaDeviceOptions &options)
      : driver(driver), options(options) {}
  ~CudaDevice() override {
    {
      ContextScope scope(driver, context);
      if (blasHandle)
        blas->cublasLtDestroy(blasHandle);
      for (CUevent e : {uploaded[0], uploaded[1], computed[0], computed[1]})
        if (e)
          driver.cuEventDestroy(e);
      if (copyStream)
        driver.cuStreamDestroy(copyStream);
      if (stream)
        driver.cuStreamDestroy(stream);
    }
    if (context)
      driver.cuDevicePrimaryCtxRelease(device);
  }

  bool open(std::string &error) {
    CudaDeviceInfo info;
    if (!queryDevice(driver, options.ordinal, device, info, error) ||
        !check(driver.cuDevicePrimaryCtxRetain(&context, device),
               "cuDevicePrimaryCtxRetain", error))
      return false;
    multiprocessors = info.multiprocessors;
    architecture = smArch(info.major, info.minor);
    label = info.name + " (device " + std::to_string(options.ordinal) + ", " +
            architecture + ")";
    ContextScope scope(driver, context);
    if (!check(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
               "cuStreamCreate", error) ||
        !check(driver.cuStreamCreate(&copyStream, CU_STREAM_NON_BLOCKING),
               "cuStreamCreate", error))
      return false;
    for (CUevent *e : {&uploaded[0], &uploaded[1], &computed[0], &computed[1]})
      if (!check(driver.cuEventCreate(e, CU_EVENT_DISABLE_TIMING),
                 "cuEventCreate", error))
        return false;
    return true;
  }

  std::string name() const override { return label; }

  /// The most blocks of `block` threads the GPU keeps resident at once
  /// (2048 threads per multiprocessor on every architecture fusec
  /// targets), at least 1.
  uint32_t residentBlocks(uint32_t block) const {
    uint32_t perSM = std::max<uint32_t>(1, 2048 / std::max<uint32_t>(1, block));
    return std::max<uint32_t>(1, uint32_t(multiprocessors) * perSM);
  }
  std::string arch() const override { return architecture; }

  uint64_t availableBytes() const override {
    ContextScope scope(driver, context);
    size_t free = 0, total = 0;
    if (driver.cuMemGetInfo(&free, &total) != CUDA_SUCCESS)
      return 0;
    return free;
  }

  bool poisonsTemporaries() const override { return false; }

  std::string replayDescription() const override {
    return options.graphs ? "replayed as one CUDA graph"
                          : "launched one by one (CUDA graphs off)";
  }

  std::unique_ptr<DeviceMemory> allocate(int64_t bytes,
                                         std::string &error) override {
    ContextScope scope(driver, context);
    CUdeviceptr pointer = 0;
    // cuMemAlloc aligns to at least 256 bytes (kArenaAlignment).
    if (!check(driver.cuMemAlloc(&pointer, size_t(bytes)),
               "cuMemAlloc of " + describeBytes(uint64_t(bytes)), error))
      return nullptr;
    return std::make_unique<CudaMemory>(driver, context, pointer, bytes);
  }

  bool upload(const DeviceMemory &to, int64_t offset, const void *from,
              int64_t bytes, std::string &error) override {
    ContextScope scope(driver, context);
    return check(driver.cuMemcpyHtoDAsync(CUdeviceptr(to.address() + offset),
                                          from, size_t(bytes), stream),
                 "cuMemcpyHtoDAsync", error) &&
           check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize",
                 error);
  }

  bool download(const DeviceMemory &from, int64_t offset, void *to,
                int64_t bytes, std::string &error) override {
    ContextScope scope(driver, context);
    return check(driver.cuMemcpyDtoHAsync(to,
                                          CUdeviceptr(from.address() + offset),
                                          size_t(bytes), stream),
                 "cuMemcpyDtoHAsync", error) &&
           check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize",
                 error);
  }

  std::unique_ptr<DeviceKernels> loadKernels(const Executable &exe,
                                             std::string &error) override {
    if (!exe.kernels.empty() && !archRunsOn(exe.arch, architecture, error))
      return nullptr;
    ContextScope scope(driver, context);
    auto kernels = std::make_unique<CudaKernels>(driver, context);
    // Loads one module image (PTX text or CUBIN); a failure comes with the
    // driver's log (the JIT's, for PTX).
    auto load = [&](const std::string &image, CUmodule &module,
                    std::string &why) {
      std::string log(8192, '\0');
      CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {log.data(), reinterpret_cast<void *>(log.size() - 1)};
      std::string copy = image; // NUL-terminated, as PTX must be.
      CUresult r =
          driver.cuModuleLoadDataEx(&module, copy.c_str(), 2, keys, values);
      if (r == CUDA_SUCCESS)
        return true;
      log.resize(log.find('\0'));
      why = driver.describe(r) + (log.empty() ? "" : "\n" + log);
      return false;
    };
    // The CUBINs when they are this device's machine code: no JIT at
    // start-up, and no dependence on the driver accepting the toolkit's
    // PTX version. A CUBIN the driver refuses falls back to its PTX.
    bool cubin = loadsCubin(exe.arch, !exe.cubin.empty(), architecture);
    size_t fromCubin = 0, fromPtx = 0;
    std::string refused;
    for (size_t i = 0; i < exe.ptx.size(); ++i) {
      CUmodule module = nullptr;
      std::string why;
      if (cubin && load(exe.cubin[i], module, why)) {
        ++fromCubin;
      } else {
        if (cubin && refused.empty())
          refused = "; the driver refused CUBIN " + std::to_string(i) + " (" +
                    why.substr(0, why.find('\n')) + ")";
        if (!load(exe.ptx[i], module, why)) {
          error = "cuModuleLoadDataEx of PTX text " + std::to_string(i) +
                  " failed: " + why;
          return nullptr;
        }
        ++fromPtx;
      }
      kernels->modules.push_back(module);
    }
    auto count = [](size_t n) {
      return std::to_string(n) + (n == 1 ? " module" : " modules");
    };
    std::string &from = kernels->loadedFrom;
    if (fromCubin)
      from = count(fromCubin) + " from CUBIN for " + exe.arch;
    if (fromPtx)
      from += std::string(fromCubin ? ", " : "") + count(fromPtx) +
              " from PTX for " + exe.arch + ", compiled by the driver for " +
              architecture;
    from += refused;
    for (const KernelDesc &k : exe.kernels) {
      CUfunction f = nullptr;
      if (!check(driver.cuModuleGetFunction(
                     &f, kernels->modules[size_t(k.ptxIndex)], k.name.c_str()),
                 "cuModuleGetFunction of kernel " + quoteName(k.name, '\''),
                 error))
        return nullptr;
      kernels->functions.push_back(f);
      kernels->names.push_back(k.name);
    }
    return kernels;
  }

  std::unique_ptr<StepList>
  record(const DeviceKernels &kernels,
         const std::function<void(StepRecorder &)> &record,
         std::string &error) override {
    auto list = std::make_unique<CudaStepList>(driver, context);
    CudaRecorder recorder(*this, static_cast<const CudaKernels &>(kernels),
                          *list);
    record(recorder);
    recorder.tag();
    if (!recorder.error.empty()) {
      error = recorder.error;
      return nullptr;
    }
    if (!options.graphs)
      return list;
    // The whole list captured once as a graph; every replay launches it.
    ContextScope scope(driver, context);
    if (!check(driver.cuStreamBeginCapture(stream,
                                           CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture", error))
      return nullptr;
    bool issued = issue(*list, error);
    CUgraph graph = nullptr;
    CUresult ended = driver.cuStreamEndCapture(stream, &graph);
    list->graph = graph;
    if (!issued)
      return nullptr;
    if (!check(ended, "cuStreamEndCapture", error) ||
        !check(driver.cuGraphInstantiateWithFlags(&list->exec, graph, 0),
               "cuGraphInstantiateWithFlags", error))
      return nullptr;
    return list;
  }

  bool replay(StepList &steps, std::string &error) override {
    auto &list = static_cast<CudaStepList &>(steps);
    ContextScope scope(driver, context);
    if (list.exec)
      return check(driver.cuGraphLaunch(list.exec, stream), "cuGraphLaunch",
                   error);
    return issue(list, error);
  }

  std::optional<std::vector<double>> profile(StepList &steps, int64_t numSteps,
                                             std::string &error) override {
    // The calls one by one (not the graph), an event before each step's
    // first call and after the last, timed by the device.
    auto &list = static_cast<CudaStepList &>(steps);
    ContextScope scope(driver, context);
    std::vector<CUevent> events;
    auto cleanup = [&] {
      for (CUevent e : events)
        driver.cuEventDestroy(e);
    };
    std::vector<std::pair<int64_t, size_t>> marks; // (step, event)
    auto mark = [&](int64_t step) {
      CUevent e = nullptr;
      if (!check(driver.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate",
                 error))
        return false;
      events.push_back(e);
      marks.emplace_back(step, events.size() - 1);
      return check(driver.cuEventRecord(e, stream), "cuEventRecord", error);
    };
    for (size_t i = 0; i < list.calls.size(); ++i) {
      if ((i == 0 || list.planStep[i] != list.planStep[i - 1]) &&
          !mark(list.planStep[i])) {
        cleanup();
        return std::nullopt;
      }
      if (!list.calls[i](stream, error)) {
        cleanup();
        return std::nullopt;
      }
    }
    std::vector<double> seconds(size_t(numSteps), 0.0);
    if (!mark(-1) || !check(driver.cuEventSynchronize(events.back()),
                            "cuEventSynchronize", error)) {
      cleanup();
      return std::nullopt;
    }
    for (size_t m = 0; m + 1 < marks.size(); ++m) {
      float ms = 0;
      if (!check(driver.cuEventElapsedTime(&ms, events[marks[m].second],
                                           events[marks[m + 1].second]),
                 "cuEventElapsedTime", error)) {
        cleanup();
        return std::nullopt;
      }
      int64_t s = marks[m].first;
      if (s >= 0 && s < numSteps)
        seconds[size_t(s)] += ms * 1e-3;
    }
    cleanup();
    return seconds;
  }

  std::unique_ptr<DeviceMemory> allocateStaging(int64_t bytes,
                                                std::string &error) override {
    ContextScope scope(driver, context);
    void *pointer = nullptr;
    if (!check(driver.cuMemAllocHost(&pointer, size_t(bytes)),
               "cuMemAllocHost of " + describeBytes(uint64_t(bytes)), error))
      return nullptr;
    return std::make_unique<CudaHostMemory>(driver, context, pointer, bytes);
  }

  bool uploadStaged(const DeviceMemory &to, int64_t offset,
                    const DeviceMemory &from, int64_t fromOffset, int64_t bytes,
                    int slot, std::string &error) override {
    // On the copy stream, once the compute stream is done with the slots.
    ContextScope scope(driver, context);
    const void *source =
        reinterpret_cast<const char *>(uintptr_t(from.address())) + fromOffset;
    return check(driver.cuStreamWaitEvent(copyStream, computed[slot], 0),
                 "cuStreamWaitEvent", error) &&
           check(driver.cuMemcpyHtoDAsync(CUdeviceptr(to.address() + offset),
                                          source, size_t(bytes), copyStream),
                 "cuMemcpyHtoDAsync", error) &&
           check(driver.cuEventRecord(uploaded[slot], copyStream),
                 "cuEventRecord", error);
  }

  bool replayStaged(StepList &list, int slot, std::string &error) override {
    {
      ContextScope scope(driver, context);
      if (!check(driver.cuStreamWaitEvent(stream, uploaded[slot], 0),
                 "cuStreamWaitEvent", error))
        return false;
    }
    if (!replay(list, error))
      return false;
    ContextScope scope(driver, context);
    return check(driver.cuEventRecord(computed[slot], stream), "cuEventRecord",
                 error);
  }

  bool synchronize(std::string &error) override {
    ContextScope scope(driver, context);
    return check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize",
                 error);
  }

  /// cuBLASLt and its handle on this device, created on first use.
  bool blasHandleFor(std::string &error) {
    if (blasHandle)
      return true;
    if (!(blas = BlasLt::get(error)))
      return false;
    ContextScope scope(driver, context);
    cublasStatus_t status = blas->cublasLtCreate(&blasHandle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      error = "cublasLtCreate failed: " + blas->describe(status);
      blasHandle = nullptr;
      return false;
    }
    return true;
  }

  bool check(CUresult result, const std::string &what,
             std::string &error) const {
    if (result == CUDA_SUCCESS)
      return true;
    error = what + " failed on " + (label.empty() ? "the GPU" : label) + ": " +
            driver.describe(result);
    return false;
  }

  const Driver &driver;
  const BlasLt *blas = nullptr;
  cublasLtHandle_t blasHandle = nullptr;

private:
  bool issue(CudaStepList &list, std::string &error) {
    for (Call &call : list.calls)
      if (!call(stream, error))
        return false;
    return true;
  }

  CudaDeviceOptions options;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  /// Pipelined runs: uploads on their own stream; per slot set, when its
  /// upload arrived and when the compute stream finished with it.
  CUstream copyStream = nullptr;
  CUevent uploaded[2] = {}, computed[2] = {};
  std::string architecture, label;
  int multiprocessors = 1;
};

void CudaRecorder::launch(int64_t kernel, uint32_t grid, uint32_t block,
                          const std::vector<uint64_t> &args) {
  CUfunction f = kernels.functions[size_t(kernel)];
  std::string name = quoteName(kernels.names[size_t(kernel)], '\'');
  const Driver &driver = device.driver;
  // Generated kernels are grid-stride: any grid is correct. The compiler
  // sized it for its target; more blocks than this GPU keeps resident at
  // once only queue up, so the grid is cut to that.
  grid = std::min<uint32_t>(grid, device.residentBlocks(block));
  list.calls.push_back([&driver, &device = device, f, grid, block, name,
                        pointers =
                            std::vector<CUdeviceptr>(args.begin(), args.end())](
                           CUstream stream, std::string &error) mutable {
    std::vector<void *> params;
    for (CUdeviceptr &p : pointers)
      params.push_back(&p);
    return device.check(driver.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0,
                                              stream, params.data(), nullptr),
                        "cuLaunchKernel of " + name, error);
  });
}

void CudaRecorder::matmul(const MatmulCall &call, uint64_t a, uint64_t b,
                          uint64_t d, uint64_t bias, uint64_t workspace,
                          int64_t workspaceBytes) {
  if (!error.empty() || !device.blasHandleFor(error))
    return;
  const BlasLt &blas = *device.blas;
  std::unique_ptr<BlasDescriptors> desc =
      BlasDescriptors::create(blas, call, bias, error);
  if (!desc)
    return;
  // The algorithm is chosen once, here, by cuBLASLt's heuristic for this
  // exact call and workspace.
  cublasLtMatmulPreference_t preference = nullptr;
  cublasStatus_t status = blas.cublasLtMatmulPreferenceCreate(&preference);
  uint64_t limit = uint64_t(workspaceBytes);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = blas.cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit,
        sizeof limit);
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = blas.cublasLtMatmulAlgoGetHeuristic(
        device.blasHandle, desc->operation, desc->a, desc->b, desc->c, desc->d,
        preference, 1, &heuristic, &found);
  if (preference)
    blas.cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
    error = "cuBLASLt has no algorithm for " + describeCall(call) +
            (status != CUBLAS_STATUS_SUCCESS ? ": " + blas.describe(status)
                                             : std::string());
    return;
  }
  BlasDescriptors *descriptors = desc.get();
  list.descriptors.push_back(std::move(desc));
  list.calls.push_back([&blas, &device = device, descriptors,
                        algo = heuristic.algo, a, b, d, workspace,
                        workspaceBytes, text = describeCall(call)](
                           CUstream stream, std::string &error) {
    BlasDescriptors &x = *descriptors;
    // cuBLAS "A" and "B" are the call's a and b; C is D (beta 0).
    cublasStatus_t status = blas.cublasLtMatmul(
        device.blasHandle, x.operation, &x.alpha,
        reinterpret_cast<const void *>(a), x.a,
        reinterpret_cast<const void *>(b), x.b, &x.beta,
        reinterpret_cast<const void *>(d), x.c, reinterpret_cast<void *>(d),
        x.d, &algo, reinterpret_cast<void *>(workspace), size_t(workspaceBytes),
        stream);
    if (status == CUBLAS_STATUS_SUCCESS)
      return true;
    error = "cublasLtMatmul failed (" + text + "): " + blas.describe(status);
    return false;
  });
}

void CudaRecorder::fill(uint64_t address, int64_t bytes, uint8_t value) {
  const Driver &driver = device.driver;
  list.calls.push_back([&driver, &device = device, address, bytes,
                        value](CUstream stream, std::string &error) {
    return device.check(driver.cuMemsetD8Async(CUdeviceptr(address), value,
                                               size_t(bytes), stream),
                        "cuMemsetD8Async", error);
  });
}

void CudaRecorder::copy(uint64_t to, uint64_t from, int64_t bytes) {
  const Driver &driver = device.driver;
  list.calls.push_back([&driver, &device = device, to, from,
                        bytes](CUstream stream, std::string &error) {
    return device.check(driver.cuMemcpyDtoDAsync(CUdeviceptr(to),
                                                 CUdeviceptr(from),
                                                 size_t(bytes), stream),
                        "cuMemcpyDtoDAsync", error);
  });
}

} // namespace

std::unique_ptr<Device>
fusec::rt::createCudaDevice(const CudaDeviceOptions &options,
                            std::string &error) {
  const Driver *driver = Driver::get(error);
  if (!driver)
    return nullptr;
  int count = 0;
  CUresult r = driver->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    error = "cuDeviceGetCount failed: " + driver->describe(r);
    return nullptr;
  }
  if (count == 0) {
    error = "the NVIDIA driver sees no GPU";
    return nullptr;
  }
  if (options.ordinal < 0 || options.ordinal >= count) {
    error = "there is no GPU " + std::to_string(options.ordinal) + " (" +
            std::to_string(count) + " found: 0 to " +
            std::to_string(count - 1) + ")";
    return nullptr;
  }
  auto device = std::make_unique<CudaDevice>(*driver, options);
  if (!device->open(error))
    return nullptr;
  return device;
}

bool fusec::rt::listCudaDevices(std::vector<CudaDeviceInfo> &devices,
                                int &driverVersion, std::string &error) {
  const Driver *driver = Driver::get(error);
  if (!driver)
    return false;
  driverVersion = driver->version;
  int count = 0;
  CUresult r = driver->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    error = "cuDeviceGetCount failed: " + driver->describe(r);
    return false;
  }
  if (count == 0) {
    error = "the NVIDIA driver (" + std::to_string(driverVersion / 1000) + "." +
            std::to_string(driverVersion % 1000 / 10) + ") sees no GPU";
    return false;
  }
  for (int i = 0; i < count; ++i) {
    CudaDeviceInfo info;
    CUdevice device;
    if (!queryDevice(*driver, i, device, info, error))
      return false;
    // Free memory needs a context: the primary one, released at once.
    CUcontext context = nullptr;
    if (driver->cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS) {
      {
        ContextScope scope(*driver, context);
        size_t free = 0, all = 0;
        if (scope.ok() && driver->cuMemGetInfo(&free, &all) == CUDA_SUCCESS)
          info.freeBytes = free;
      }
      driver->cuDevicePrimaryCtxRelease(device);
    }
    devices.push_back(info);
  }
  return true;
}

std::string fusec::rt::describeCudaDevices() {
  std::vector<CudaDeviceInfo> devices;
  int version = 0;
  std::string error;
  if (!listCudaDevices(devices, version, error))
    return "no usable GPU: " + error + "\n";
  std::string out;
  for (const CudaDeviceInfo &d : devices)
    out += "GPU " + std::to_string(d.ordinal) + ": " + d.name + ", " +
           smArch(d.major, d.minor) + ", " + std::to_string(d.multiprocessors) +
           " multiprocessors, " + describeBytes(d.freeBytes) + " free of " +
           describeBytes(d.totalBytes) + "; driver " +
           std::to_string(version / 1000) + "." +
           std::to_string(version % 1000 / 10) + "\n";
  return out;
}

std::string fusec::rt::describeCudaLibraries() {
  std::string out, error;
  if (const Driver *driver = Driver::get(error))
    out += "CUDA driver " + std::to_string(driver->version / 1000) + "." +
           std::to_string(driver->version % 1000 / 10) + " (" +
           driver->library + ")\n";
  else
    out += "CUDA driver: " + error + "\n";
  error.clear();
  if (const BlasLt *blas = BlasLt::get(error))
    out += "cuBLASLt " + std::to_string(blas->version / 10000) + "." +
           std::to_string(blas->version % 10000 / 100) + "." +
           std::to_string(blas->version % 100) + " (" + blas->library + ")\n";
  else
    out += "cuBLASLt: " + error + "\n";
  return out;
}
