//===- CudaUnavailable.cpp - The CUDA device of a build without CUDA ------===//
//
// Built instead of the CUDA device when CMake found no CUDA toolkit headers:
// the same functions, each saying why there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cuda/CudaDevice.h"

using namespace fusec;
using namespace fusec::rt;

static const char kWhy[] =
    "this fusec was built without the CUDA toolkit's headers, so it has no "
    "GPU runtime (install the toolkit and rebuild)";

bool fusec::rt::listCudaDevices(std::vector<CudaDeviceInfo> &, int &,
                                std::string &error) {
  error = kWhy;
  return false;
}

std::string fusec::rt::describeCudaDevices() {
  return std::string("no usable GPU: ") + kWhy + "\n";
}

std::string fusec::rt::describeCudaLibraries() {
  return std::string("CUDA: ") + kWhy + "\n";
}

std::unique_ptr<Device> fusec::rt::createCudaDevice(const CudaDeviceOptions &,
                                                    std::string &error) {
  error = kWhy;
  return nullptr;
}
