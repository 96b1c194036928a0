//===- CudaLibraries.h - The CUDA driver and cuBLASLt, loaded at run time -===//
//
// fusec links neither libcuda nor cuBLASLt: both are opened with dlopen the
// first time a GPU is asked for, so that the same binary runs on machines
// without a driver (and says why there is no GPU). Every entry point is a
// typed pointer whose type comes from the toolkit's own header
// (`decltype(&::cuLaunchKernel)`), so a signature mistake is a compile
// error, not a crash on the first GPU. Driver entry points are resolved with
// cuGetProcAddress at the CUDA version of the headers, which gives the ABI
// those types describe (cuMemAlloc is cuMemAlloc_v2, and so on).
//
// Where the libraries are looked for: $FUSEC_LIBCUDA (a path, for tests and
// unusual installs), else "libcuda.so.1" through the dynamic loader (the
// driver installs it); $FUSEC_LIBCUBLASLT, else "libcublasLt.so.13" through
// the loader, else the toolkit's lib64 directory.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CUDA_CUDALIBRARIES_H
#define FUSEC_RUNTIME_CUDA_CUDALIBRARIES_H

#include <cublasLt.h>
#include <cuda.h>

#include <string>

namespace fusec::rt::cuda {

// The driver entry points fusec uses, each X(name) with its unversioned
// name (cuda.h maps it to the versioned symbol the headers describe).
#define FUSEC_CUDA_DRIVER_ENTRIES(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuMemGetInfo)                                                              \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemAllocHost)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)

/// The CUDA driver, loaded once per process.
struct Driver {
#define FUSEC_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  FUSEC_CUDA_DRIVER_ENTRIES(FUSEC_DECLARE_ENTRY)
#undef FUSEC_DECLARE_ENTRY

  /// The library that was opened, for messages ("libcuda.so.1").
  std::string library;
  /// cuDriverGetVersion: 13000 for CUDA 13.0.
  int version = 0;

  /// The driver, initialised (cuInit); nullptr with `error` saying why
  /// there is none: no library (the NVIDIA driver is not installed), the
  /// toolkit's stub library, a driver older than the headers, or cuInit's
  /// error. Thread-safe; the answer is the same for the whole process.
  static const Driver *get(std::string &error);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a result code.
  std::string describe(CUresult result) const;
};

// The cuBLASLt entry points fusec uses.
#define FUSEC_CUBLASLT_ENTRIES(X)                                              \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatmulDescGetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatrixLayoutGetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

/// cuBLASLt, loaded once per process.
struct BlasLt {
#define FUSEC_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  FUSEC_CUBLASLT_ENTRIES(FUSEC_DECLARE_ENTRY)
#undef FUSEC_DECLARE_ENTRY

  std::string library;
  size_t version = 0;

  /// cuBLASLt, or nullptr with `error` naming what was tried.
  static const BlasLt *get(std::string &error);

  /// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
  /// supported)".
  std::string describe(cublasStatus_t status) const;
};

} // namespace fusec::rt::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDALIBRARIES_H
