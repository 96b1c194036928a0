//===- CudaLibraries.cpp - The CUDA driver and cuBLASLt via dlopen --------===//

#include "fusec/Runtime/Cuda/CudaLibraries.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

using namespace fusec::rt::cuda;

namespace {

/// The handle of the first candidate that opens (its name in `opened`),
/// or nullptr with dlopen's answer for each in `tried`.
void *openFirst(const std::vector<std::string> &candidates, std::string &opened,
                std::string &tried) {
  for (const std::string &c : candidates) {
    if (void *handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = c;
      return handle;
    }
    const char *why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : c);
  }
  return nullptr;
}

std::string environment(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : "";
}

/// The names of the CUresult values a message may need when the driver
/// cannot name them itself (the stub library names nothing).
const char *resultName(CUresult r) {
  switch (r) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  default:
    return nullptr;
  }
}

/// A library's entry points, or why they could not be had.
template <typename Library> struct Loaded {
  Library library;
  std::string error;
  bool ok = false;
};

Loaded<Driver> loadDriver() {
  Loaded<Driver> out;
  Driver &d = out.library;
  std::string path = environment("FUSEC_LIBCUDA");
  std::string tried;
  void *handle =
      openFirst({path.empty() ? "libcuda.so.1" : path}, d.library, tried);
  if (!handle) {
    out.error = "cannot load the CUDA driver library " +
                (path.empty() ? std::string("libcuda.so.1") : path) +
                " (is the NVIDIA driver installed?): " + tried;
    return out;
  }
  auto getProc = reinterpret_cast<decltype(&::cuGetProcAddress_v2)>(
      dlsym(handle, "cuGetProcAddress_v2"));
  if (!getProc) {
    out.error = d.library +
                " has no cuGetProcAddress_v2: the NVIDIA driver is older "
                "than CUDA 12, which this fusec needs";
    return out;
  }
  std::string missing;
  bool stub = false, tooOld = false;
  auto resolve = [&](const char *name, void **slot) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r =
        getProc(name, slot, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (r == CUDA_ERROR_STUB_LIBRARY)
      stub = true;
    if (status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
      tooOld = true;
    if (r != CUDA_SUCCESS || !*slot)
      missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
#define FUSEC_RESOLVE_ENTRY(name)                                              \
  resolve(#name, reinterpret_cast<void **>(&d.name));
  FUSEC_CUDA_DRIVER_ENTRIES(FUSEC_RESOLVE_ENTRY)
#undef FUSEC_RESOLVE_ENTRY
  if (stub) {
    out.error =
        d.library +
        " is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), "
        "not a driver: the NVIDIA driver is not installed";
    return out;
  }
  if (!missing.empty()) {
    out.error = d.library + " lacks " + missing +
                (tooOld ? ": the NVIDIA driver is older than the CUDA " +
                              std::to_string(CUDA_VERSION / 1000) + "." +
                              std::to_string(CUDA_VERSION % 1000 / 10) +
                              " this fusec was built with"
                        : std::string());
    return out;
  }
  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    out.error = "cuInit failed: " + d.describe(r);
    return out;
  }
  if (CUresult r = d.cuDriverGetVersion(&d.version); r != CUDA_SUCCESS) {
    out.error = "cuDriverGetVersion failed: " + d.describe(r);
    return out;
  }
  out.ok = true;
  return out; // The handle stays open for the life of the process.
}

Loaded<BlasLt> loadBlasLt() {
  Loaded<BlasLt> out;
  BlasLt &b = out.library;
  std::string path = environment("FUSEC_LIBCUBLASLT");
  std::vector<std::string> candidates;
  if (!path.empty())
    candidates = {path};
  else
    candidates = {"libcublasLt.so.13",
                  "/usr/local/cuda/lib64/libcublasLt.so.13"};
  std::string tried;
  void *handle = openFirst(candidates, b.library, tried);
  if (!handle) {
    out.error = "cannot load cuBLASLt (" + tried + ")";
    return out;
  }
  std::string missing;
#define FUSEC_RESOLVE_ENTRY(name)                                              \
  b.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));          \
  if (!b.name)                                                                 \
    missing += (missing.empty() ? "" : ", ") + std::string(#name);
  FUSEC_CUBLASLT_ENTRIES(FUSEC_RESOLVE_ENTRY)
#undef FUSEC_RESOLVE_ENTRY
  if (!missing.empty()) {
    out.error = b.library + " lacks " + missing;
    return out;
  }
  b.version = b.cublasLtGetVersion();
  out.ok = true;
  return out;
}

} // namespace

const Driver *Driver::get(std::string &error) {
  static const Loaded<Driver> load = loadDriver(); // Thread-safe, once.
  if (!load.ok) {
    error = load.error;
    return nullptr;
  }
  return &load.library;
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (!cuGetErrorName || cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = resultName(result);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string out = name ? name : "CUresult " + std::to_string(int(result));
  if (text)
    out += " (" + std::string(text) + ")";
  return out;
}

const BlasLt *BlasLt::get(std::string &error) {
  static const Loaded<BlasLt> load = loadBlasLt();
  if (!load.ok) {
    error = load.error;
    return nullptr;
  }
  return &load.library;
}

std::string BlasLt::describe(cublasStatus_t status) const {
  const char *name =
      cublasLtGetStatusName ? cublasLtGetStatusName(status) : nullptr;
  const char *text =
      cublasLtGetStatusString ? cublasLtGetStatusString(status) : nullptr;
  std::string out =
      name ? name : "cublasStatus_t " + std::to_string(int(status));
  if (text)
    out += " (" + std::string(text) + ")";
  return out;
}
