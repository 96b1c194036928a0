//===- CudaDevice.h - An NVIDIA GPU behind the device interface -*- C++ -*-===//
//
// The CUDA device: a thin layer between the plan executor (Executor.h) and
// the driver API. Memory is cuMemAlloc'd (never managed memory), kernels are
// the artifact's PTX loaded as modules, a recorded step list is a CUDA graph
// captured from one stream (or, with graphs off, the same calls issued again
// on every replay), matrix products are cublasLtMatmul calls built from the
// tested descriptions of Matmul.h. Every driver and cuBLASLt result is
// checked; a failure names the call and the step.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CUDA_CUDADEVICE_H
#define FUSEC_RUNTIME_CUDA_CUDADEVICE_H

#include "fusec/Runtime/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusec::rt {

/// What `fusec --devices` shows of one GPU.
struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0; // Compute capability: sm_<major><minor>.
  int multiprocessors = 0;
  uint64_t freeBytes = 0, totalBytes = 0;
};

/// The GPUs of this machine, or false with `error` saying exactly why none
/// is usable (no driver, the stub library, no device, ...).
bool listCudaDevices(std::vector<CudaDeviceInfo> &devices, int &driverVersion,
                     std::string &error);

/// One line per device, or the reason there is none: what `--devices`
/// prints.
std::string describeCudaDevices();

/// For --version: the CUDA driver and cuBLASLt libraries this process
/// loads, with their versions, or why each is not usable (one line each).
std::string describeCudaLibraries();

struct CudaDeviceOptions {
  int ordinal = 0;
  /// Replay step lists as CUDA graphs (else the calls are issued one by
  /// one on every replay, for comparison).
  bool graphs = true;
};

/// Opens GPU `options.ordinal` (its primary context and one stream), or
/// returns nullptr with `error` saying why.
std::unique_ptr<Device> createCudaDevice(const CudaDeviceOptions &options,
                                         std::string &error);

/// "sm_90" for compute capability 9.0.
std::string smArch(int major, int minor);

/// Whether code compiled for `artifactArch` ("sm_90") runs on a device of
/// `deviceArch`: PTX is compiled forward, never backward. False with
/// `error` for an artifact newer than the device or an unknown spelling.
bool archRunsOn(const std::string &artifactArch, const std::string &deviceArch,
                std::string &error);

/// Whether a device of `deviceArch` loads the artifact's CUBINs (compiled
/// for `artifactArch`) rather than its PTX: only on exactly that
/// architecture, so that sm_90 machine code never reaches an sm_100
/// device (which runs the PTX, compiled forward by the driver).
bool loadsCubin(const std::string &artifactArch, bool hasCubin,
                const std::string &deviceArch);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CUDA_CUDADEVICE_H
