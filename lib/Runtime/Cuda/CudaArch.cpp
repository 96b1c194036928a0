//===- CudaArch.cpp - GPU architecture names ------------------------------===//
//
// Plain C++ (no CUDA header): which artifact runs on which GPU.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cuda/CudaDevice.h"

using namespace fusec;
using namespace fusec::rt;

std::string fusec::rt::smArch(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

namespace {

/// The number of "sm_90", "sm_100a", "sm_120f" (90, 100, 120), or -1.
int archNumber(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return -1;
  size_t end = 3;
  int n = 0;
  while (end < arch.size() && end < 7 && arch[end] >= '0' && arch[end] <= '9')
    n = n * 10 + (arch[end++] - '0');
  if (end == 3 ||
      (end < arch.size() &&
       !(end + 1 == arch.size() && (arch[end] == 'a' || arch[end] == 'f'))))
    return -1;
  return n;
}

} // namespace

bool fusec::rt::archRunsOn(const std::string &artifactArch,
                           const std::string &deviceArch, std::string &error) {
  int artifact = archNumber(artifactArch), device = archNumber(deviceArch);
  if (artifact < 0) {
    error = "unknown target architecture '" + artifactArch + "'";
    return false;
  }
  if (artifact > device) {
    error = "the model was compiled for " + artifactArch +
            ", newer than the device's " + deviceArch +
            " (recompile it with --gpu-arch=" + deviceArch + ")";
    return false;
  }
  return true;
}

bool fusec::rt::loadsCubin(const std::string &artifactArch, bool hasCubin,
                           const std::string &deviceArch) {
  return hasCubin && archNumber(artifactArch) >= 0 &&
         artifactArch == deviceArch;
}
